import { cuda } from "cudascript";

/**
 * Numba's libdevice functions with several results (sincos, frexp, modf, …) return an array to
 * destructure; a one-result function is not destructured.
 */
export const tuples = cuda.jit((x: Float64Array, out: Float64Array) => {
  const i = cuda.grid(1);
  if (i >= x.length) return;
  const both = cuda.libdevice.sincos(x[i]); // @expect CS1018
  const [s, c] = cuda.libdevice.sin(x[i]); // @expect CS1018
  const [m, e, extra] = cuda.libdevice.frexp(x[i]); // @expect CS1018
  out[i] = m + e;
});
