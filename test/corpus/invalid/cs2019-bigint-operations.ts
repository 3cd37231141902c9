import { cuda } from "cudascript";

/** Operations JavaScript's bigints do not have (each throws or is refused by TypeScript). */
export const bits = cuda.jit((x: BigUint64Array, y: BigInt64Array, out: Float64Array) => {
  const i = cuda.grid(1);
  if (i >= x.length) return;
  x[i] = x[i] >>> 3n; // @expect CS2019
  out[i] = Math.sqrt(y[i]); // @expect CS2019
  out[i] = +y[i]; // @expect CS2019
  y[i] = BigInt.asIntN(32, y[i]); // @expect CS2019
});

/** What to write instead: >> (logical on a u64), Number(…) before Math, a 64-bit mask for fewer bits. */
export const bitsFixed = cuda.jit((x: BigUint64Array, y: BigInt64Array, out: Float64Array) => {
  const i = cuda.grid(1);
  if (i >= x.length) return;
  x[i] = x[i] >> 3n;
  out[i] = Math.sqrt(Number(y[i]));
  out[i] = Number(y[i]);
  y[i] = BigInt.asIntN(64, (y[i] & 0xffffffffn) ^ 0x80000000n) - 0x80000000n;
});
