import { cuda, f64, i32 } from "cudascript";

// Ufuncs whose function has no written result type: it is inferred from the body as TypeScript infers
// it (issue 31 item 4). Numba's test_reduce kernels take `lambda a, b: a + b` with no signature.

/** Numba's `cuda.reduce(lambda a, b: a + b)` over int32: the result is i32, as i32 + i32 is. */
export const total = cuda.reduce((a: i32, b: i32) => a + b);
/** `a ^ b` of two i32 is i32 (TypeScript: number; CudaScript: the operands' dtype). */
export const parity = cuda.reduce((a: i32, b: i32) => a ^ b);
/** A block body with two returns of one dtype. */
export const larger = cuda.reduce((a: f64, b: f64) => {
  if (a > b) return a;
  return b;
});
/** A vectorize whose result is the common type of its operands: i32 * f64 is f64. */
export const scaled = cuda.vectorize((n: i32, s: f64) => n * s);
