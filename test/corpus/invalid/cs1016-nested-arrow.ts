import { cuda, f32, i32 } from "cudascript";

/** 1-D stencil with a local arrow to read neighbours with clamping. */
export const laplace1d = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  const n = x.length;
  if (i >= n) return;
  const at = (k: i32): f32 => x[Math.min(Math.max(k, 0), n - 1)]; // @expect CS1016
  const left = at(i - 1);
  const right = at(i + 1);
  out[i] = left - 2 * x[i] + right;
});

const clampedAt = cuda.device((x: Float32Array, k: i32): f32 => x[Math.min(Math.max(k, 0), x.length - 1)]);

export const laplace1dOk = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= x.length) return;
  out[i] = clampedAt(x, i - 1) - 2 * x[i] + clampedAt(x, i + 1);
});
