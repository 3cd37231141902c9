import { cuda, c64, type Array1D } from "cudascript";

/** Complex values with TypeScript's operators: each one says which cuda.complex function to write. */
export const operators = cuda.jit((z: Array1D<c64>, w: Array1D<c64>, out: Array1D<c64>, flags: Int32Array) => {
  const i = cuda.grid(1);
  if (i >= z.length) return;
  out[i] = z[i] * w[i]; // @expect CS2022
  out[i] = -z[i]; // @expect CS2022
  let acc = z[i];
  acc += w[i]; // @expect CS2022
  out[i] = acc;
  if (z[i] < w[i]) flags[i] = 1; // @expect CS2022
  if (z[i] === w[i]) flags[i] = 2; // @expect CS2022
  if (z[i] !== w[i]) flags[i] = 3; // @expect CS2022
});
