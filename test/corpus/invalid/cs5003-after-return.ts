import { cuda, f32 } from "cudascript";

/** A debugging early return left in place. */
export const normalize = cuda.jit((x: Float32Array, norm: f32, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  out[i] = x[i];
  return;
  out[i] = x[i] / norm; // @expect CS5003
});

/** Code after a return inside a branch. */
export const clampOrCopy = cuda.jit((x: Float32Array, hi: f32, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  if (x[i] > hi) {
    out[i] = hi;
    return;
    out[i] = x[i]; // @expect CS5003
  }
  out[i] = x[i];
});
