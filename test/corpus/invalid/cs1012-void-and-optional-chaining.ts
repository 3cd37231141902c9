import { cuda, i32 } from "cudascript";

/** Counts positive entries; discards the atomic's return value with `void` (a lint habit). */
export const countPositive = cuda.jit((x: Float32Array, count: Int32Array) => {
  const i = cuda.grid(1);
  if (i < x.length && x[i] > 0) {
    void cuda.atomic.add(count, 0, 1); // @expect CS1012
  }
});

/** A plain expression statement already discards the value. */
export const countPositiveOk = cuda.jit((x: Float32Array, count: Int32Array) => {
  const i = cuda.grid(1);
  if (i < x.length && x[i] > 0) {
    cuda.atomic.add(count, 0, 1);
  }
});

/** Adds an optional bias; arrays are never null in a kernel. */
export const addBias = cuda.jit((x: Float32Array, bias: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  const nb: i32 = bias?.length ?? 0; // @expect CS1012 CS1013
  if (i < out.length) {
    out[i] = nb > 0 ? x[i] + bias[i % nb] : x[i];
  }
});
