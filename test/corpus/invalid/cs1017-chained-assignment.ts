import { cuda, f32 } from "cudascript";

/** Min and max of each row of 8. */
export const rowMinMax = cuda.jit((x: Float32Array, mins: Float32Array, maxs: Float32Array) => {
  const r = cuda.grid(1);
  if (r * 8 + 8 > x.length) return;
  let lo: f32 = 0;
  let hi: f32 = 0;
  lo = hi = x[r * 8]; // @expect CS1017
  for (let c = 1; c < 8; c++) {
    const v = x[r * 8 + c];
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  mins[r] = lo;
  maxs[r] = hi;
});

export const rowMinMaxOk = cuda.jit((x: Float32Array, mins: Float32Array, maxs: Float32Array) => {
  const r = cuda.grid(1);
  if (r * 8 + 8 > x.length) return;
  let lo: f32 = x[r * 8];
  let hi: f32 = lo;
  for (let c = 1; c < 8; c++) {
    const v = x[r * 8 + c];
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  mins[r] = lo;
  maxs[r] = hi;
});
