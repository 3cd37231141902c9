import { cuda, Array2D, f32 } from "cudascript";

/** Nearest-neighbour 2x image downscale on a 2-D array, with true division in the row index. */
export const shrink2x = cuda.jit((src: Array2D<f32>, dst: Array2D<f32>) => {
  const [r, c] = cuda.grid(2);
  if (r < dst.shape[0] && c < dst.shape[1]) {
    dst[r][c] = src[r * 2][c * 2];
  }
});

export const grow2x = cuda.jit((src: Array2D<f32>, dst: Array2D<f32>) => {
  const [r, c] = cuda.grid(2);
  if (r < dst.shape[0] && c < dst.shape[1]) {
    dst[r][c] = src[r / 2][c >> 1]; // @expect CS2002
  }
});
