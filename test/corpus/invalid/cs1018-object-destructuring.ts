import { cuda, Array2D, f32 } from "cudascript";

/** Transpose through a padded shared tile; the thread index was destructured. */
const TILE = 32;

export const transpose = cuda.jit((a: Array2D<f32>, out: Array2D<f32>) => {
  const tile = cuda.shared.array([TILE, TILE + 1], f32);
  const { x, y } = cuda.threadIdx; // @expect CS1018
  const bx = cuda.blockIdx.x * TILE;
  const by = cuda.blockIdx.y * TILE;
  if (by + y < a.shape[0] && bx + x < a.shape[1]) tile[y][x] = a[by + y][bx + x];
  cuda.syncthreads();
  if (bx + y < out.shape[0] && by + x < out.shape[1]) out[bx + y][by + x] = tile[x][y];
});

export const transposeOk = cuda.jit((a: Array2D<f32>, out: Array2D<f32>) => {
  const tile = cuda.shared.array([TILE, TILE + 1], f32);
  const x = cuda.threadIdx.x;
  const y = cuda.threadIdx.y;
  const bx = cuda.blockIdx.x * TILE;
  const by = cuda.blockIdx.y * TILE;
  if (by + y < a.shape[0] && bx + x < a.shape[1]) tile[y][x] = a[by + y][bx + x];
  cuda.syncthreads();
  if (bx + y < out.shape[0] && by + x < out.shape[1]) out[bx + y][by + x] = tile[x][y];
});

export function run(a: Array2D<f32>, out: Array2D<f32>): void {
  const [rows, cols] = a.shape;
  transposeOk.launch([Math.ceil(cols / TILE), Math.ceil(rows / TILE)], [TILE, TILE])(a, out);
}
