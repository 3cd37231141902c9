import { cuda, f32, Array2D } from "cudascript";

const TILE = 16;

/**
 * C = A x B with TILE x TILE shared-memory tiles. Launch with block [TILE, TILE] and
 * grid [ceil(N / TILE), ceil(M / TILE)]; any M, K, N (partial tiles are padded with 0).
 */
export const matmulTiled = cuda.jit((A: Array2D<f32>, B: Array2D<f32>, C: Array2D<f32>) => {
  const sA = cuda.shared.array([TILE, TILE], f32);
  const sB = cuda.shared.array([TILE, TILE], f32);
  const tx = cuda.threadIdx.x;
  const ty = cuda.threadIdx.y;
  const row = cuda.blockIdx.y * TILE + ty;
  const col = cuda.blockIdx.x * TILE + tx;
  const M = A.shape[0];
  const K = A.shape[1];
  const N = B.shape[1];
  const numTiles = ((K + TILE - 1) / TILE) | 0;
  let acc: f32 = 0;
  for (let tile = 0; tile < numTiles; tile++) {
    const aCol = tile * TILE + tx;
    const bRow = tile * TILE + ty;
    sA[ty][tx] = row < M && aCol < K ? A[row][aCol] : 0;
    sB[ty][tx] = bRow < K && col < N ? B[bRow][col] : 0;
    cuda.syncthreads();
    for (let k = 0; k < TILE; k++) {
      acc += sA[ty][k] * sB[k][tx];
    }
    cuda.syncthreads();
  }
  if (row < M && col < N) {
    C[row][col] = acc;
  }
});

/** Naive C = A x B, Numba style: x of the grid is the row. Grid [ceil(M / bx), ceil(N / by)]. */
export const matmulNaive = cuda.jit((A: Array2D<f32>, B: Array2D<f32>, C: Array2D<f32>) => {
  const [row, col] = cuda.grid(2);
  if (row < C.shape[0] && col < C.shape[1]) {
    let acc: f32 = 0;
    for (let k = 0; k < A.shape[1]; k++) {
      acc += A[row][k] * B[k][col];
    }
    C[row][col] = acc;
  }
});
