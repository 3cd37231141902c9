import { cuda, f32, i32 } from "cudascript";

/** Block reduction with the tile size passed in. */
export const blockSum = cuda.jit((x: Float32Array, partial: Float32Array, tpb: i32) => {
  const tile = cuda.shared.array(tpb, f32); // @expect CS3002
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  tile[t] = i < x.length ? x[i] : 0;
  cuda.syncthreads();
  for (let s = tpb >> 1; s > 0; s >>= 1) {
    if (t < s) tile[t] += tile[t + s];
    cuda.syncthreads();
  }
  if (t === 0) partial[cuda.blockIdx.x] = tile[0];
});

/** Either a constant... */
const TPB = 256;
export const blockSumConst = cuda.jit((x: Float32Array, partial: Float32Array) => {
  const tile = cuda.shared.array(TPB, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  tile[t] = i < x.length ? x[i] : 0;
  cuda.syncthreads();
  for (let s = TPB >> 1; s > 0; s >>= 1) {
    if (t < s) tile[t] += tile[t + s];
    cuda.syncthreads();
  }
  if (t === 0) partial[cuda.blockIdx.x] = tile[0];
});

/** ...or dynamic shared memory sized at launch. */
export const blockSumDynamic = cuda.jit((x: Float32Array, partial: Float32Array) => {
  const tile = cuda.shared.array(0, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  tile[t] = i < x.length ? x[i] : 0;
  cuda.syncthreads();
  for (let s = cuda.blockDim.x >> 1; s > 0; s >>= 1) {
    if (t < s) tile[t] += tile[t + s];
    cuda.syncthreads();
  }
  if (t === 0) partial[cuda.blockIdx.x] = tile[0];
});

export function run(x: Float32Array, tpb: number): Float32Array {
  const blocks = Math.ceil(x.length / tpb);
  const partial = new Float32Array(blocks);
  blockSumDynamic.launch(blocks, tpb, { sharedMem: tpb * 4 })(x, partial);
  return partial;
}
