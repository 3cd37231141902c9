import { cuda, f32 } from "cudascript";

/** Squared error and cubic falloff, written with `**`. */
export const squaredError = cuda.jit((pred: Float32Array, target: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const d: f32 = pred[i] - target[i];
  out[i] = d ** 2; // @expect CS1013
});

export const falloff = cuda.jit((dist: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  let w: f32 = Math.max(1 - dist[i], 0);
  w **= 3; // @expect CS1013
  out[i] = w;
});

export const squaredErrorOk = cuda.jit((pred: Float32Array, target: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const d: f32 = pred[i] - target[i];
  out[i] = d * d;
});

export const falloffOk = cuda.jit((dist: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  out[i] = Math.pow(Math.max(1 - dist[i], 0), 3);
});
