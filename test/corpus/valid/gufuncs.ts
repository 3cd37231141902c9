import { cuda, f32, f64, i32, type Array1D, type Array2D } from "cudascript";

// cuda.guvectorize: the compiler makes the kernel `<name>_guvectorize` from the function and its layout
// (runtime/src/gufunc.ts launches it; the corpus cases launch it directly: the loop shape d1, d2, each
// input as [loop rows, core…] with its three loop strides, each output as [loop rows, core…]).

/** Numba's docs example: matrix multiplication, "(m,n),(n,p)->(m,p)". */
export const matmul = cuda.guvectorize((a: Array2D<f32>, b: Array2D<f32>, c: Array2D<f32>): void => {
  for (let i = 0; i < c.shape[0]; i++)
    for (let j = 0; j < c.shape[1]; j++) {
      let s: f32 = 0;
      for (let k = 0; k < a.shape[1]; k++) s += a[i][k] * b[k][j];
      c[i][j] = s;
    }
}, "(m,n),(n,p)->(m,p)");

/** A dot product per row: a () output is a one-element array, written as out[0]. */
export const dot = cuda.guvectorize((a: Array1D<f64>, b: Array1D<f64>, out: Array1D<f64>): void => {
  let s = 0;
  for (let k = 0; k < a.length; k++) s += a[k] * b[k];
  out[0] = s;
}, "(n),(n)->()");

/** Numba's docs example with a () input, a scalar parameter: add a scalar to each row. */
function addScalar(x: Array1D<i32>, y: i32, res: Array1D<i32>): void {
  for (let i = 0; i < x.length; i++) res[i] = x[i] + y;
}
export const addRows = cuda.guvectorize(addScalar, "(n),()->(n)");

/** The function of a gufunc stays a device function kernels can call, here on row views of 2-D arrays. */
export const addRowsKernel = cuda.jit((x: Array2D<i32>, y: Array1D<i32>, res: Array2D<i32>) => {
  const r = cuda.grid(1);
  if (r < x.shape[0]) addScalar(x[r], y[r], res[r]);
});
