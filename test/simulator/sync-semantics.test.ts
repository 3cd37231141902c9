/**
 * The simulator's inlined warp loops (compiler/src/js/emit/sync.ts with the records' `jsWarp`) against the semantics written
 * once as plain functions (compiler/src/intrinsics/sync.ts `warpResults`, which the debugger's stepping
 * backend uses): random block sizes (partial last warps included), random sets of lanes that reach the
 * operation together, random values, deltas and lanes. Any difference is a bug in one of the two.
 */
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { warpResults, type SyncRequest } from "@cudascript/compiler/intrinsics/sync";
import { compileSource, kernel, type TestKernel } from "./helpers";

/** Each operation as the kernel calls it, and the arguments its request carries (mask first). */
const OPS = {
  shflSync: { call: "cuda.shflSync(masks[t], vals[t], xs[t])", args: (m: number, v: number, x: number) => [m, v, x] },
  shflUpSync: { call: "cuda.shflUpSync(masks[t], vals[t], xs[t])", args: (m: number, v: number, x: number) => [m, v, x] },
  shflDownSync: { call: "cuda.shflDownSync(masks[t], vals[t], xs[t])", args: (m: number, v: number, x: number) => [m, v, x] },
  shflXorSync: { call: "cuda.shflXorSync(masks[t], vals[t], xs[t])", args: (m: number, v: number, x: number) => [m, v, x] },
  ballotSync: { call: "cuda.ballotSync(masks[t], vals[t] > 0)", args: (m: number, v: number) => [m, v > 0] },
  allSync: { call: "cuda.allSync(masks[t], vals[t] > 0) ? 1 : 0", args: (m: number, v: number) => [m, v > 0] },
  anySync: { call: "cuda.anySync(masks[t], vals[t] > 0) ? 1 : 0", args: (m: number, v: number) => [m, v > 0] },
  eqSync: { call: "cuda.eqSync(masks[t], vals[t] > 0) ? 1 : 0", args: (m: number, v: number) => [m, v > 0] },
  matchAnySync: { call: "cuda.matchAnySync(masks[t], vals[t])", args: (m: number, v: number) => [m, v] },
  matchAllSync: { call: "cuda.matchAllSync(masks[t], vals[t])", args: (m: number, v: number) => [m, v] },
  activemask: { call: "cuda.activemask()", args: () => [] },
} as const;
type Op = keyof typeof OPS;

function source(op: Op): string {
  const unsigned = op === "ballotSync" || op.startsWith("match") || op === "activemask";
  return `
import { cuda } from "cudascript";
export const k = cuda.jit((active: Int32Array, masks: Uint32Array, vals: Int32Array, xs: Int32Array, out: ${unsigned ? "Uint32Array" : "Int32Array"}) => {
  const t = cuda.threadIdx.x;
  if (active[t] !== 0) out[t] = ${OPS[op].call};
});`;
}

/** What the plain functions give each thread of one launch (threads that do not take part keep -1). */
function expected(op: Op, active: readonly boolean[], masks: Uint32Array, vals: Int32Array, xs: Int32Array): number[] {
  const n = active.length;
  const out = new Array<number>(n).fill(-1);
  for (let base = 0; base < n; base += 32) {
    const width = Math.min(32, n - base);
    const lanes: number[] = [];
    const reqs: SyncRequest[] = [];
    for (let l = 0; l < width; l++)
      if (active[base + l]) {
        lanes.push(l);
        reqs.push({ op, site: 0, args: OPS[op].args(masks[base + l]!, vals[base + l]!, xs[base + l]!) });
      }
    if (!lanes.length) continue;
    warpResults(op, lanes, reqs, width).forEach((r, i) => (out[base + lanes[i]!] = typeof r === "boolean" ? (r ? 1 : 0) : (r as number)));
  }
  return out;
}

const launch = fc.record({
  threads: fc.integer({ min: 1, max: 80 }),
  activeBits: fc.array(fc.boolean(), { minLength: 80, maxLength: 80 }),
  allActive: fc.boolean(),
  fullMask: fc.boolean(),
  vals: fc.array(fc.integer({ min: -2, max: 2 }), { minLength: 80, maxLength: 80 }),
  xs: fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 80, maxLength: 80 }),
});

describe("the simulator's warp operations agree with the semantics written once (intrinsics/sync.ts)", () => {
  for (const op of Object.keys(OPS) as Op[]) {
    it(`${op}: random blocks, lanes, values and offsets`, () => {
      const k: TestKernel = kernel(compileSource(source(op)), "k");
      fc.assert(
        fc.property(launch, (c) => {
          const n = c.threads;
          const active = Array.from({ length: n }, (_, t) => c.allActive || c.activeBits[t]!);
          // The mask each lane passes: the lanes of its warp that take part (valid CUDA), or the full
          // mask when the whole (possibly partial) warp takes part, as Numba's tests write it.
          const masks = new Uint32Array(n);
          for (let base = 0; base < n; base += 32) {
            let m = 0;
            for (let l = 0; l < 32 && base + l < n; l++) if (active[base + l]) m |= 1 << l;
            const whole = Array.from({ length: Math.min(32, n - base) }, (_, l) => active[base + l]).every(Boolean);
            for (let l = 0; l < 32 && base + l < n; l++) masks[base + l] = whole && c.fullMask ? 0xffffffff : m >>> 0;
          }
          const vals = Int32Array.from(c.vals.slice(0, n));
          const xs = Int32Array.from(c.xs.slice(0, n));
          const unsigned = op === "ballotSync" || op.startsWith("match") || op === "activemask";
          const out = unsigned ? new Uint32Array(n).fill(0xffffffff) : new Int32Array(n).fill(-1);
          k.launch(1, n)(Int32Array.from(active, (a) => (a ? 1 : 0)), masks, vals, xs, out);
          const want = expected(op, active, masks, vals, xs).map((v) => (unsigned ? v >>> 0 : v));
          assert.deepEqual(Array.from(out), want);
        }),
        { numRuns: 60, seed: 20261206 },
      );
    });
  }
});
