import { cuda, f32, i32 } from "cudascript";

/**
 * Block sums with a dynamically sized shared array (`sharedMem` = blockDim.x * 4 bytes at launch);
 * blockDim.x must be a power of two.
 */
export const dynBlockSum = cuda.jit((x: Float32Array, partial: Float32Array) => {
  const buf = cuda.shared.array(0, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  buf[t] = i < x.length ? x[i] : 0;
  cuda.syncthreads();
  for (let s = cuda.blockDim.x >> 1; s > 0; s >>= 1) {
    if (t < s) {
      buf[t] += buf[t + s];
    }
    cuda.syncthreads();
  }
  if (t === 0) {
    partial[cuda.blockIdx.x] = buf[0];
  }
});

/** Reverses each block's chunk of x (the last chunk may be shorter) through dynamic shared memory. */
export const dynReverse = cuda.jit((x: Int32Array, out: Int32Array) => {
  const buf = cuda.shared.array(0, i32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  const bd = cuda.blockDim.x;
  const remaining = x.length - cuda.blockIdx.x * bd;
  const valid = remaining < bd ? remaining : bd;
  if (t < valid) {
    buf[t] = x[i];
  }
  cuda.syncthreads();
  if (t < valid) {
    out[i] = buf[valid - 1 - t];
  }
});
