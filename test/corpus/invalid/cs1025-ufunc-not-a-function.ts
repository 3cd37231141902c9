import { cuda, f32 } from "cudascript";

/** cuda.vectorize / cuda.reduce given something that is not a scalar function CudaScript can compile. */
export const scale = cuda.jit((x: Float32Array, a: f32) => {
  const i = cuda.grid(1);
  if (i < x.length) x[i] *= a;
});

export const scaled = cuda.vectorize(scale); // @expect CS1025
export const roots = cuda.vectorize(Math.sqrt); // @expect CS1025
export const total = cuda.reduce(plus); // @expect CS1025
