import { cuda, f32 } from "cudascript";

const TPB = 128;
const HALF = TPB >> 1;

/** Only the first half of the block reaches the barrier: the other half never arrives. */
export const halfSync = cuda.jit((x: Float32Array, out: Float32Array) => {
  const tile = cuda.shared.array(TPB, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  tile[t] = i < x.length ? x[i] : 0;
  if (t < HALF) {
    tile[t] += tile[t + HALF];
    cuda.syncthreads(); // @expect CS5001
  }
  if (i < out.length) out[i] = tile[t % (HALF)];
});

/** Bounds check around the barrier: threads past the end skip it. */
export const guardedSync = cuda.jit((x: Float32Array, out: Float32Array) => {
  const tile = cuda.shared.array(TPB, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  if (i < x.length) {
    tile[t] = x[i];
    cuda.syncthreads(); // @expect CS5001
    out[i] = tile[TPB - 1 - t];
  }
});

/** Keep the barrier outside the condition. */
export const guardedSyncOk = cuda.jit((x: Float32Array, out: Float32Array) => {
  const tile = cuda.shared.array(TPB, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  if (i < x.length) tile[t] = x[i];
  cuda.syncthreads();
  if (i < out.length) out[i] = tile[TPB - 1 - t];
});
