import { cuda } from "cudascript";

/** cuda.selp is `?:`: it chooses between two arrays, or between two values — not an array and a value. */
export const pick = cuda.jit((a: Float32Array, b: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  out[i] = cuda.selp(i % 2 === 0, a, b[i]); // @expect CS2012
});

export const pickOk = cuda.jit((a: Float32Array, b: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  out[i] = cuda.selp(i % 2 === 0, a, b)[i] + cuda.selp(i % 2 === 0, a[i], b[i]);
});
