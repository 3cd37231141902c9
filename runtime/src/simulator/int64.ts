/**
 * i64/u64 arithmetic for simulated kernels (the emitted code calls these through `rt.i64`).
 *
 * A 64-bit value is a JavaScript number when it is a safe integer (|v| <= 2^53 - 1; a u64 in
 * 0 … 2^53 - 1) and a bigint otherwise: one canonical form per value, so `===` and `<` work directly
 * (JavaScript compares a number with a bigint by value). Each operation tries numbers first, with an
 * exactness check (rounding is monotonic, so a double result within the safe range is exact), and
 * falls back to BigInt with wrap-around modulo 2^64, as CUDA C++ computes. Plain BigInt arithmetic
 * everywhere would allocate on every operation, many times slower than i32 code.
 */

const MAX = Number.MAX_SAFE_INTEGER;
const BIG_MAX = BigInt(MAX);
const BIG_MIN = -BIG_MAX;

type I64 = number | bigint;

/** Canonical i64 of any bigint: wrapped to 64 bits, a number when safe. */
export function canonI(b: bigint): I64 {
  b = BigInt.asIntN(64, b);
  return b >= BIG_MIN && b <= BIG_MAX ? Number(b) : b;
}
/** Canonical u64 of any bigint. */
export function canonU(b: bigint): I64 {
  b = BigInt.asUintN(64, b);
  return b <= BIG_MAX ? Number(b) : b;
}
const big = (x: I64): bigint => (typeof x === "bigint" ? x : BigInt(x));
const isSafeI = (r: number) => r >= -MAX && r <= MAX;
const isSafeU = (r: number) => r >= 0 && r <= MAX;

