import { cuda } from "cudascript";

/** Seconds per hour as a bigint: 64-bit integers are not part of the language yet. */
const SECONDS_PER_HOUR = 3600n;
const DAY = SECONDS_PER_HOUR * 24n;

export const hours = cuda.jit((seconds: Int32Array, out: Int32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = seconds[i] / SECONDS_PER_HOUR; // @expect CS2017
    out[i] += 0n; // @expect CS2017
    out[i] -= DAY; // @expect CS2017
  }
});

/** What works: an i32 constant (or f64 for whole numbers up to 2^53). */
const SECONDS_PER_HOUR_I32 = 3600;
export const hoursI32 = cuda.jit((seconds: Int32Array, out: Int32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = Math.floor(seconds[i] / SECONDS_PER_HOUR_I32);
});
