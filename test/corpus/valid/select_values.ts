import { cuda, f32, i32 } from "cudascript";

/**
 * cuda.selp (Numba's select) is `?:`: an i32 and an f32 give an f32, two booleans a boolean, a literal
 * takes the other value's type, and only the chosen value is evaluated — the threads past the end of
 * `x` do not read it. Every thread of the grid writes `flags`.
 */
export const selectValues = cuda.jit((x: Float32Array, k: Int32Array, out: Float32Array, flags: Int32Array) => {
  const i = cuda.grid(1);
  const inRange = i < x.length;
  const v: f32 = cuda.selp(inRange, x[i], -1);
  const n: i32 = cuda.selp(inRange, k[i], 0);
  const mixed = cuda.selp(n % 2 === 0, n, v); // i32 and f32: f32, as n % 2 === 0 ? n : v
  const positive = cuda.selp(inRange, v > 0, false);
  if (i < flags.length) flags[i] = cuda.selp(positive, 1, 0) + cuda.selp(i, 2, 0);
  if (inRange) out[i] = mixed * 0.5;
});
