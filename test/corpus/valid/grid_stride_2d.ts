import { cuda, f32, Array2D } from "cudascript";

/**
 * out[r][c] = a[r][c] * s + r - c over the whole array with a 2-D grid-stride loop, so any grid size
 * covers any shape. Grid x strides over columns, y over rows.
 */
export const affine2d = cuda.jit((a: Array2D<f32>, out: Array2D<f32>, s: f32) => {
  const [x0, y0] = cuda.grid(2);
  const [sx, sy] = cuda.gridsize(2);
  for (let r = y0; r < a.shape[0]; r += sy) {
    for (let c = x0; c < a.shape[1]; c += sx) {
      out[r][c] = a[r][c] * s + r - c;
    }
  }
});
