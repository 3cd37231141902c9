import { cuda, f32, Array2D } from "cudascript";

const TILE = 16;

/**
 * out = transpose(a) through a shared tile padded to TILE + 1 columns (no bank conflicts on the
 * column-wise read). Block [TILE, TILE], grid [ceil(cols / TILE), ceil(rows / TILE)].
 */
export const transpose = cuda.jit((a: Array2D<f32>, out: Array2D<f32>) => {
  const tile = cuda.shared.array([TILE, TILE + 1], f32);
  const tx = cuda.threadIdx.x;
  const ty = cuda.threadIdx.y;
  const rows = a.shape[0];
  const cols = a.shape[1];
  const inCol = cuda.blockIdx.x * TILE + tx;
  const inRow = cuda.blockIdx.y * TILE + ty;
  if (inRow < rows && inCol < cols) {
    tile[ty][tx] = a[inRow][inCol];
  }
  cuda.syncthreads();
  const outCol = cuda.blockIdx.y * TILE + tx;
  const outRow = cuda.blockIdx.x * TILE + ty;
  if (outRow < cols && outCol < rows) {
    out[outRow][outCol] = tile[tx][ty];
  }
});
