/**
 * i64/u64 helpers for simulated kernels (the emitted code calls these through `rt.i64`).
 *
 * An i64/u64 value is always a bigint within its type's range; the emitted code does the arithmetic
 * inline, wrapped in BigInt.asIntN / asUintN (compiler/src/js/int64.ts), which V8 compiles to native
 * 64-bit instructions. What is here are only the operations whose semantics need a branch, kept small
 * so V8 inlines them, and the 64-bit bit intrinsics.
 */

/** Truncating division, wrapping (-2^63 / -1 is -2^63, as CUDA computes it); division by zero is 0, as for i32 and in the generated C++ (cs_div). */
export function divI(a: bigint, b: bigint): bigint {
  return b === 0n ? 0n : BigInt.asIntN(64, a / b);
}
export function divU(a: bigint, b: bigint): bigint {
  return b === 0n ? 0n : a / b;
}
/** Remainder with the dividend's sign (never out of range); by zero it is 0. */
export function rem(a: bigint, b: bigint): bigint {
  return b === 0n ? 0n : a % b;
}

/** A shift count outside 0 … 63 (read as unsigned) shifts everything out, as PTX's shl/shr do. */
export function shlI(a: bigint, n: bigint): bigint {
  return n >= 0n && n <= 63n ? BigInt.asIntN(64, a << n) : 0n;
}
export function shlU(a: bigint, n: bigint): bigint {
  return n <= 63n ? BigInt.asUintN(64, a << n) : 0n; // a u64 count is never negative
}
export function shrI(a: bigint, n: bigint): bigint {
  return n >= 0n && n <= 63n ? a >> n : a < 0n ? -1n : 0n;
}
export function shrU(a: bigint, n: bigint): bigint {
  return n <= 63n ? a >> n : 0n;
}

/** A float to i64/u64: truncating, wrapping modulo 2^64; NaN and ±Infinity give 0 (as the i32 conversion does). */
export function fromNumberI(x: number): bigint {
  return Number.isFinite(x) ? BigInt.asIntN(64, BigInt(Math.trunc(x))) : 0n;
}
export function fromNumberU(x: number): bigint {
  return Number.isFinite(x) ? BigInt.asUintN(64, BigInt(Math.trunc(x))) : 0n;
}

// ── bit intrinsics on u64 (cuda.popc/brev/clz/ffs of a bigint: __popcll, __brevll, __clzll, __ffsll) ──

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
/** The high and low 32 bits of a u64. */
const hi32 = (a: bigint): number => Number(a >> 32n);
const lo32 = (a: bigint): number => Number(BigInt.asUintN(32, a));

export function popc64(a: bigint): number {
  return popc32(hi32(a)) + popc32(lo32(a));
}
export function brev64(a: bigint): bigint {
  return (BigInt(brev32(lo32(a))) << 32n) | BigInt(brev32(hi32(a)));
}
export function clz64(a: bigint): number {
  const hi = hi32(a);
  return hi !== 0 ? Math.clz32(hi) : 32 + Math.clz32(lo32(a));
}
/** 1 + the index of the lowest set bit, 0 for 0 (as __ffsll). */
export function ffs64(a: bigint): number {
  const lo = lo32(a);
  if (lo !== 0) return 32 - Math.clz32(lo & -lo);
  const hi = hi32(a);
  return hi !== 0 ? 64 - Math.clz32(hi & -hi) : 0;
}

/** The helpers by the names the emitted code uses (`$L.divI(…)`). */
export const INT64_OPS = { divI, divU, rem, shlI, shlU, shrI, shrU, fromNumberI, fromNumberU, popc64, brev64, clz64, ffs64 };
export type Int64Ops = typeof INT64_OPS;
