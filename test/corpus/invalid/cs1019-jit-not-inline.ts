import { cuda, f32 } from "cudascript";

/** The kernel body written as a named function, then passed by name. */
function saxpyImpl(a: f32, x: Float32Array, y: Float32Array, out: Float32Array): void {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = a * x[i] + y[i];
}

export const saxpy = cuda.jit(saxpyImpl); // @expect CS1019

const lerpImpl = (a: f32, b: f32, t: f32): f32 => a + (b - a) * t;
export const lerp = cuda.device(lerpImpl); // @expect CS1019

/** Write the function inline. */
export const saxpyOk = cuda.jit((a: f32, x: Float32Array, y: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = a * x[i] + y[i];
});

export const lerpOk = cuda.device((a: f32, b: f32, t: f32): f32 => a + (b - a) * t);
