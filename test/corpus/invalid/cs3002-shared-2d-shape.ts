import { cuda, f32, i32, Array2D } from "cudascript";

const TILE = 16;

/** Tiled matrix multiply whose tile width is a parameter. */
export const matmul = cuda.jit((A: Array2D<f32>, B: Array2D<f32>, C: Array2D<f32>, tile: i32) => {
  const sA = cuda.shared.array([tile, TILE], f32); // @expect CS3002
  const sB = cuda.shared.array([TILE, tile], f32); // @expect CS3002
  const tx = cuda.threadIdx.x;
  const ty = cuda.threadIdx.y;
  const row = cuda.blockIdx.y * TILE + ty;
  const col = cuda.blockIdx.x * TILE + tx;
  const K = A.shape[1];
  let acc: f32 = 0;
  for (let t0 = 0; t0 < K; t0 += TILE) {
    sA[ty][tx] = row < A.shape[0] && t0 + tx < K ? A[row][t0 + tx] : 0;
    sB[ty][tx] = t0 + ty < K && col < B.shape[1] ? B[t0 + ty][col] : 0;
    cuda.syncthreads();
    for (let k = 0; k < TILE; k++) acc += sA[ty][k] * sB[k][tx];
    cuda.syncthreads();
  }
  if (row < C.shape[0] && col < C.shape[1]) C[row][col] = acc;
});
