import { cuda, Array2D, f32 } from "cudascript";

/** Row sums of a matrix; `m[r]` alone is a row, not a value. */
export const rowSums = cuda.jit((m: Array2D<f32>, out: Float32Array) => {
  const r = cuda.grid(1);
  if (r >= m.shape[0]) return;
  let s: f32 = 0;
  for (let c = 0; c < m.shape[1]; c++) s += m[r][c];
  out[r] = s + m[r]; // @expect CS2008
});

/** Copies a matrix into a flat array, indexing it like one. */
export const flatten = cuda.jit((m: Array2D<f32>, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = m[i]; // @expect CS2008
  }
});

export const flattenOk = cuda.jit((m: Array2D<f32>, out: Float32Array) => {
  const i = cuda.grid(1);
  const cols = m.shape[1];
  if (i < out.length) {
    out[i] = m[(i / cols) | 0][i % cols];
  }
});
