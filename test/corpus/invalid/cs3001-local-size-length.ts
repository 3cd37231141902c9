import { cuda, f32, Array2D } from "cudascript";

/** Copies each row into a per-thread buffer sized from the input. */
export const rowNormalize = cuda.jit((m: Array2D<f32>, out: Array2D<f32>) => {
  const r = cuda.grid(1);
  if (r >= m.shape[0]) return;
  const cols = m.shape[1];
  const row = cuda.local.array(m.shape[1], f32); // @expect CS3001
  let s: f32 = 0;
  for (let c = 0; c < cols; c++) {
    row[c] = m[r][c];
    s += row[c];
  }
  for (let c = 0; c < cols; c++) out[r][c] = row[c] / s;
});

/** Per-thread copy of a 1-D coefficient array, sized by its length. */
export const polyEval = cuda.jit((coef: Float32Array, x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const c = cuda.local.array(coef.length, f32); // @expect CS3001
  for (let k = 0; k < coef.length; k++) c[k] = coef[k];
  let acc: f32 = 0;
  for (let k = coef.length - 1; k >= 0; k--) acc = acc * x[i] + c[k];
  out[i] = acc;
});

/** No copy needed: read the global arrays directly. */
export const polyEvalOk = cuda.jit((coef: Float32Array, x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  let acc: f32 = 0;
  for (let k = coef.length - 1; k >= 0; k--) acc = acc * x[i] + coef[k];
  out[i] = acc;
});
