import { cuda, f32, f64, i32 } from "cudascript";

// cuda.vectorize and cuda.reduce: the compiler makes the kernels `<name>_vectorize` / `<name>_reduce`
// (runtime/src/ufunc.ts launches them; the corpus cases launch them directly, broadcast strides included).

/** An inline scalar function: its annotations are the ufunc's signature. */
export const add = cuda.vectorize((a: f32, b: f32): f32 => a + b);

/** Numba's docs example: a function declaration, vectorized. */
function discriminant(a: f64, b: f64, c: f64): f64 {
  return b * b - 4 * a * c;
}
export const discriminants = cuda.vectorize(discriminant);

/** A cuda.device function, vectorized (and still callable from kernels). */
const relDiff = cuda.device((x: f32, y: f32): f32 => (2 * Math.abs(x - y)) / (Math.abs(x) + Math.abs(y)));
export const relDiffs = cuda.vectorize(relDiff);

/** A vectorized cuda.device function stays callable from kernels. */
export const relDiffKernel = cuda.jit((x: Float32Array, y: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = relDiff(x[i], y[i]);
});

export const sum = cuda.reduce((a: f32, b: f32): f32 => a + b);
export const max = cuda.reduce((a: i32, b: i32): i32 => (a > b ? a : b));
/** Associative but not commutative: the reduction keeps the input's order, so this is the last element. */
export const last = cuda.reduce((a: i32, b: i32): i32 => b);
