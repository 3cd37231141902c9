import { cuda, f32 } from "cudascript";

/** Quantizes to integers, but stores the float product directly. */
export const quantize = cuda.jit((x: Float32Array, scale: f32, q: Int32Array) => {
  const i = cuda.grid(1);
  if (i < q.length) {
    q[i] = x[i] * scale; // @expect CS5004
  }
});

/** Halves integer values with true division. */
export const halve = cuda.jit((a: Int32Array, out: Int32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = a[i] / 2; // @expect CS5004
  }
});

/** Say what you mean: truncate explicitly. */
export const quantizeOk = cuda.jit((x: Float32Array, scale: f32, q: Int32Array) => {
  const i = cuda.grid(1);
  if (i < q.length) {
    q[i] = Math.trunc(x[i] * scale);
  }
});

export const halveOk = cuda.jit((a: Int32Array, out: Int32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = (a[i] / 2) | 0;
  }
});
