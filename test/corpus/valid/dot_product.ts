import { cuda, f32 } from "cudascript";

const TPB = 256;

/**
 * Dot product: grid-stride per-thread partial sums, a shared-memory tree reduction per block, then one
 * atomic add per block into result[0]. Launch with blockDim.x == TPB.
 */
export const dotBlocks = cuda.jit((a: Float32Array, b: Float32Array, result: Float32Array) => {
  const cache = cuda.shared.array(TPB, f32);
  const t = cuda.threadIdx.x;
  const stride = cuda.gridsize(1);
  let acc: f32 = 0;
  for (let i = cuda.grid(1); i < a.length; i += stride) {
    acc += a[i] * b[i];
  }
  cache[t] = acc;
  cuda.syncthreads();
  for (let s = (TPB / 2) | 0; s > 0; s = (s / 2) | 0) {
    if (t < s) {
      cache[t] += cache[t + s];
    }
    cuda.syncthreads();
  }
  if (t === 0) {
    cuda.atomic.add(result, 0, cache[0]);
  }
});

/** The naive version: every thread adds its product atomically. */
export const dotAtomic = cuda.jit((a: Float32Array, b: Float32Array, result: Float32Array) => {
  const i = cuda.grid(1);
  if (i < a.length) {
    cuda.atomic.add(result, 0, a[i] * b[i]);
  }
});
