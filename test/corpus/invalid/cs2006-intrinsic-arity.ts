import { cuda, f32 } from "cudascript";

/** Arity mistakes on intrinsics and Math functions. */
export const markFirst = cuda.jit((out: Int32Array) => {
  if (cuda.grid() === 0) out[0] = 1; // @expect CS2006
});

export const norms = cuda.jit((x: Float32Array, y: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const a: f32 = x[i];
  const b: f32 = y[i];
  out[i] = Math.sqrt(a * a, b * b); // @expect CS2006
});

export const fusedScale = cuda.jit((x: Float32Array, s: f32, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  out[i] = cuda.fma(x[i], s); // @expect CS2006
});

export const normsOk = cuda.jit((x: Float32Array, y: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  out[i] = Math.hypot(x[i], y[i]);
});

export const fusedScaleOk = cuda.jit((x: Float32Array, s: f32, c: f32, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  out[i] = cuda.fma(x[i], s, c);
});
