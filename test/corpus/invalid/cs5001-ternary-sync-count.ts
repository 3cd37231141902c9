import { cuda, f32 } from "cudascript";

/** Counts positive values per block, but only even threads take part in the barrier. */
export const countPositive = cuda.jit((x: Float32Array, counts: Int32Array) => {
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  const v: f32 = i < x.length ? x[i] : 0;
  const n = (t & 1) === 0 ? cuda.syncthreadsCount(v > 0) : 0; // @expect CS5001
  if (t === 0) counts[cuda.blockIdx.x] = n;
});

export const countPositiveOk = cuda.jit((x: Float32Array, counts: Int32Array) => {
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  const v: f32 = i < x.length ? x[i] : 0;
  const n = cuda.syncthreadsCount(v > 0);
  if (t === 0) counts[cuda.blockIdx.x] = n;
});
