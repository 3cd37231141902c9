import { cuda } from "cudascript";

/** Bigint literals past 64 bits, or past i64 where an i64 is stored: CS2009, never a silent wrap. */
export const seeds = cuda.jit((a: BigInt64Array, b: BigUint64Array) => {
  const i = cuda.grid(1);
  if (i < a.length) {
    a[i] = 99999999999999999999n; // @expect CS2009
    b[i] = 18446744073709551616n; // @expect CS2009
    a[i] = 9223372036854775808n; // @expect CS2009
    // Fine: the least i64, the largest u64, and a u64 constant mixed into u64 arithmetic (C++ unsigned long long).
    a[i] = -9223372036854775808n;
    b[i] = 18446744073709551615n;
    b[i] = b[i] ^ 0xbf58476d1ce4e5b9n;
  }
});
