import { cuda, f32 } from "cudascript";

/** A defensive type check copied from host code. */
export const halve = cuda.jit((x: Float32Array, s: f32, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  if (typeof s === "number") { // @expect CS1012 CS1001
    out[i] = x[i] * s * 0.5;
  }
});

/** Parameter types are fixed by the signature: no check needed. */
export const halveOk = cuda.jit((x: Float32Array, s: f32, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  out[i] = x[i] * s * 0.5;
});
