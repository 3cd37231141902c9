/**
 * A kernel with no build-time artifact: `cuda.jit(fn)` run by tsx, Vitest, bun, strip-types or plain
 * node on tsc's output. Like Numba's JIT it compiles at its first launch (importing a file of kernels
 * stays fast): it finds its TypeScript source from where `cuda.jit` was called, compiles that file's
 * kernels (or takes them from the disk cache) and picks itself out by the call's position.
 */
import type { KernelArtifact } from "../../backend";
import { CudaScriptError } from "../../errors";
import type { ForallOptions, Kernel, LaunchDim, LaunchOptions } from "../../kernel-api";
import { CompiledKernel } from "../kernel";
import type { PendingCallSite } from "./call-site";
import type { CompiledSource } from "./compile-file";
import type { SourcePosition } from "./source-map";

export class SourceKernel<Args extends unknown[]> implements Kernel<Args> {
  private compiled?: CompiledKernel<Args>;

  constructor(
    /** `fn.name`: empty for an arrow function passed to cuda.jit. */
    private readonly fnName: string,
    readonly options: unknown,
    private readonly site: PendingCallSite,
  ) {}

  get name(): string {
    return this.compiled?.name ?? (this.fnName || "kernel");
  }

  toString(): string {
    return this.compiled ? this.compiled.toString() : `Kernel ${this.name} (compiled from source at its first launch)`;
  }

  launch(grid: LaunchDim, block: LaunchDim, options?: LaunchOptions): (...args: any[]) => void {
    return this.compile().launch(grid, block, options);
  }

  forall(n: number, options?: ForallOptions): (...args: any[]) => void {
    return this.compile().forall(n, options);
  }

  /** Compiles (once) and returns the kernel; throws CSR051, CSR052 or CSR053. */
  compile(): CompiledKernel<Args> {
    if (this.compiled) return this.compiled;
    // Loaded here, at the first launch: a program whose kernels were compiled at build time never needs them.
    /* eslint-disable @typescript-eslint/no-require-imports */
    const { locateSource } = require("./source-map") as typeof import("./source-map");
    const { compiledSource } = require("./compile-file") as typeof import("./compile-file");
    /* eslint-enable @typescript-eslint/no-require-imports */
    const located = locateSource(this.site.resolve());
    if (!located.ok)
      throw new CudaScriptError(
        "CSR051",
        `kernel '${this.name}' has no compiled form and its TypeScript source cannot be found: cuda.jit was called at ${located.found}, and ${located.why}. ${located.evaluated ? "Declare the kernel in a TypeScript file instead. " : ""}${advice(located.generatedText)}`,
      );
    const started = performance.now();
    const source = compiledSource(located.source.file);
    const compileMs = performance.now() - started;
    const name = pickKernel(source, located.source, this.fnName);
    this.compiled = new CompiledKernel<Args>(source.artifact as KernelArtifact, name, this.options);
    // The file's compile (or cache read) is timed once, with the first of its kernels to launch.
    if (!timedSources.has(source)) {
      timedSources.add(source);
      this.compiled.addCompileTime(compileMs);
    }
    return this.compiled;
  }
}

const timedSources = new WeakSet<CompiledSource>();

/** The kernel whose `cuda.jit(...)` call holds the call position; else the one named `fn.name`. */
function pickKernel(source: CompiledSource, at: SourcePosition, fnName: string): string {
  const kernels = source.artifact ? Object.keys(source.artifact.kernels) : [];
  if (at.line !== undefined && at.col !== undefined) {
    const offset = offsetOf(source.text, at.line, at.col);
    const call = source.calls.find((c) => c.start <= offset && offset < c.end);
    if (call) return call.name;
  }
  if (fnName && kernels.includes(fnName)) return fnName;
  if (at.line === undefined && kernels.length === 1) return kernels[0]!;
  const where = at.line !== undefined ? `${source.file}:${at.line}:${at.col}` : source.file;
  const found = kernels.length ? `no kernel of that file (${kernels.join(", ")}) is declared there` : "that file declares no kernel CudaScript recognises";
  const fix =
    at.unmappedFrom !== undefined && kernels.length
      ? `the call in ${at.unmappedFrom} has no source map to say which kernel it is: emit source maps ("sourceMap": true in tsconfig.json), or name the function (cuda.jit(function ${kernels[0]}(...) { ... }))`
      : `declare each kernel at module level as 'const name = cuda.jit((...) => { ... })'${at.line !== undefined ? ", and if the file changed since the program started, run it again" : ""}`;
  throw new CudaScriptError("CSR053", `the kernel declared by cuda.jit at ${where} cannot be identified: ${found}. Fix: ${fix}`);
}

/** UTF-16 offset of a 1-based line and column (the units of V8's and source maps' columns). */
function offsetOf(text: string, line: number, col: number): number {
  let offset = 0;
  for (let l = 1; l < line; l++) {
    const nl = text.indexOf("\n", offset);
    if (nl < 0) return text.length;
    offset = nl + 1;
  }
  return offset + col - 1;
}

/** What to do when the source cannot be found, naming the bundler that made `generated` if it shows. */
function advice(generated: string | undefined): string {
  const bundler = generated === undefined ? undefined : bundlerOf(generated);
  const run = "or run the TypeScript itself (tsx, Vitest, 'npx cudascript run file.ts'), which compiles kernels at their first launch";
  if (bundler) return `This looks like a ${bundler.name} bundle: add the CudaScript plugin '${bundler.plugin}' to the ${bundler.name} build, ${run}.`;
  return `If a bundler made this file, add its CudaScript plugin to the build ('cudascript/esbuild', 'cudascript/vite', 'cudascript/webpack' or 'cudascript/rspack'), ${run}; a kernel library should ship its .ts sources beside its .js and source maps.`;
}

function bundlerOf(text: string): { name: string; plugin: string } | undefined {
  if (text.includes("__webpack_require__")) return /\brspack\b/i.test(text) ? { name: "Rspack", plugin: "cudascript/rspack" } : { name: "webpack", plugin: "cudascript/webpack" };
  if (/^\/\/#region /m.test(text) || text.includes("__vite_ssr_")) return { name: "Vite", plugin: "cudascript/vite" };
  if (/\b__toESM\b|\b__commonJS\b/.test(text)) return { name: "esbuild", plugin: "cudascript/esbuild" };
  return undefined;
}
