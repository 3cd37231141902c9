import { cuda, f32, i32 } from "cudascript";

/**
 * User names that CUDA's and the C library's headers also declare (math functions, macros, keywords
 * of C++ that JavaScript allows): as kernels, device functions and locals. The generated C++ renames
 * only the clashing ones (compiler/src/cuda/reserved), so every backend runs them.
 */

// Device functions named like C math functions (they clash at module scope only).
const lgamma = cuda.device((x: f32): f32 => x * 2 + 1);
const ldexp = cuda.device((x: f32, n: i32): f32 => x * n);
const remainder = cuda.device((a: i32, b: i32): i32 => a % b);

/** A kernel named like a CUDA math function, with locals named like C macros and keywords. */
export const erf = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) {
    const NULL = x[i];
    const INFINITY = NULL * 3;
    const signed = lgamma(INFINITY);
    const assert = ldexp(signed, 2);
    const EOF = -1;
    out[i] = assert + EOF;
  }
});

/** Kernels named like libm Bessel/gamma functions; locals named like them too. */
export const y0 = cuda.jit((a: Int32Array, out: Int32Array) => {
  const i = cuda.grid(1);
  if (i < a.length) {
    const j1 = a[i];
    const y1 = remainder(j1, 7);
    const errno = y1 * 2;
    out[i] = errno + j1;
  }
});

export const gamma = cuda.jit((x: Float32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) {
    const rint = x[i];
    const fdim = rint - 1;
    const M_PI = 2;
    x[i] = fdim * M_PI;
  }
});
