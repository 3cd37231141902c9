import { cuda, f32 } from "cudascript";

/** A ufunc's parameters are scalars; its result type is inferred from the body unless that is ambiguous. */
export const norms = cuda.vectorize((v: Float32Array): f32 => v[0] * v[0]); // @expect CS1026
export const clipped = cuda.vectorize((x: f32) => { // @expect CS1026
  if (x > 1) return true;
  return x;
});
