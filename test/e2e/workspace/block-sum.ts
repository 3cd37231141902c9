import { cuda, f32 } from "cudascript";

/**
 * Each block sums its 64 elements in shared memory, halving the tile at every barrier.
 * @run grid=2 block=64 args=[range(128, f32), zeros(2, f32)]
 */
export const blockSum = cuda.jit((x: Float32Array, partial: Float32Array) => {
  const tile = cuda.shared.array(64, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  tile[t] = i < x.length ? x[i] : 0;
  cuda.syncthreads();
  let s = 32;
  while (s > 0) {
    if (t < s) tile[t] += tile[t + s];
    cuda.syncthreads();
    s >>= 1;
  }
  if (t === 0) partial[cuda.blockIdx.x] = tile[0];
});
