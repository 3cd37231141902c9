import { cuda, Array2D, f32, i32 } from "cudascript";

const total = cuda.device((a: Float32Array): f32 => {
  let s: f32 = 0;
  for (let k = 0; k < a.length; k++) s += a[k];
  return s;
});

/** subarray of a matrix: a view takes a part of a 1-D array (a row here). */
export const dropFirstColumn = cuda.jit((m: Array2D<f32>, out: Array2D<f32>) => {
  const r = cuda.grid(1);
  if (r >= m.shape[0]) return;
  const tail = m.subarray(1); // @expect CS2029
  out[r][0] = 0;
});

/** Bounds with an atomic, in a view made inside a call: it would run at every use. */
export const claimChunk = cuda.jit((x: Float32Array, next: Int32Array, sums: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= sums.length) return;
  sums[i] = total(x.subarray(cuda.atomic.add(next, 0, 4), 4 * i + 4)); // @expect CS2029
});

/** A third bound. */
export const threeBounds = cuda.jit((x: Float32Array, out: Float32Array, n: i32) => {
  const part = x.subarray(0, n, 1); // @expect CS2029
  out[0] = 0;
});

/** The fixes: a row first; the view named, so its bounds are computed once. */
export const dropFirstColumnOk = cuda.jit((m: Array2D<f32>, out: Array2D<f32>) => {
  const r = cuda.grid(1);
  if (r >= m.shape[0]) return;
  const tail = m[r].subarray(1);
  for (let c = 0; c < tail.length; c++) out[r][c] = tail[c];
});

export const claimChunkOk = cuda.jit((x: Float32Array, next: Int32Array, sums: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= sums.length) return;
  const chunk = x.subarray(cuda.atomic.add(next, 0, 4), 4 * i + 4);
  sums[i] = total(chunk);
});
