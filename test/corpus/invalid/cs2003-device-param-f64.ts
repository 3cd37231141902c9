import { cuda, f32, i32 } from "cudascript";

/** Sum of a window of f32 values. */
const windowSum = cuda.device((x: Float32Array, start: i32, len: i32): f32 => {
  let s: f32 = 0;
  for (let k = start; k < start + len && k < x.length; k++) s += x[k];
  return s;
});

/** Passes a Float64Array where the device function takes a Float32Array. */
export const movingAvg = cuda.jit((x: Float64Array, win: i32, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = windowSum(x, i, win) / win; // @expect CS2003
  }
});

export const movingAvgOk = cuda.jit((x: Float32Array, win: i32, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = windowSum(x, i, win) / win;
  }
});
