/**
 * The profiling variant of a kernel module: emitted on demand from the IR the artifact carries (not
 * embedded in bundles, which would grow every program by a third module for a tool few runs use), once
 * per artifact and process.
 *
 * The serialised IR repeats each variable as a separate JSON object where the in-memory IR shares one
 * object, and the simulator's emitter keys its tables by variable identity: `relinkIr` makes every
 * occurrence of a variable (same function, same id) one object again. A test checks that the plain
 * variant emitted from the relinked IR is byte-identical to the artifact's own.
 */
import type { IrModule } from "@cudascript/compiler";
import type { KernelArtifact } from "@cudascript/compiler/artifact";
import { CudaScriptError } from "../errors";

type Compiler = typeof import("@cudascript/compiler");
function compiler(): Compiler {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require("@cudascript/compiler") as Compiler;
}

/** Whether `x` is a serialised Var: `{ id, name, type, isParam, mutable, span }`. */
function isVar(x: Record<string, unknown>): boolean {
  return typeof x.id === "number" && typeof x.name === "string" && typeof x.isParam === "boolean" && typeof x.mutable === "boolean" && "type" in x;
}

/**
 * The serialised IR with shared variables shared again: within each function (kernels and device
 * functions), every object that is a variable with a given id becomes the first one seen.
 */
export function relinkIr(ir: IrModule): IrModule {
  const copy = JSON.parse(JSON.stringify(ir)) as IrModule;
  const relinkFn = (fn: unknown) => {
    const vars = new Map<number, unknown>();
    const walk = (x: unknown): unknown => {
      if (Array.isArray(x)) {
        for (let i = 0; i < x.length; i++) x[i] = walk(x[i]);
        return x;
      }
      if (x === null || typeof x !== "object") return x;
      const o = x as Record<string, unknown>;
      if (isVar(o)) {
        const seen = vars.get(o.id as number);
        if (seen) return seen;
        vars.set(o.id as number, o);
        return o;
      }
      for (const k of Object.keys(o)) o[k] = walk(o[k]);
      return o;
    };
    walk(fn);
  };
  for (const f of copy.deviceFunctions) relinkFn(f);
  for (const k of copy.kernels) relinkFn(k);
  return copy;
}

const variants = new Map<string, string>();

/** The profiling module for an artifact, with its key among loaded modules (CSR092 when it was built without its IR). */
export function profileVariant(artifact: KernelArtifact): { key: string; source: string } {
  // CUDASCRIPT_PROFILE_PER_THREAD=1: every site counted per thread (the reference for the bulk counting;
  // docs/profiling.md#cost). The same counts, slower.
  const perThread = process.env.CUDASCRIPT_PROFILE_PER_THREAD === "1";
  const key = `${artifact.hash}:profile${perThread ? "-per-thread" : ""}`;
  let src = variants.get(key);
  if (src) return { key, source: src };
  if (!artifact.ir)
    throw new CudaScriptError(
      "CSR092",
      `the kernels of ${artifact.file} were built without their IR (includeIr: false), so they cannot be profiled: rebuild with the CudaScript plugin's default options`,
    );
  src = compiler().emitSimulatorModule(relinkIr(artifact.ir), { profile: true, profilePerThread: perThread }).source;
  variants.set(key, src);
  return { key, source: src };
}
