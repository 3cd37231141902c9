import { cuda, f16, f32, i32, Float16Array } from "cudascript";

/**
 * Blending f16 weights with f32 data: CUDA C++ has no implicit half/float mix and Numba would compute
 * in float64, so every operation that mixes them says which precision to use.
 */
export const blend = cuda.jit((w: Float16Array, x: Float32Array, out: Float32Array, scale: f16, bias: f32, n: i32) => {
  const i = cuda.grid(1);
  if (i < n) {
    out[i] = w[i] * x[i]; // @expect CS2020
    const s = scale + bias; // @expect CS2020
    if (w[i] < x[i]) out[i] = s; // @expect CS2020
    out[i] += Math.max(scale, bias); // @expect CS2020
    out[i] = w[i] * i; // @expect CS2020
    out[i] = cuda.fp16.hadd(w[i], x[i]); // @expect CS2020
  }
});

/** What works: convert explicitly, to f32 (Math.fround) or to f16 (Math.f16round); literals adopt f16. */
export const blendF32 = cuda.jit((w: Float16Array, x: Float32Array, out: Float32Array, scale: f16, n: i32) => {
  const i = cuda.grid(1);
  if (i < n) {
    out[i] = Math.fround(w[i]) * x[i];
    const half = cuda.fp16.hmul(Math.f16round(x[i]), scale) * 0.5;
    out[i] += Math.fround(half);
  }
});
