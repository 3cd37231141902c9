import { cuda } from "cudascript";

/** Out-of-range threads "return an error code", C style. */
export const copy = cuda.jit((src: Float32Array, dst: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= dst.length) return -1; // @expect CS2001
  dst[i] = src[i];
  return 0; // @expect CS2001
});

export const copyOk = cuda.jit((src: Float32Array, dst: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= dst.length) return;
  dst[i] = src[i];
});
