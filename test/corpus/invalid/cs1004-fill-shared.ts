import { cuda, f32 } from "cudascript";

const TPB = 256;

/** Block sum with a shared tile that is cleared with a typed-array method. */
export const blockSumFill = cuda.jit((x: Float32Array, partial: Float32Array) => {
  const tile = cuda.shared.array(TPB, f32);
  const t = cuda.threadIdx.x;
  tile.fill(0); // @expect CS1004
  const i = cuda.grid(1);
  if (i < x.length) tile[t] = x[i];
  cuda.syncthreads();
  for (let s = TPB >> 1; s > 0; s >>= 1) {
    if (t < s) tile[t] += tile[t + s];
    cuda.syncthreads();
  }
  if (t === 0) partial[cuda.blockIdx.x] = tile[0];
});

export function launchBlockSum(x: Float32Array): Float32Array {
  const blocks = Math.ceil(x.length / TPB);
  const partial = new Float32Array(blocks);
  partial.fill(0); // host side: typed-array methods are fine
  blockSumFill.launch(blocks, TPB)(x, partial);
  return partial;
}
