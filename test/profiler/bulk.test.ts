/**
 * Bulk counting (compiler/src/js/emit/profile-bulk.ts, docs/profiling.md#cost) gives the same report as
 * counting every site per thread (CUDASCRIPT_PROFILE_PER_THREAD=1): kernels written to reach each of its
 * paths — a range `if` with a partial last block, misaligned, negative and wide strides, 1-, 2- and
 * 8-byte elements, 2-D blocks whose rows are not warps, counted loops, an early return that ends the
 * straight-line code, and in kernels with barriers shrinking ranges that leave a warp's lanes at
 * different counts, `>`/`==` ranges, a block-uniform `if`. Real compiler, real simulator; no GPU.
 */
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cuda, type ProfileReport } from "cudascript";
import { emitSimulatorModule } from "@cudascript/compiler";
import { relinkIr } from "cudascript/dist/profiler/variant";
import { compileSource, kernel } from "../simulator/helpers";

const SRC = `
import { cuda, f32, f64, i32, u8, u16, u32, type Array1D, type Array2D } from "cudascript";
export const vecAdd = cuda.jit((a: Array1D<f32>, b: Array1D<f32>, out: Array1D<f32>) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = a[i] + b[i];
});
export const strides = cuda.jit((a: Array1D<f64>, b: Array1D<u8>, c: Array1D<u16>, out: Array1D<f64>, off: i32, n: i32) => {
  const i = cuda.grid(1);
  if (n > i) {
    const j = n - 1 - i;
    out[j] = a[i + off] + b[i * 3] + c[2 * i + off];
    out[i] = a[i * 33 % 7];
  }
});
export const twoD = cuda.jit((a: Array2D<f32>, out: Array2D<f32>, w: i32) => {
  const x = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x;
  const y = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y;
  if (x < w) out[y][x] = a[x % 4][y] + a[y][x];
});
export const counted = cuda.jit((a: Array1D<f32>, out: Array1D<f32>, n: i32) => {
  const i = cuda.grid(1);
  let acc: f32 = 0;
  for (let k = 0; k < 8; k++) acc += a[i * 8 + k] + a[k * n + i];
  for (let k = 6; k >= 0; k -= 3) acc += a[k + i];
  out[i] = acc;
});
export const conds = cuda.jit((a: Array1D<f32>, b: Array1D<f32>, out: Array1D<f32>) => {
  const i = cuda.grid(1);
  out[i] = i < 250 ? a[i] : b[i];
  if (i < 200 && a[i + 1] > 0) out[i] = 1;
  if (i >= 100 || b[i] > 0) out[i] += 2;
});
export const atomics = cuda.jit((data: Array1D<i32>, hist: Array1D<u32>, n: i32) => {
  const i = cuda.grid(1);
  if (i < n) cuda.atomic.add(hist, data[i], 1);
  cuda.atomic.max(hist, i % 3, 0);
  hist[data[i] + 20] = 1;
});
export const sharedAtomics = cuda.jit((data: Array1D<i32>, out: Array1D<u32>) => {
  const bins = cuda.shared.array(16, u32);
  const t = cuda.threadIdx.x;
  if (t < 16) bins[t] = 0;
  cuda.syncthreads();
  for (let s = 80; s > 0; s -= 30) {
    if (t < s) cuda.atomic.add(bins, data[t] & 15, 1);
    cuda.syncthreads();
    if (t >= s - 20) cuda.atomic.add(out, data[t + s] + cuda.blockIdx.x, 1);
    cuda.syncthreads();
  }
  if (t < 16) out[cuda.blockIdx.x * 16 + t] = bins[t];
});
export const unsignedWrap = cuda.jit((a: Array1D<f32>, out: Array1D<f32>, n: u32) => {
  const t: u32 = cuda.threadIdx.x;
  if (t - 1 < n) out[t] = a[t];
  const i: i32 = cuda.grid(1);
  if (i - 3 < 20) out[i] = 2;
});
export const early = cuda.jit((a: Array1D<f32>, out: Array1D<f32>) => {
  const i = cuda.grid(1);
  out[i] = a[i];
  if (a[i] > 0) return;
  out[i] = a[i + 1];
});
export const reduce = cuda.jit((x: Array1D<f32>, out: Array1D<f32>) => {
  const sh = cuda.shared.array(96, f32);
  const t = cuda.threadIdx.x;
  sh[t] = t < 90 ? x[cuda.grid(1)] : 0;
  cuda.syncthreads();
  if (t > 3 && x[t * 2] > 0 || t === 1) sh[t] = 2;
  cuda.syncthreads();
  for (let s = 48; s > 0; s >>= 1) {
    if (t < s) sh[t] += sh[t + s];
    cuda.syncthreads();
    if (t >= s + 10) sh[t] = sh[t - 1];
    cuda.syncthreads();
  }
  for (let s = 8; s <= 96; s *= 2) {
    if (t < s) sh[t] = sh[(t * 5) % 96] + x[t * 3 + 100 - s];
    cuda.syncthreads();
  }
  if (t === 7) out[cuda.blockIdx.x] = sh[0];
  if (cuda.blockIdx.x % 2 === 0) {
    sh[t] = 1;
    cuda.syncthreads();
    out[cuda.grid(1)] = sh[95 - t];
  }
});
export const rows2d = cuda.jit((x: Array1D<f32>, out: Array1D<f32>) => {
  const sh = cuda.shared.array([8, 12], f32);
  const tx = cuda.threadIdx.x, ty = cuda.threadIdx.y;
  sh[ty][tx] = x[ty * 12 + tx];
  cuda.syncthreads();
  for (let s = 12; s > 0; s -= 5) {
    if (tx < s) sh[ty][tx] += x[tx * 2 + ty * 7 + s];
    cuda.syncthreads();
  }
  for (let s = 2; s <= 12; s += 5) {
    if (tx < s) sh[ty][tx] += x[100 + tx - s * 3];
    cuda.syncthreads();
  }
  out[ty * 12 + tx] = sh[ty][tx];
});
export const planes = cuda.jit((x: Array1D<f32>, out: Array1D<f32>) => {
  const sh = cuda.shared.array(96, f32);
  const tx = cuda.threadIdx.x, ty = cuda.threadIdx.y, tz = cuda.threadIdx.z;
  const t = (tz * 4 + ty) * 4 + tx;
  sh[t] = x[tz * 40 + ty * 9 + tx * 3];
  cuda.syncthreads();
  for (let s = 4; s > 0; s--) {
    if (tx < s) out[tz * 16 + ty * 4 + tx] = sh[tz * 3 + ty * 17 + tx] + x[tx + s];
    cuda.syncthreads();
  }
});
// A device function with a barrier is inlined into its kernel's pieces; its parameter k is the caller's
// per-thread value, not a launch constant.
const stage = cuda.device((sh: Array1D<f32>, x: Array1D<f32>, k: i32): f32 => {
  sh[cuda.threadIdx.x] = x[k * 3];
  cuda.syncthreads();
  const v = sh[k % 32] + x[k + 1] + x[(k >> 1) + cuda.threadIdx.x];
  cuda.syncthreads();
  return v;
});
export const inlined = cuda.jit((x: Array1D<f32>, out: Array1D<f32>) => {
  const sh = cuda.shared.array(64, f32);
  const t = cuda.threadIdx.x;
  out[t] = stage(sh, x, t * 2 + 1) + stage(sh, x, 5);
});
export const tiles = cuda.jit((a: Array1D<f32>, out: Array1D<f32>, n: i32) => {
  const sA = cuda.shared.array([16, 17], f32);
  const sB = cuda.shared.array([16, 16], u16);
  const tx = cuda.threadIdx.x, ty = cuda.threadIdx.y;
  const row = cuda.blockIdx.y * 16 + ty, col = cuda.blockIdx.x * 16 + tx;
  let acc: f32 = 0;
  for (let t = 0; t < n; t += 16) {
    sA[ty][tx] = a[row * n + t + tx];
    sB[tx][ty] = 3;
    cuda.syncthreads();
    for (let k = 0; k < 16; k++) acc += sA[ty][k] * sB[k][tx] + sA[k][ty];
    cuda.syncthreads();
  }
  out[row * n + col] = acc;
});
`;

