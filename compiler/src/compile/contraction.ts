/**
 * FMA contraction audit of compiled PTX. CudaScript compiles with `--fmad=false` unless a kernel opts
 * in (`fma: true` or `fastmath: true`), so that `a * b + c` rounds twice on the GPU as it does in the
 * simulator and in TypeScript. A `fma.rn` in the PTX of any other kernel can then only come from an
 * explicit `cuda.fma` — anything else means contraction leaked back in (a changed NVRTC default, a
 * lost option), which would silently break bit-exact agreement between backends.
 *
 * CUDA's own math library (libdevice: `expf`, `sinf`, `powf`, …) computes with explicit fused
 * multiply-adds whatever the flag says; those functions are documented as within a few ulp of V8's
 * (not bit-equal) anyway, so kernels calling them are exempt from the audit.
 */
import type { IntrinsicName, IrFunction, IrModule } from "../ir/nodes";
import { forEachRootExpr, visitExpr } from "../ir/visit";
import { INTRINSICS } from "../intrinsics";
import type { RandomDraw } from "../ir/random";

/** Whether `name` may put a fma.rn in the PTX without contraction: its record says so (cuda.fma, the math library). */
function fusesExplicitly(name: IntrinsicName): boolean {
  return INTRINSICS.get(name)?.libraryFma === true;
}

/** The normal draws of cuda.random call logf/cosf (or log/cos) of libdevice, like Math.log/Math.cos. */
function drawUsesMathLibrary(draw: RandomDraw): boolean {
  return draw === "xoroshiro128pNormalFloat32" || draw === "xoroshiro128pNormalFloat64";
}

/**
 * Kernels whose PTX may contain fused multiply-adds: they opt into contraction, or (transitively) call
 * cuda.fma or a math-library function.
 */
export function kernelsAllowedToFuse(module: IrModule): Set<string> {
  const byId = new Map<string, IrFunction>([...module.deviceFunctions, ...module.kernels].map((f) => [f.id, f]));
  const callsFma = new Map<string, boolean>();
  const reaches = (f: IrFunction): boolean => {
    const known = callsFma.get(f.id);
    if (known !== undefined) return known;
    callsFma.set(f.id, false); // recursion is rejected by the checker; this only guards the walk
    let found = false;
    forEachRootExpr(f.body, (root) => visitExpr(root, (e) => (found ||= (e.k === "intrinsic" && fusesExplicitly(e.name)) || (e.k === "random" && drawUsesMathLibrary(e.draw)))));
    found ||= f.callees.some((id) => {
      const callee = byId.get(id);
      return callee !== undefined && reaches(callee);
    });
    callsFma.set(f.id, found);
    return found;
  };
  return new Set(module.kernels.filter((k) => k.options.fastmath || k.options.fma || reaches(k)).map((k) => k.name));
}

/** Number of `fma.rn` instructions each `.entry` of `ptx` executes, counting the `.func`s it calls. */
export function fusedMultiplyAddsByEntry(ptx: string): Map<string, number> {
  const header = /^\s*(?:\.visible\s+|\.weak\s+|\.extern\s+)*\.(entry|func)\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)/gm;
  const heads = [...ptx.matchAll(header)];
  const bodies = heads.map((m, i) => ({ kind: m[1]!, name: m[2]!, text: ptx.slice(m.index, heads[i + 1]?.index ?? ptx.length) }));
  const funcs = new Map(bodies.filter((b) => b.kind === "func").map((b) => [b.name, b.text]));
  const count = (text: string, seen: Set<string>): number => {
    let n = (text.match(/\bfma\.rn\b/g) ?? []).length;
    for (const call of text.matchAll(/\bcall(?:\.uni)?\s+(?:\([^)]*\),\s*)?([A-Za-z_$][\w$]*)/g)) {
      const callee = call[1]!;
      const body = funcs.get(callee);
      if (body !== undefined && !seen.has(callee)) n += count(body, new Set([...seen, callee]));
    }
    return n;
  };
  return new Map(bodies.filter((b) => b.kind === "entry").map((b) => [b.name, count(b.text, new Set())]));
}

/**
 * Kernels (source names) whose PTX has fused multiply-adds although they neither opt into contraction
 * nor call cuda.fma. `symbolOf` maps a kernel's source name to its PTX entry name.
 */
export function unexpectedContractions(module: IrModule, ptxModules: readonly { ptx: string }[], symbolOf: (kernel: string) => string): { kernel: string; fmas: number }[] {
  const allowed = kernelsAllowedToFuse(module);
  const counts = new Map<string, number>();
  for (const m of ptxModules) for (const [entry, n] of fusedMultiplyAddsByEntry(m.ptx)) counts.set(entry, (counts.get(entry) ?? 0) + n);
  return module.kernels
    .filter((k) => !allowed.has(k.name))
    .map((k) => ({ kernel: k.name, fmas: counts.get(symbolOf(k.name)) ?? 0 }))
    .filter((r) => r.fmas > 0);
}
