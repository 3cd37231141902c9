import { cuda, f32, i32 } from "cudascript";

const total = cuda.device((a: Float32Array): f32 => {
  let s: f32 = 0;
  for (let k = 0; k < a.length; k++) s += a[k];
  return s;
});

/**
 * Array variables (Numba's buffer swaps) hold whole arrays of one dtype and rank, and are not passed to
 * device functions: each mistake gets one diagnostic saying what to write.
 */
export const holdsAView = cuda.jit((a: Float32Array, out: Float32Array) => {
  let part = a.subarray(1); // @expect CS2030
  out[0] = 0;
});

export const mixesDTypes = cuda.jit((a: Float32Array, b: Int32Array, out: Float32Array, flip: i32) => {
  const src = flip > 0 ? a : b; // @expect CS2030
  out[0] = 0;
});

export const passedToDevice = cuda.jit((a: Float32Array, b: Float32Array, out: Float32Array, flip: i32) => {
  const src = flip > 0 ? a : b;
  out[0] = total(src); // @expect CS2030
});

export const rebindConst = cuda.jit((a: Float32Array, b: Float32Array) => {
  const src = a;
  src = b; // @expect CS2011
  if (cuda.grid(1) < a.length) src[0] = 1;
});

/** The fixes: whole arrays, one dtype, the device function called per array. */
export const swapOk = cuda.jit((a: Float32Array, b: Float32Array, out: Float32Array, steps: i32) => {
  const i = cuda.grid(1);
  let src = a;
  let dst = b;
  for (let s = 0; s < steps; s++) {
    const t = src;
    src = dst;
    dst = t;
  }
  if (i < out.length && i < src.length) out[i] = src[i] + dst[i];
});

export const passedToDeviceOk = cuda.jit((a: Float32Array, b: Float32Array, out: Float32Array, flip: i32) => {
  out[0] = flip > 0 ? total(a) : total(b);
});
