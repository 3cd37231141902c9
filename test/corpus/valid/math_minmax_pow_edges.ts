import { cuda, f16, Float16Array } from "cudascript";

/**
 * Math.min / Math.max / Math.pow where JavaScript and C differ, with one answer on every backend
 * (issue 28, docs/kernel-language.md#semantics): min/max order -0 below +0 and return the other
 * operand of a NaN (C's fmin/fmax, CUDA's fminf); pow is C's (`pow(1, y)` is 1 for every y, NaN
 * included; `pow(-1, ±Infinity)` is 1). `1 / r` tells -0 from +0 in the outputs.
 */
export const edgesF32 = cuda.jit((a: Float32Array, b: Float32Array, lo: Float32Array, hi: Float32Array, p: Float32Array) => {
  const i = cuda.grid(1);
  if (i < a.length) {
    const m = Math.min(a[i], b[i]);
    const x = Math.max(a[i], b[i]);
    lo[2 * i] = m;
    lo[2 * i + 1] = 1 / m;
    hi[2 * i] = x;
    hi[2 * i + 1] = 1 / x;
    p[i] = Math.pow(a[i], b[i]);
  }
});

export const edgesF64 = cuda.jit((a: Float64Array, b: Float64Array, lo: Float64Array, hi: Float64Array, p: Float64Array) => {
  const i = cuda.grid(1);
  if (i < a.length) {
    let m = a[i];
    m = Math.min(m, b[i]);
    const x = Math.max(a[i], b[i]);
    lo[2 * i] = m;
    lo[2 * i + 1] = 1 / m;
    hi[2 * i] = x;
    hi[2 * i + 1] = 1 / x;
    p[i] = Math.pow(a[i], b[i]);
  }
});

export const edgesF16 = cuda.jit((a: Float16Array, b: Float16Array, lo: Float32Array, hi: Float32Array, p: Float16Array) => {
  const i = cuda.grid(1);
  if (i < a.length) {
    const m: f16 = Math.min(a[i], b[i]);
    const x: f16 = Math.max(a[i], b[i]);
    lo[2 * i] = m;
    lo[2 * i + 1] = 1 / Math.fround(m);
    hi[2 * i] = x;
    hi[2 * i + 1] = 1 / Math.fround(x);
    p[i] = Math.pow(a[i], b[i]);
  }
});
