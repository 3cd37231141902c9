import { cuda, Float16Array } from "cudascript";

/** The largest f16 value: CUDA has no half atomicMax (its one half atomic is atomicAdd). */
export const halfMax = cuda.jit((x: Float16Array, best: Float16Array) => {
  const i = cuda.grid(1);
  if (i < x.length) cuda.atomic.max(best, 0, x[i]); // @expect CS2021
});

/** What works: the maximum in an f32 array (an f16 widens exactly). */
export const halfMaxF32 = cuda.jit((x: Float16Array, best: Float32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) cuda.atomic.max(best, 0, Math.fround(x[i]));
});
