import { cuda, f32 } from "cudascript";

/** Reads a sample at a fractional position: the position is a float, so it cannot index. */
export const sampleNearest = cuda.jit((table: Float32Array, pos: f32, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  out[i] = table[pos]; // @expect CS2002
});

/** Subtracts the median of a sorted table; the middle index is computed with a float factor. */
export const centre = cuda.jit((sorted: Float32Array, x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const median: f32 = sorted[sorted.length * 0.5]; // @expect CS2002
  out[i] = x[i] - median;
});

/** Linear interpolation: index with the integer part, weight with the fraction. */
export const sampleLinearOk = cuda.jit((table: Float32Array, pos: f32, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const k = pos | 0;
  const frac: f32 = pos - k;
  out[i] = table[k] * (1 - frac) + table[k + 1] * frac;
});

export const centreOk = cuda.jit((sorted: Float32Array, x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const median: f32 = sorted[sorted.length >> 1];
  out[i] = x[i] - median;
});
