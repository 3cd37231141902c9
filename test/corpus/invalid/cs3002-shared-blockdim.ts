import { cuda, f32 } from "cudascript";

/** Shared tile sized by the block: blockDim is only known at launch. */
export const reverseBlock = cuda.jit((x: Float32Array, out: Float32Array) => {
  const tile = cuda.shared.array(cuda.blockDim.x, f32); // @expect CS3002
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  if (i < x.length) tile[t] = x[i];
  cuda.syncthreads();
  const src = cuda.blockDim.x - 1 - t;
  const j = cuda.blockIdx.x * cuda.blockDim.x + src;
  if (i < out.length && j < x.length) out[i] = tile[src];
});

/** Dynamic shared memory is the way to size by the block. */
export const reverseBlockOk = cuda.jit((x: Float32Array, out: Float32Array) => {
  const tile = cuda.shared.array(0, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  if (i < x.length) tile[t] = x[i];
  cuda.syncthreads();
  const src = cuda.blockDim.x - 1 - t;
  const j = cuda.blockIdx.x * cuda.blockDim.x + src;
  if (i < out.length && j < x.length) out[i] = tile[src];
});

export function run(x: Float32Array): Float32Array {
  const out = new Float32Array(x.length);
  reverseBlockOk.launch(Math.ceil(x.length / 128), 128, { sharedMem: 128 * 4 })(x, out);
  return out;
}