type Launch = (art: ReturnType<typeof compileSource>) => void;
const f32 = (n: number) => Float32Array.from({ length: n }, (_, i) => ((i * 7919) % 13) - 6);

const LAUNCHES: [string, Launch][] = [
  ["vecAdd, a partial last block", (art) => kernel(art, "vecAdd").launch(4, 96)(f32(300), f32(300), new Float32Array(300))],
  [
    "strides of 8-, 1- and 2-byte elements, misaligned, reversed",
    (art) => kernel(art, "strides").launch(3, 100)(new Float64Array(400), new Uint8Array(1000), new Uint16Array(800), new Float64Array(400), 3, 250),
  ],
  [
    "a 2-D block whose rows are not warps",
    (art) => kernel(art, "twoD").launch([2, 2], [12, 10])(cuda.ndarray(f32(40 * 40), [40, 40]), cuda.ndarray(new Float32Array(40 * 40), [40, 40]), 21),
  ],
  ["counted loops", (art) => kernel(art, "counted").launch(2, 80)(f32(8 * 160 + 8), new Float32Array(160), 160)],
  ["?:, && and || on a range", (art) => kernel(art, "conds").launch(3, 100)(f32(301), f32(300), new Float32Array(300))],
  [
    "atomics and gathers (recorded element indices)",
    (art) => kernel(art, "atomics").launch(3, 100)(Int32Array.from({ length: 300 }, (_, i) => (i < 64 ? 3 : (i * 7) % 19)), new Uint32Array(64), 250),
  ],
  [
    "shared and global atomics in shrinking ranges",
    (art) => kernel(art, "sharedAtomics").launch(2, 96)(Int32Array.from({ length: 200 }, (_, i) => (i % 5 === 0 ? 0 : (i * 11) % 23)), new Uint32Array(64)),
  ],
  ["unsigned differences that wrap below 0", (art) => kernel(art, "unsignedWrap").launch(2, 64)(f32(128), new Float32Array(128), 10)],
  ["an early return", (art) => kernel(art, "early").launch(2, 64)(f32(129), new Float32Array(128))],
  ["shrinking ranges, > and == ranges, a block-uniform if", (art) => kernel(art, "reduce").launch(3, 96)(f32(512), new Float32Array(288))],
  ["2-D blocks whose warps span rows, ranges shrinking and growing", (art) => kernel(art, "rows2d").launch(2, [12, 8])(f32(200), new Float32Array(96))],
  ["3-D blocks whose warps span planes", (art) => kernel(art, "planes").launch(2, [4, 4, 6])(f32(400), new Float32Array(96))],
  ["a device function with barriers, inlined, its parameter a per-thread value", (art) => kernel(art, "inlined").launch(1, 64)(f32(400), new Float32Array(64))],
  ["tiles in 16×16 blocks (two rows a warp), a counted loop inside", (art) => kernel(art, "tiles").launch([2, 2], [16, 16])(f32(32 * 32), new Float32Array(32 * 32), 32)],
];