export function addI(a: I64, b: I64): I64 {
  if (typeof a === "number" && typeof b === "number") {
    const r = a + b;
    if (isSafeI(r)) return r;
  }
  return canonI(big(a) + big(b));
}
export function subI(a: I64, b: I64): I64 {
  if (typeof a === "number" && typeof b === "number") {
    const r = a - b;
    if (isSafeI(r)) return r + 0; // + 0: no -0
  }
  return canonI(big(a) - big(b));
}
export function mulI(a: I64, b: I64): I64 {
  if (typeof a === "number" && typeof b === "number") {
    const r = a * b;
    if (isSafeI(r)) return r + 0;
  }
  return canonI(big(a) * big(b));
}
/** Truncating division; division by zero is 0 (the simulator's i32 convention). */
export function divI(a: I64, b: I64): I64 {
  if (b === 0) return 0;
  if (typeof a === "number" && typeof b === "number") return Math.trunc(a / b) + 0; // exact for safe integers
  return canonI(big(a) / big(b));
}
export function remI(a: I64, b: I64): I64 {
  if (b === 0) return 0;
  if (typeof a === "number" && typeof b === "number") return (a % b) + 0;
  return canonI(big(a) % big(b));
}
export function addU(a: I64, b: I64): I64 {
  if (typeof a === "number" && typeof b === "number") {
    const r = a + b;
    if (isSafeU(r)) return r;
  }
  return canonU(big(a) + big(b));
}
export function subU(a: I64, b: I64): I64 {
  if (typeof a === "number" && typeof b === "number") {
    const r = a - b;
    if (isSafeU(r)) return r;
  }
  return canonU(big(a) - big(b));
}
export function mulU(a: I64, b: I64): I64 {
  if (typeof a === "number" && typeof b === "number") {
    const r = a * b;
    if (isSafeU(r)) return r;
  }
  return canonU(big(a) * big(b));
}
export function divU(a: I64, b: I64): I64 {
  if (b === 0) return 0;
  if (typeof a === "number" && typeof b === "number") return Math.trunc(a / b);
  return canonU(big(a) / big(b));
}
export function remU(a: I64, b: I64): I64 {
  if (b === 0) return 0;
  if (typeof a === "number" && typeof b === "number") return a % b;
  return canonU(big(a) % big(b));
}
// Bitwise operations on two safe numbers work on their 32-bit halves: a safe integer's high half is
// within [-2^21, 2^21), so is the high half of the result, and the result is safe again.
const TWO32 = 4294967296;
export function andI(a: I64, b: I64): I64 {
  if (typeof a === "number" && typeof b === "number") return (Math.floor(a / TWO32) & Math.floor(b / TWO32)) * TWO32 + ((a & b) >>> 0);
  return canonI(big(a) & big(b));
}
export function orI(a: I64, b: I64): I64 {
  if (typeof a === "number" && typeof b === "number") return (Math.floor(a / TWO32) | Math.floor(b / TWO32)) * TWO32 + ((a | b) >>> 0);
  return canonI(big(a) | big(b));
}
export function xorI(a: I64, b: I64): I64 {
  if (typeof a === "number" && typeof b === "number") return (Math.floor(a / TWO32) ^ Math.floor(b / TWO32)) * TWO32 + ((a ^ b) >>> 0);
  return canonI(big(a) ^ big(b));
}
// u64 safe numbers are below 2^53: the same halves, high halves in [0, 2^21).
export function andU(a: I64, b: I64): I64 {
  return typeof a === "number" && typeof b === "number" ? andI(a, b) : canonU(big(a) & big(b));
}
export function orU(a: I64, b: I64): I64 {
  return typeof a === "number" && typeof b === "number" ? orI(a, b) : canonU(big(a) | big(b));
}
export function xorU(a: I64, b: I64): I64 {
  return typeof a === "number" && typeof b === "number" ? xorI(a, b) : canonU(big(a) ^ big(b));
}
export function negI(a: I64): I64 {
  return typeof a === "number" ? 0 - a : canonI(-a);
}
export function negU(a: I64): I64 {
  return a === 0 ? 0 : canonU(-big(a));
}
export function notI(a: I64): I64 {
  return typeof a === "number" && (a | 0) === a ? ~a : canonI(~big(a));
}
export function notU(a: I64): I64 {
  return canonU(~big(a));
}
/** A shift count outside 0 … 63 (read as unsigned) shifts everything out, as PTX's shl/shr do. */
const countOk = (n: I64): n is number => typeof n === "number" && n >= 0 && n <= 63;
export function shlI(a: I64, n: I64): I64 {
  if (!countOk(n)) return 0;
  if (typeof a === "number") {
    const r = a * 2 ** n;
    if (isSafeI(r)) return r;
  }
  return canonI(big(a) << BigInt(n));
}
export function shlU(a: I64, n: I64): I64 {
  if (!countOk(n)) return 0;
  if (typeof a === "number") {
    const r = a * 2 ** n;
    if (r <= MAX) return r;
  }
  return canonU(big(a) << BigInt(n));
}
export function shrI(a: I64, n: I64): I64 {
  if (!countOk(n)) return a < 0 ? -1 : 0;
  if (typeof a === "number") return Math.floor(a / 2 ** n) + 0; // exact: a power-of-two division, floored
  return canonI(a >> BigInt(n));
}
export function shrU(a: I64, n: I64): I64 {
  if (!countOk(n)) return 0;
  if (typeof a === "number") return Math.floor(a / 2 ** n);
  return canonU(a >> BigInt(n));
}

// ── conversions ──

/** A float or 32-bit integer to i64: truncating (NaN → 0, as the i32 conversion does), wrapping. */
export function fromNumberI(x: number): I64 {
  const t = Math.trunc(x);
  if (isSafeI(t)) return t + 0;
  return Number.isFinite(t) ? canonI(BigInt(t)) : 0;
}
export function fromNumberU(x: number): I64 {
  const t = Math.trunc(x);
  if (isSafeU(t)) return t + 0;
  return Number.isFinite(t) ? canonU(BigInt(t)) : 0;
}
/** i64 → u64 (same bits) and back. */
export function toU(a: I64): I64 {
  return typeof a === "number" && a >= 0 ? a : canonU(big(a));
}
export function toI(a: I64): I64 {
  return typeof a === "number" ? a : canonI(a);
}
/** The low 32 bits, as C++'s (int) / (unsigned) of a long long. */
export function toI32(a: I64): number {
  return typeof a === "number" ? a | 0 : Number(BigInt.asIntN(32, a));
}
export function toU32(a: I64): number {
  return typeof a === "number" ? a >>> 0 : Number(BigInt.asUintN(32, a));
}

// ── storage (BigInt64Array / BigUint64Array elements) ──

