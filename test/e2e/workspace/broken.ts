import { cuda, f32 } from "cudascript";

/** Nearest-sample lookup, written with a float index: CudaScript says what to write instead. */
export const sampleNearest = cuda.jit((table: Float32Array, pos: f32, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  out[i] = table[pos];
});
