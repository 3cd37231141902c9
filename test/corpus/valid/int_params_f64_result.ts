import { cuda, f64, i32 } from "cudascript";

/**
 * A device function whose parameters are all integers but whose declared result is f64 computes in
 * f64 (Numba's test_cpu_gpu_compat: `n / 3` is a float64 division), not in the f32 default.
 */
const third = cuda.device((n: i32): f64 => n / 3);

/** Integer-only device function with an f64 result, using a float literal as well as a division. */
const scaled = cuda.device((n: i32, d: i32): f64 => (n * 0.1) / d);

export const thirds = cuda.jit((n: Int32Array, d: Int32Array, out: Float64Array, outScaled: Float64Array) => {
  const i = cuda.grid(1);
  if (i < n.length) {
    out[i] = third(n[i]);
    outScaled[i] = scaled(n[i], d[i]);
  }
});
