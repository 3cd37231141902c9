import { cuda, f32, f64 } from "cudascript";

/** An f32 kernel with an f64 local: the multiplication runs in double precision. */
export const scaleF64 = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  const s: f64 = 0.1;
  if (i < out.length) {
    out[i] = x[i] * s; // @expect CS5002
  }
});

/** The same with an f32 scale: no hint. */
export const scaleF32 = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  const s: f32 = 0.1;
  if (i < out.length) {
    out[i] = x[i] * s;
  }
});

/** A kernel that takes f64 data computes in f64 without a hint. */
export const scaleDouble = cuda.jit((x: Float64Array, out: Float64Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = x[i] * 0.1;
  }
});
