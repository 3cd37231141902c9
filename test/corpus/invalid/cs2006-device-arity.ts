import { cuda, f32 } from "cudascript";

const clamp = cuda.device((v: f32, lo: f32, hi: f32): f32 => Math.min(Math.max(v, lo), hi));

export const clampAll = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = clamp(x[i]); // @expect CS2006
  }
});

export const clampRange = cuda.jit((x: Float32Array, lo: f32, hi: f32, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = clamp(x[i], lo, hi, 0); // @expect CS2006
  }
});

export const clampOk = cuda.jit((x: Float32Array, lo: f32, hi: f32, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = clamp(x[i], lo, hi);
  }
});
