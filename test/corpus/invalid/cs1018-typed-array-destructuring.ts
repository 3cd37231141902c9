import { cuda, f32, i32 } from "cudascript";

/** Affine transform of 2-D points; the coefficients are unpacked with array destructuring. */
export const affine2d = cuda.jit((coef: Float32Array, xs: Float32Array, ys: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= xs.length) return;
  const [a, b, c, d] = coef; // @expect CS1018
  const x: f32 = xs[i];
  const y: f32 = ys[i];
  xs[i] = a * x + b * y;
  ys[i] = c * x + d * y;
});

export const affine2dOk = cuda.jit((coef: Float32Array, xs: Float32Array, ys: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= xs.length) return;
  const a = coef[0];
  const b = coef[1];
  const c = coef[2];
  const d = coef[3];
  const x: f32 = xs[i];
  const y: f32 = ys[i];
  xs[i] = a * x + b * y;
  ys[i] = c * x + d * y;
});

/** The one destructuring kernels accept: the grid position. */
export const fill2d = cuda.jit((out: Float32Array, width: i32) => {
  const [x, y] = cuda.grid(2);
  if (x < width && y * width + x < out.length) out[y * width + x] = 1;
});
