import { cuda, f32 } from "cudascript";

/** A ufunc's annotations are its signature: scalar parameters and a written result type. */
export const norms = cuda.vectorize((v: Float32Array): f32 => v[0] * v[0]); // @expect CS1026
export const halves = cuda.vectorize((x: f32) => x / 2); // @expect CS1026
