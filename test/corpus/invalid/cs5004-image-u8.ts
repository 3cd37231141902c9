import { cuda, f32 } from "cudascript";

/** Converts a [0, 1] float image to 8-bit. */
export const toBytes = cuda.jit((img: Float32Array, out: Uint8Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    const v: f32 = Math.min(Math.max(img[i], 0), 1);
    out[i] = v * 255; // @expect CS5004
  }
});

/** Rounds explicitly (and `| 0` truncates). */
export const toBytesOk = cuda.jit((img: Float32Array, out: Uint8Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    const v: f32 = Math.min(Math.max(img[i], 0), 1);
    out[i] = (v * 255 + 0.5) | 0;
  }
});
