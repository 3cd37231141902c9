/** Test helpers: compile kernels with the front end and load them into the runtime like the esbuild plugin does. */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { KernelChecker, makeArtifact, type KernelArtifact } from "@cudascript/compiler";
import { cuda, CudaScriptError } from "cudascript";

export const REPO = path.resolve(__dirname, "..", "..", "..");

let checker: KernelChecker | undefined;
function theChecker(): KernelChecker {
  return (checker ??= new KernelChecker());
}

/** Compiles a kernel file (must check without errors). */
export function compileFile(file: string): KernelArtifact {
  const r = theChecker().checkFile(file);
  const errors = r.diagnostics.filter((d) => d.severity === "error");
  if (errors.length) throw new Error(`${file} does not check:\n${errors.map((d) => `${d.span.line}:${d.span.col} ${d.code} ${d.message}`).join("\n")}`);
  return makeArtifact(r.module, { staticSharedBytes: r.staticSharedBytes });
}

let virtualCounter = 0;
/** Compiles kernel source text (a virtual file next to the corpus so "cudascript" resolves). */
export function compileSource(text: string): KernelArtifact {
  const file = path.join(REPO, "test", "simulator", `__virtual_${process.pid}_${virtualCounter++}.ts`);
  theChecker().setFileText(file, text);
  return compileFile(file);
}

/** A launchable kernel from an artifact, as `cuda.jit` returns it in a bundle built by the plugin. */
export interface TestKernel {
  readonly name: string;
  launch(grid: number | readonly number[], block: number | readonly number[], options?: { sharedMem?: number; stream?: unknown }): (...args: unknown[]) => void;
}

export function kernel(artifact: KernelArtifact, name: string): TestKernel {
  const jit = cuda.jit as unknown as (fn: unknown, opts: unknown, artifact: KernelArtifact, name: string) => TestKernel;
  return jit(null, undefined, artifact, name);
}

export function exists(p: string): boolean {
  return fs.existsSync(p);
}

/** Asserts that `f` throws a CudaScriptError with `code` (and, when given, a message matching `message`). */
export function throwsCode(f: () => unknown, code: string, message?: RegExp): void {
  assert.throws(f, (e: unknown) => {
    assert.ok(e instanceof CudaScriptError, `expected a CudaScriptError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    if (message) assert.match(e.message, message);
    return true;
  });
}
