import { cuda, f32, type Array1D } from "cudascript";

/** The layout of cuda.guvectorize is read when the program is built: a string literal NumPy would accept. */
const dotRow = cuda.device((a: Array1D<f32>, b: Array1D<f32>, out: Array1D<f32>): void => {
  let s: f32 = 0;
  for (let k = 0; k < a.length; k++) s += a[k] * b[k];
  out[0] = s;
});
const LAYOUT = "(n),(n)->()";
export const dots = cuda.guvectorize(dotRow, LAYOUT); // @expect CS3008
export const dots2 = cuda.guvectorize(dotRow, "(n),(n)"); // @expect CS3008
export const dots3 = cuda.guvectorize(dotRow, "(n),(3)->()"); // @expect CS3008
export const dots4 = cuda.guvectorize(dotRow); // @expect CS3008
