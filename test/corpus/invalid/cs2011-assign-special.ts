import { cuda } from "cudascript";

/** Tries to remap the thread index by assigning to it. */
export const reversed = cuda.jit((x: Float32Array, out: Float32Array) => {
  if (cuda.threadIdx.x >= cuda.blockDim.x) {
    cuda.threadIdx.x = 0; // @expect CS2011
  }
  const i = cuda.grid(1);
  if (i < x.length) out[x.length - 1 - i] = x[i];
});

/** Truncates the output by setting its length. */
export const truncate = cuda.jit((x: Float32Array, n: Int32Array) => {
  const i = cuda.grid(1);
  if (i === 0) {
    x.length = n[0]; // @expect CS2011
  }
});
