import { cuda, i64, u64 } from "cudascript";

/** Seconds to hours on int64 timestamps, mixing bigints and numbers as TypeScript refuses too (TS2365). */
const SECONDS_PER_HOUR = 3600n;

export const hours = cuda.jit((seconds: BigInt64Array, hoursOut: Int32Array, counts: BigInt64Array, bias: i64, mask: u64) => {
  const i = cuda.grid(1);
  if (i < hoursOut.length) {
    hoursOut[i] = seconds[i] / SECONDS_PER_HOUR; // @expect CS2018
    counts[i] = counts[i] + 1; // @expect CS2018
    counts[i] += i; // @expect CS2018
    const late = seconds[i] > 86400; // @expect CS2018
    let total: i64 = 0; // @expect CS2018
    total = total + bias;
    if (late) counts[i] = total;
    if (bias < mask) counts[i] = 0n; // @expect CS2018
  }
});

/** What to write instead: BigInt(…) into 64-bit arithmetic, Number(…) out of it. */
export const hoursFixed = cuda.jit((seconds: BigInt64Array, hoursOut: Int32Array, counts: BigInt64Array, bias: i64, mask: u64) => {
  const i = cuda.grid(1);
  if (i < hoursOut.length) {
    hoursOut[i] = Number(seconds[i] / SECONDS_PER_HOUR);
    counts[i] = counts[i] + 1n;
    counts[i] += BigInt(i);
    const late = seconds[i] > 86400n;
    let total: i64 = 0n;
    total = total + bias;
    if (late) counts[i] = total;
    if (BigInt.asUintN(64, bias) < mask) counts[i] = 0n;
  }
});
