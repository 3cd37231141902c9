import { cuda, f32, i32 } from "cudascript";

export const scaleInPlace = cuda.jit((x: Float32Array, s: f32) => {
  const i = cuda.grid(1);
  if (i < x.length) x[i] *= s;
});

/** Tried to reuse a kernel as a function (kernels are launched from the host only). */
export const normalize = cuda.jit((x: Float32Array, norm: Float32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) {
    scaleInPlace(x, 1 / norm[0]); // @expect CS1008
  }
});

/** Shared logic belongs in a device function, callable from any kernel. */
const scaleAt = cuda.device((x: Float32Array, i: i32, s: f32): void => {
  x[i] *= s;
});

export const normalizeOk = cuda.jit((x: Float32Array, norm: Float32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) {
    scaleAt(x, i, 1 / norm[0]);
  }
});
