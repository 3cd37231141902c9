import { cuda, f32, bool } from "cudascript";

const relu = cuda.device((v: f32): f32 => (v > 0 ? v : 0));

/** A device function with a block body and two returns. */
const leakyRelu = cuda.device((v: f32, slope: f32): f32 => {
  if (v > 0) {
    return v;
  }
  return v * slope;
});

/** A device function calling other device functions. */
const activate = cuda.device((v: f32, slope: f32, leaky: bool): f32 => (leaky ? leakyRelu(v, slope) : relu(v)));

const clamp = cuda.device((v: f32, lo: f32, hi: f32): f32 => Math.min(Math.max(v, lo), hi));

/** out[i] = relu(x[i]) or leakyRelu(x[i], slope), chosen by a bool parameter. */
export const reluMap = cuda.jit((x: Float32Array, out: Float32Array, slope: f32, leaky: bool) => {
  const i = cuda.grid(1);
  if (i < x.length) {
    out[i] = activate(x[i], slope, leaky);
  }
});

/** out[i] = clamp(2 * x[i] + 1, lo, hi). */
export const clampMap = cuda.jit((x: Float32Array, out: Float32Array, lo: f32, hi: f32) => {
  const i = cuda.grid(1);
  if (i < x.length) {
    out[i] = clamp(2 * x[i] + 1, lo, hi);
  }
});
