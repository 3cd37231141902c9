import { cuda, f32 } from "cudascript";

/** out = a * x + y, one element per thread. */
export const saxpy = cuda.jit((a: f32, x: Float32Array, y: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = a * x[i] + y[i];
  }
});

/** y = a * x + y in place (reads and writes the same buffer). */
export const saxpyInPlace = cuda.jit(function (a: f32, x: Float32Array, y: Float32Array) {
  const i = cuda.grid(1);
  if (i >= y.length) return;
  y[i] += a * x[i];
});
