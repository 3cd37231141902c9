import { cuda, f32 } from "cudascript";

/** Uses the whole array where one element was meant. */
export const offsetBy = cuda.jit((x: Float32Array, delta: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const d = delta + 1; // @expect CS2012
  out[i] = x[i];
});

export const positiveMask = cuda.jit((x: Float32Array, mask: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= mask.length) return;
  if (x > 0) { // @expect CS2012
    mask[i] = 1;
  }
});

export const positiveMaskOk = cuda.jit((x: Float32Array, mask: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= mask.length) return;
  const v: f32 = x[i];
  mask[i] = v > 0 ? 1 : 0;
});