function profiled(run: () => void, perThread: boolean): ProfileReport {
  const saved = process.env.CUDASCRIPT_PROFILE_PER_THREAD;
  process.env.CUDASCRIPT_PROFILE_PER_THREAD = perThread ? "1" : "0";
  try {
    return cuda.profile(run);
  } finally {
    if (saved === undefined) delete process.env.CUDASCRIPT_PROFILE_PER_THREAD;
    else process.env.CUDASCRIPT_PROFILE_PER_THREAD = saved;
  }
}

describe("bulk counting", () => {
  const art = compileSource(SRC);
  for (const [what, launch] of LAUNCHES)
    it(`counts as per-thread counting does: ${what}`, () => {
      const bulk = profiled(() => launch(art), false);
      const each = profiled(() => launch(art), true);
      assert.ok(bulk.launches[0]!.totals.globalLoadRequests + bulk.launches[0]!.totals.sharedLoadRequests > 0);
      assert.deepEqual(bulk.launches, each.launches);
    });
  it("counts in bulk where it can (the kernels above reach it)", () => {
    const src = (perThread: boolean) => emitSimulatorModule(relinkIr(art.ir!), { profile: true, profilePerThread: perThread }).source;
    const calls = (s: string) => s.match(/\$P\.ba\(/g)?.length ?? 0;
    assert.equal(calls(src(true)), 0);
    assert.ok(calls(src(false)) >= 20, String(calls(src(false))));
    });
});
