import { cuda, f32, type Array1D, type Array2D } from "cudascript";

/** A gufunc's annotations are its signature: one parameter per input, then one per output, ranks as the layout says. */
export const dots = cuda.guvectorize((a: Array1D<f32>, b: Array1D<f32>): f32 => a[0] * b[0], "(n),(n)->()"); // @expect CS3009 CS3009
export const scaled = cuda.guvectorize((x: Array1D<f32>, k: Array1D<f32>, out: Array1D<f32>): void => {}, "(n),()->(n)"); // @expect CS3009
export const rows = cuda.guvectorize((m: Array2D<f32>, out: f32): void => {}, "(m,n)->()"); // @expect CS3009
