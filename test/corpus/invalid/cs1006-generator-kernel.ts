import { cuda } from "cudascript";

/** A grid-stride loop written as a generator that "yields" between chunks. */
export const strided = cuda.jit(function* (x: Float32Array, out: Float32Array) { // @expect CS1006
  const stride = cuda.gridsize(1);
  for (let i = cuda.grid(1); i < x.length; i += stride) {
    out[i] = x[i] * x[i];
    yield; // @expect CS1006
  }
});

/** The grid-stride loop needs no yield: every thread runs its own iterations. */
export const stridedOk = cuda.jit((x: Float32Array, out: Float32Array) => {
  const stride = cuda.gridsize(1);
  for (let i = cuda.grid(1); i < x.length; i += stride) {
    out[i] = x[i] * x[i];
  }
});
