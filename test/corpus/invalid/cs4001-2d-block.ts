import { cuda, f32, Array2D } from "cudascript";

export const addMatrices = cuda.jit((a: Array2D<f32>, b: Array2D<f32>, out: Array2D<f32>) => {
  const [r, c] = cuda.grid(2);
  if (r < out.shape[0] && c < out.shape[1]) out[r][c] = a[r][c] + b[r][c];
});

export function run(a: Array2D<f32>, b: Array2D<f32>, out: Array2D<f32>): void {
  const [rows, cols] = out.shape;
  // 64 x 32 = 2048 threads per block.
  addMatrices.launch([Math.ceil(rows / 64), Math.ceil(cols / 32)], [64, 32])(a, b, out); // @expect CS4001
  // 3-D block: 16 x 16 x 8 = 2048.
  addMatrices.launch(1, [16, 16, 8])(a, b, out); // @expect CS4001
  // 32 x 32 = 1024 is the maximum.
  addMatrices.launch([Math.ceil(rows / 32), Math.ceil(cols / 32)], [32, 32])(a, b, out);
}
