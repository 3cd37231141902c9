import { cuda, f32 } from "cudascript";

const TPB = 256;

/** The early exit for out-of-range threads also skips the barrier below. */
export const stencil = cuda.jit((x: Float32Array, out: Float32Array) => {
  const tile = cuda.shared.array(TPB + 2, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  if (i >= x.length) return;
  tile[t + 1] = x[i];
  if (t === 0) tile[0] = i > 0 ? x[i - 1] : 0;
  if (t === TPB - 1) tile[TPB + 1] = i + 1 < x.length ? x[i + 1] : 0;
  cuda.syncthreads(); // @expect CS5001
  out[i] = tile[t] + tile[t + 1] + tile[t + 2];
});

/** Load with a guard, sync unconditionally, then guard the store. */
export const stencilOk = cuda.jit((x: Float32Array, out: Float32Array) => {
  const tile = cuda.shared.array(TPB + 2, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  tile[t + 1] = i < x.length ? x[i] : 0;
  if (t === 0) tile[0] = i > 0 && i - 1 < x.length ? x[i - 1] : 0;
  if (t === TPB - 1) tile[TPB + 1] = i + 1 < x.length ? x[i + 1] : 0;
  cuda.syncthreads();
  if (i < out.length) out[i] = tile[t] + tile[t + 1] + tile[t + 2];
});

/** An early return on a block-uniform condition is fine. */
export const uniformExit = cuda.jit((x: Float32Array, out: Float32Array, activeBlocks: Int32Array) => {
  const tile = cuda.shared.array(TPB, f32);
  const t = cuda.threadIdx.x;
  if (cuda.blockIdx.x >= activeBlocks[0]) return;
  const i = cuda.grid(1);
  tile[t] = i < x.length ? x[i] : 0;
  cuda.syncthreads();
  if (i < out.length) out[i] = tile[TPB - 1 - t];
});
