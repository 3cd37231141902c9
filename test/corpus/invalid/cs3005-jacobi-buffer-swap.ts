import { cuda, f32 } from "cudascript";

/**
 * Numba's Jacobi loops swap two buffers by rebinding names. Array names are fixed in kernels: each
 * mistake gets one diagnostic saying to swap the arguments on the host between launches instead.
 */
export const jacobiSwap = cuda.jit((a: Float32Array, b: Float32Array, steps: f32) => {
  const i = cuda.grid(1);
  if (i <= 0 || i >= a.length - 1) return;
  let src = a; // @expect CS3005
  let dst = b; // @expect CS3005
  for (let s = 0; s < steps; s++) {
    dst[i] = 0.5 * (src[i - 1] + src[i + 1]);
    const t = src;
    src = dst;
    dst = t;
  }
});

export const pickBuffer = cuda.jit((a: Float32Array, b: Float32Array, flip: f32) => {
  const i = cuda.grid(1);
  const src = flip > 0 ? a : b; // @expect CS2012
  if (i < a.length) src[i] = 0;
});

export const rebindConst = cuda.jit((a: Float32Array, b: Float32Array) => {
  const src = a;
  src = b; // @expect CS2011
  if (cuda.grid(1) < a.length) src[0] = 1;
});
