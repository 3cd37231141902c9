// Exact arithmetic for the simulator's libdevice: a finite float is m · 2^e with a BigInt m, so a sum,
// product, quotient or square root is exact as a rational, and `roundRational` rounds it once, in any of
// the GPU's four IEEE rounding modes, to binary32 or binary64 (subnormals and overflow included). This is
// what makes __dadd_ru, __fmaf_rz, __double2float_rd, __ll2float_ru, … bit-exact on the simulator.

/** The GPU's rounding modes: to nearest even, toward zero, up (+∞), down (−∞). */
export type RoundingMode = "rn" | "rz" | "ru" | "rd";

export interface FloatFormat {
  /** Significand bits, the hidden one included. */
  readonly precision: number;
  readonly minExponent: number;
  readonly maxExponent: number;
  readonly max: number;
}
export const BINARY32: FloatFormat = Object.freeze({ precision: 24, minExponent: -126, maxExponent: 127, max: 3.4028234663852886e38 });
export const BINARY64: FloatFormat = Object.freeze({ precision: 53, minExponent: -1022, maxExponent: 1023, max: Number.MAX_VALUE });

const view = new DataView(new ArrayBuffer(8));

export function f64Bits(x: number): bigint {
  view.setFloat64(0, x);
  return view.getBigUint64(0);
}
export function f64FromBits(bits: bigint): number {
  view.setBigUint64(0, BigInt.asUintN(64, bits));
  return view.getFloat64(0);
}
export function f32Bits(x: number): number {
  view.setFloat32(0, x);
  return view.getUint32(0);
}
export function f32FromBits(bits: number): number {
  view.setUint32(0, bits >>> 0);
  return view.getFloat32(0);
}

/** A finite x as m · 2^e (m a signed BigInt, 0 for ±0). */
export interface Dyadic {
  readonly m: bigint;
  readonly e: number;
}
export function toDyadic(x: number): Dyadic {
  const bits = f64Bits(x);
  const exponentField = Number((bits >> 52n) & 0x7ffn);
  let m = bits & 0xfffffffffffffn;
  let e: number;
  if (exponentField === 0) e = -1074;
  else {
    m |= 1n << 52n;
    e = exponentField - 1075;
  }
  return { m: bits >> 63n ? -m : m, e };
}

export function bitLength(n: bigint): number {
  return n === 0n ? 0 : n.toString(2).length;
}

/** Rounds the exact value ±(num / den) · 2^exp (num ≥ 0, den > 0) to `format` in `mode`, once. */
export function roundRational(negative: boolean, num: bigint, den: bigint, exp: number, format: FloatFormat, mode: RoundingMode): number {
  if (num === 0n) return negative ? -0 : 0;
  if (exp >= 0) num <<= BigInt(exp);
  else den <<= BigInt(-exp);
  // e with 2^e ≤ num/den < 2^(e+1)
  let e = bitLength(num) - bitLength(den);
  if (e >= 0 ? num < den << BigInt(e) : num << BigInt(-e) < den) e -= 1;
  const quantum = Math.max(e, format.minExponent) - (format.precision - 1);
  const N = quantum >= 0 ? num : num << BigInt(-quantum);
  const D = quantum >= 0 ? den << BigInt(quantum) : den;
  let n = N / D;
  const r = N - n * D;
  if (r !== 0n) {
    const away =
      mode === "rn" ? 2n * r > D || (2n * r === D && (n & 1n) === 1n)
      : mode === "rz" ? false
      : mode === "ru" ? !negative
      : negative;
    if (away) n += 1n;
  }
  if (n !== 0n && bitLength(n) + quantum > format.maxExponent + 1) {
    const toInfinity = mode === "rn" || (mode === "ru" && !negative) || (mode === "rd" && negative);
    const magnitude = toInfinity ? Infinity : format.max;
    return negative ? -magnitude : magnitude;
  }
  const magnitude = Number(n) * 2 ** quantum;
  return negative ? -magnitude : magnitude;
}

/** Rounds the exact dyadic m · 2^e. */
export function roundDyadic(m: bigint, e: number, format: FloatFormat, mode: RoundingMode): number {
  return roundRational(m < 0n, m < 0n ? -m : m, 1n, e, format, mode);
}

/** floor(√n) for n ≥ 0. */
export function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = 1n << BigInt(Math.ceil(bitLength(n) / 2));
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

/** The next float of `format` after x toward +∞ (up) or −∞ (down); x finite or ±∞. */
export function nextFloat(x: number, up: boolean, format: FloatFormat): number {
  if (Number.isNaN(x)) return x;
  if (format === BINARY32) {
    if (x === 0) return up ? f32FromBits(1) : f32FromBits(0x80000001);
    const bits = f32Bits(x);
    if (x === Infinity) return up ? x : format.max;
    if (x === -Infinity) return up ? -format.max : x;
    return f32FromBits((x > 0) === up ? bits + 1 : bits - 1);
  }
  if (x === 0) return up ? 5e-324 : -5e-324;
  if (x === Infinity) return up ? x : format.max;
  if (x === -Infinity) return up ? -format.max : x;
  const bits = f64Bits(x);
  return f64FromBits((x > 0) === up ? bits + 1n : bits - 1n);
}

/**
 * Correct rounding by bracketing: `candidate` is within a few ulps of the true value t, and
 * `compare(m, e)` returns the sign of (m · 2^e − t) exactly. Steps to the float whose rounding interval
 * holds t (round to nearest; t is never a midpoint for the irrational results this is used for).
 */
export function roundNearestByComparison(candidate: number, format: FloatFormat, compare: (m: bigint, e: number) => number): number {
  let c = candidate;
  for (let guard = 0; guard < 64; guard++) {
    const up = nextFloat(c, true, format);
    const down = nextFloat(c, false, format);
    if (Number.isFinite(up) && compare(...midpoint(c, up)) < 0) c = up;
    else if (Number.isFinite(down) && compare(...midpoint(down, c)) > 0) c = down;
    else return c;
  }
  return c;
}
function midpoint(a: number, b: number): [bigint, number] {
  const da = toDyadic(a);
  const db = toDyadic(b);
  const e = Math.min(da.e, db.e);
  return [(da.m << BigInt(da.e - e)) + (db.m << BigInt(db.e - e)), e - 1];
}

/**
 * Rounds a binary64 approximation y of a positive value t with |y − t| ≤ relError · t to binary32, when
 * that is safe: undefined if y lies so close to a binary32 midpoint that t could be on the other side.
 */
export function binary32IfUnambiguous(y: number, relError: number): number | undefined {
  const r = Math.fround(y);
  if (!Number.isFinite(r) || r === 0) return undefined;
  const other = nextFloat(r, y > r, BINARY32);
  const midpoint = (r + other) / 2; // exact: binary32 midpoints are binary64 values
  return Math.abs(y - midpoint) > 2 * relError * Math.abs(y) ? r : undefined;
}
