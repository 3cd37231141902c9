import { cuda } from "cudascript";

/** Bitwise OR of float flags: atomic and/or/xor work on integer arrays only. */
export const anyNegative = cuda.jit((x: Float32Array, flags: Float32Array) => {
  const i = cuda.grid(1);
  if (i < x.length && x[i] < 0) {
    cuda.atomic.or(flags, 0, 1); // @expect CS2003
  }
});

/** Byte counters: GPU atomics work on 32- and 64-bit words, not on Int8Array. */
export const countBytes = cuda.jit((data: Uint8Array, counts: Int8Array) => {
  const i = cuda.grid(1);
  if (i < data.length) {
    cuda.atomic.add(counts, data[i] & 7, 1); // @expect CS2003
  }
});

export const countBytesOk = cuda.jit((data: Uint8Array, counts: Int32Array, flags: Int32Array) => {
  const i = cuda.grid(1);
  if (i < data.length) {
    cuda.atomic.add(counts, data[i] & 7, 1);
    cuda.atomic.or(flags, 0, 1 << (data[i] & 7));
  }
});