/** An element read from a BigInt64Array, canonical. */
export function loadI(b: bigint): I64 {
  return b >= BIG_MIN && b <= BIG_MAX ? Number(b) : b;
}
export function loadU(b: bigint): I64 {
  return b <= BIG_MAX ? Number(b) : b;
}
/**
 * Element access without a bigint per element: an Int32Array view of the same memory (kept on the array
 * under a symbol, made at its first access), read as hi * 2^32 + lo when the value is safe, else the
 * bigint element itself.
 */
const VIEW = Symbol("cudascript.int64View");
type Wide = (BigInt64Array | BigUint64Array) & { [VIEW]?: Int32Array };
function view(a: Wide): Int32Array {
  return a[VIEW] ?? (a[VIEW] = new Int32Array(a.buffer, a.byteOffset, a.length * 2));
}
export function ldI(a: BigInt64Array, i: number): I64 {
  const v = view(a);
  const hi = v[2 * i + 1]!;
  // hi in (-2^21, 2^21): the value is within ±(2^53 - 1) (hi = -2^21 may not be: the slow path decides).
  if (hi > -2097152 && hi < 2097152) return hi * 4294967296 + (v[2 * i]! >>> 0);
  return loadI(a[i]!);
}
export function ldU(a: BigUint64Array, i: number): I64 {
  const v = view(a);
  const hi = v[2 * i + 1]!;
  if (hi >= 0 && hi < 2097152) return hi * 4294967296 + (v[2 * i]! >>> 0);
  return loadU(a[i]!);
}
/** Stores a canonical value: a safe number as its two 32-bit halves, a bigint as itself (the array wraps it). */
export function st(a: BigInt64Array | BigUint64Array, i: number, x: I64): void {
  if (typeof x === "number") {
    const v = view(a);
    v[2 * i] = x | 0; // ToInt32 is the low 32 bits of a safe integer
    v[2 * i + 1] = Math.floor(x / 4294967296);
  } else a[i] = x;
}

/** A value to store into a BigInt64Array / BigUint64Array. */
export function store(a: I64): bigint {
  return typeof a === "bigint" ? a : BigInt(a);
}

// ── bit intrinsics on u64 (cuda.popc/brev/clz/ffs of a bigint: __popcll, __brevll, __clzll, __ffsll) ──

const HI = 2 ** 32;
/** The high and low 32 bits of a canonical u64 (a number below 2^53, or a bigint). */
function halves(a: I64): [number, number] {
  if (typeof a === "number") return [Math.floor(a / HI), a >>> 0];
  return [Number(a >> 32n), Number(a & 0xffffffffn)];
}
function popc32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
}
function brev32(x: number): number {
  x = ((x >>> 1) & 0x55555555) | ((x & 0x55555555) << 1);
  x = ((x >>> 2) & 0x33333333) | ((x & 0x33333333) << 2);
  x = ((x >>> 4) & 0x0f0f0f0f) | ((x & 0x0f0f0f0f) << 4);
  x = ((x >>> 8) & 0x00ff00ff) | ((x & 0x00ff00ff) << 8);
  return ((x >>> 16) | (x << 16)) >>> 0;
}
export function popc64(a: I64): number {
  const [hi, lo] = halves(a);
  return popc32(hi) + popc32(lo);
}
export function brev64(a: I64): I64 {
  const [hi, lo] = halves(a);
  return canonU((BigInt(brev32(lo)) << 32n) | BigInt(brev32(hi)));
}
export function clz64(a: I64): number {
  const [hi, lo] = halves(a);
  return hi !== 0 ? Math.clz32(hi) : 32 + Math.clz32(lo);
}
/** 1 + the index of the lowest set bit, 0 for 0 (as __ffsll). */
export function ffs64(a: I64): number {
  const [hi, lo] = halves(a);
  if (lo !== 0) return 32 - Math.clz32(lo & -lo);
  return hi !== 0 ? 64 - Math.clz32(hi & -hi) : 0;
}

/** The helpers by the names the emitted code uses (`$L.addI(…)`). */
export const INT64_OPS = {
  addI, subI, mulI, divI, remI, addU, subU, mulU, divU, remU, andI, orI, xorI, andU, orU, xorU,
  negI, negU, notI, notU, shlI, shlU, shrI, shrU, fromNumberI, fromNumberU, toU, toI, toI32, toU32, loadI, loadU, store, ldI, ldU, st,
  popc64, brev64, clz64, ffs64,
};
export type Int64Ops = typeof INT64_OPS;
