import { cuda, f32 } from "cudascript";

/** Forgot to wrap in cuda.device: */
const lerp = (a: f32, b: f32, t: f32): f32 => a + (b - a) * t;

const lerpDev = cuda.device((a: f32, b: f32, t: f32): f32 => a + (b - a) * t);

export const blend = cuda.jit((a: Float32Array, b: Float32Array, t: f32, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  out[i] = lerp(a[i], b[i], t); // @expect CS1008
});

export const blendOk = cuda.jit((a: Float32Array, b: Float32Array, t: f32, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  out[i] = lerpDev(a[i], b[i], t);
});

// Host code can still use the plain arrow.
export const halfway = lerp(0, 10, 0.5);
