import { cuda, f32 } from "cudascript";

/** Smoothstep, with its helper declared inside the kernel. */
export const smoothstep = cuda.jit((x: Float32Array, lo: f32, hi: f32, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  function clamp01(v: number): number { // @expect CS1016
    return Math.min(Math.max(v, 0), 1);
  }
  const t: f32 = Math.min(Math.max((x[i] - lo) / (hi - lo), 0), 1);
  out[i] = t * t * (3 - 2 * t);
});

/** Move the helper to module level as a device function. */
const clamp01Dev = cuda.device((v: f32): f32 => Math.min(Math.max(v, 0), 1));

export const smoothstepOk = cuda.jit((x: Float32Array, lo: f32, hi: f32, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const t = clamp01Dev((x[i] - lo) / (hi - lo));
  out[i] = t * t * (3 - 2 * t);
});
