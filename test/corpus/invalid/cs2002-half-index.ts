import { cuda } from "cudascript";

/** 2x downsampling: `/` is true division, so i / 2 is 0.5, 1.5, ... for odd i. */
export const downsample = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) {
    out[i / 2] = x[i]; // @expect CS2002
  }
});

/** 2x upsampling reads x[i / 2]. */
export const upsample = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = x[i / 2]; // @expect CS2002
  }
});

/** Integer division is `(a / b) | 0` (or a shift for powers of two). */
export const upsampleOk = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = x[(i / 2) | 0];
  }
});

export const downsampleOk = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (2 * i < x.length && i < out.length) {
    out[i] = x[i << 1];
  }
});
