import { cuda, f32 } from "cudascript";

/** Written like a map callback: returns the new value instead of storing it. */
export const relu = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const v: f32 = x[i];
  return v > 0 ? v : 0; // @expect CS2001
});

export const reluOk = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const v: f32 = x[i];
  out[i] = v > 0 ? v : 0;
});
