import { cuda, f32 } from "cudascript";

const TPB = 128;

/** One partial sum per block; threads past the end contribute 0. Launch with blockDim.x == TPB. */
export const blockSum = cuda.jit((x: Float32Array, partial: Float32Array) => {
  const tile = cuda.shared.array(TPB, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  tile[t] = i < x.length ? x[i] : 0;
  cuda.syncthreads();
  for (let s = TPB >> 1; s > 0; s >>= 1) {
    if (t < s) {
      tile[t] += tile[t + s];
    }
    cuda.syncthreads();
  }
  if (t === 0) {
    partial[cuda.blockIdx.x] = tile[0];
  }
});
