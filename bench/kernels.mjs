// The kernels the simulator benchmarks share (bench/sim.mjs times them, bench/sanitize.mjs and
// bench/profile.mjs measure the sanitizer's and the profiler's cost on them), and their inputs.

/** Vector add (f32, f16), i32/i64 integer mixes, the shared-memory reduction, tiled matmul, histogram. */
export const SIM_BENCH_KERNELS = `
import { cuda, f32, u32, i32, i64, Float16Array } from "cudascript";
const TPB = 256;
export const mixI32 = cuda.jit((a: Int32Array, b: Int32Array, out: Int32Array, k: i32) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = ((a[i] * k + b[i]) ^ (a[i] >> 3)) - (b[i] & 1023);
});
export const mixI64 = cuda.jit((a: BigInt64Array, b: BigInt64Array, out: BigInt64Array, k: i64) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = ((a[i] * k + b[i]) ^ (a[i] >> 3n)) - (b[i] & 1023n);
});
const TILE = 16;
export const vecAdd = cuda.jit((a: Float32Array, b: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = a[i] + b[i];
});
// vecAdd's f16 twin: every sum rounds to f16 (rt.f16round), the arrays are Float16Arrays.
export const vecAddF16 = cuda.jit((a: Float16Array, b: Float16Array, out: Float16Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = a[i] + b[i];
});
export const reduce = cuda.jit((x: Float32Array, partial: Float32Array) => {
  const tile = cuda.shared.array(TPB, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  tile[t] = i < x.length ? x[i] : 0;
  cuda.syncthreads();
  for (let s = TPB >> 1; s > 0; s >>= 1) {
    if (t < s) tile[t] += tile[t + s];
    cuda.syncthreads();
  }
  if (t === 0) partial[cuda.blockIdx.x] = tile[0];
});
export const matmul = cuda.jit((A: Float32Array, B: Float32Array, C: Float32Array, n: u32) => {
  const sA = cuda.shared.array([TILE, TILE], f32);
  const sB = cuda.shared.array([TILE, TILE], f32);
  const tx = cuda.threadIdx.x;
  const ty = cuda.threadIdx.y;
  const row = cuda.blockIdx.y * TILE + ty;
  const col = cuda.blockIdx.x * TILE + tx;
  let acc: f32 = 0;
  for (let t = 0; t < n; t += TILE) {
    sA[ty][tx] = A[row * n + t + tx];
    sB[ty][tx] = B[(t + ty) * n + col];
    cuda.syncthreads();
    for (let k = 0; k < TILE; k++) acc += sA[ty][k] * sB[k][tx];
    cuda.syncthreads();
  }
  C[row * n + col] = acc;
});
export const histogram = cuda.jit((data: Uint8Array, hist: Uint32Array) => {
  const i = cuda.grid(1);
  if (i < data.length) cuda.atomic.add(hist, data[i], 1);
});
`;

/** Deterministic f32 inputs in [-0.5, 0.5) (a linear congruential generator). */
export function rand(n, seed) {
  const a = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    a[i] = s / 4294967296 - 0.5;
  }
  return a;
}
