import { cuda, f16, Float16Array } from "cudascript";

/**
 * Weighted histogram in f16 with cuda.atomic.add (global) and cuda.atomic.sub (shared): CUDA's half
 * atomic, atom.add.noftz.f16. The weights are multiples of 0.5 and the sums stay below 2048, so every
 * sum is exact in f16 whatever order the threads add in.
 */
export const halfHistogram = cuda.jit((data: Int32Array, weights: Float16Array, bins: Float16Array, perBlock: Float16Array) => {
  const i = cuda.grid(1);
  const t = cuda.threadIdx.x;
  const local = cuda.shared.array(8, f16);
  if (t < 8) local[t] = 0;
  cuda.syncthreads();
  if (i < data.length) {
    cuda.atomic.add(bins, data[i], weights[i]);
    cuda.atomic.sub(local, data[i], weights[i]);
  }
  cuda.syncthreads();
  if (t < 8) perBlock[cuda.blockIdx.x * 8 + t] = local[t];
});
