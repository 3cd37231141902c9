import { cuda, f32, i32 } from "cudascript";

/** Index of the first value above a threshold in each row of `cols`. */
export const firstAbove = cuda.jit((x: Float32Array, cols: i32, t: f32, out: Int32Array) => {
  const r = cuda.grid(1);
  if (r >= out.length) return;
  let at = -1;
  for (let c = 0; c < cols; c++) {
    if (x[r * cols + c] > t) {
      at = c;
      break;
      at = c + 1; // @expect CS5003
    }
  }
  out[r] = at;
});

/** Sum of the non-negative values of each row. */
export const sumNonNegative = cuda.jit((x: Float32Array, cols: i32, out: Float32Array) => {
  const r = cuda.grid(1);
  if (r >= out.length) return;
  let s: f32 = 0;
  for (let c = 0; c < cols; c++) {
    const v: f32 = x[r * cols + c];
    if (v < 0) {
      continue;
      s -= v; // @expect CS5003
    }
    s += v;
  }
  out[r] = s;
});
