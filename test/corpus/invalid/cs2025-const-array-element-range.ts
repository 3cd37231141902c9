import { cuda } from "cudascript";

/** -1n in a BigUint64Array would be stored as 18446744073709551615n: not what the code says. */
const MASKS = new BigUint64Array([0xffn, -1n]); // @expect CS2025
/** 2^63 is one past the largest i64. */
const BIG = new BigInt64Array([9223372036854775808n]); // @expect CS2025
/** 300 wraps to 44 in a Uint8Array. */
const LEVELS = new Uint8Array([0, 128, 300]); // @expect CS2025

export const lookup = cuda.jit((masks: BigUint64Array, big: BigInt64Array, levels: Int32Array) => {
  const m = cuda.const.arrayLike(MASKS);
  const b = cuda.const.arrayLike(BIG);
  const l = cuda.const.arrayLike(LEVELS);
  const i = cuda.grid(1);
  if (i < 2) masks[i] = m[i];
  if (i < 1) big[i] = b[i];
  if (i < 3) levels[i] = l[i];
});
