import { cuda, i64 } from "cudascript";

/**
 * Chains of wrapping i64/u64 arithmetic (+ - * & | ^, << by a constant, unary - and ~), whose
 * intermediate results overflow, beside the operations that need each step's 64-bit value: a right
 * shift, a division, a remainder, a comparison, a conversion to a number, a shift by a variable count.
 * (The simulator wraps such a chain once, at its end: js/int64.ts modular64.)
 */
export const chains = cuda.jit((a: BigInt64Array, b: BigInt64Array, k: i64, out: BigInt64Array, flags: Int32Array, un: BigUint64Array) => {
  const i = cuda.grid(1);
  if (i < a.length) {
    const x = a[i];
    const y = b[i];
    const o = i * 10;
    out[o] = ((x * k + y) ^ (x >> 3n)) - (y & 1023n);
    out[o + 1] = (x * y * k * x) >> 7n;
    out[o + 2] = -(x * k) + ~(y * y);
    out[o + 3] = ((x + y) << 5n) * (x - y);
    out[o + 4] = (x * k) / ((y & 0xffffn) | 1n);
    out[o + 5] = (x * y + k) % 1000003n;
    out[o + 6] = (x * x) << (y & 63n);
    out[o + 7] = ((x * y) | (k * k)) & ~(x + y);
    out[o + 8] = BigInt(Number((x * y) & 0xfffffffn)) * (x - k);
    out[o + 9] = (x * y) >> (y & 63n);
    flags[i * 2] = x * y > k ? 1 : 0;
    flags[i * 2 + 1] = x + y === k * 2n ? 1 : 0;
    un[i] = BigInt.asUintN(64, x * y) * 3n + BigInt.asUintN(64, -y) - BigInt.asUintN(64, x >> 1n);
  }
});
