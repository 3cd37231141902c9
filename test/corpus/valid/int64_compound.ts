import { cuda, i64, u64 } from "cudascript";

/**
 * Every i64/u64 compound assignment takes the 64-bit path (issue 28): `x <<= 40n` once used the 32-bit
 * shift count rule (`x <<= (40ll & 31)`, so `1n << 40n` gave 256), and `x += y` on an i64 was signed
 * `long long` arithmetic, undefined on overflow. Here shifts by counts 32…63 and beyond, and + - * that wrap.
 */
export const compound = cuda.jit((a: BigInt64Array, s: BigInt64Array, out: BigInt64Array, uout: BigUint64Array) => {
  const i = cuda.grid(1);
  if (i >= a.length) return;
  const o = i * 8;
  let x: i64 = 1n;
  x <<= 40n;
  out[o] = x;
  let y = a[i];
  y >>= s[i];
  out[o + 1] = y;
  let z = a[i];
  z = z << s[i];
  out[o + 2] = z;
  let w = a[i];
  w += 9223372036854775807n;
  out[o + 3] = w;
  w -= a[i] * 3n;
  out[o + 4] = w;
  w *= a[i] | 1n;
  out[o + 5] = w;
  let q = a[i];
  q >>= 36n;
  q <<= s[i] & 63n;
  out[o + 6] = q;
  let m = a[i];
  m /= (s[i] & 7n) - 1n;
  m %= 1000n;
  out[o + 7] = m;
  let u: u64 = BigInt.asUintN(64, a[i]);
  u >>= BigInt.asUintN(64, s[i]);
  u <<= 40n;
  u += 18446744073709551615n;
  u *= 3n;
  uout[i] = u;
});

/**
 * A 64-bit grid-stride loop whose update wraps: the loop visits the last n values of i64, and ends when
 * `i += stride` wraps past 2^63 - 1 to a negative value (with signed `long long` arithmetic, undefined
 * behaviour that lets the compiler assume `i >= base` forever).
 */
export const strideWrap = cuda.jit((base: i64, out: Int32Array) => {
  const stride = BigInt(cuda.gridsize(1));
  for (let i: i64 = base + BigInt(cuda.grid(1)); i >= base; i += stride) {
    out[Number(i - base) | 0] += 1;
  }
});

/** ++ and -- of i64/u64 variables and elements (once refused: "a bigint and a number cannot be mixed"); they wrap. */
export const incDec = cuda.jit((a: BigInt64Array, out: BigInt64Array, uout: BigUint64Array) => {
  const i = cuda.grid(1);
  if (i < a.length) {
    let p = a[i];
    p++;
    out[2 * i] = p;
    let q = a[i];
    --q;
    out[2 * i + 1] = q;
    uout[i] = BigInt.asUintN(64, a[i]);
    uout[i]--;
  }
});
