// Arithmetic with an explicit rounding mode (__dadd_rd, __fmul_ru, __fmaf_rz, __dsqrt_rd, …): exact on the
// simulator. Round-to-nearest on binary64 is JavaScript's own arithmetic; every other case computes the
// exact result (exact.ts) and rounds it once. Zero results follow IEEE 754: an exact zero sum is +0, or −0
// when rounding down.
import { BINARY32, BINARY64, binary32IfUnambiguous, bitLength, isqrt, nextFloat, roundDyadic, roundNearestByComparison, roundRational, toDyadic, type FloatFormat, type RoundingMode } from "./exact";

function add(x: number, y: number, format: FloatFormat, mode: RoundingMode): number {
  if (!Number.isFinite(x) || !Number.isFinite(y)) return x + y;
  if (x === 0 || y === 0) {
    if (x !== 0) return x;
    if (y !== 0) return y;
    if (Object.is(x, y)) return x;
    return mode === "rd" ? -0 : 0;
  }
  const a = toDyadic(x);
  const b = toDyadic(y);
  const e = Math.min(a.e, b.e);
  const m = (a.m << BigInt(a.e - e)) + (b.m << BigInt(b.e - e));
  if (m === 0n) return mode === "rd" ? -0 : 0;
  return roundDyadic(m, e, format, mode);
}

function mul(x: number, y: number, format: FloatFormat, mode: RoundingMode): number {
  if (!Number.isFinite(x) || !Number.isFinite(y) || x === 0 || y === 0) return x * y;
  const a = toDyadic(x);
  const b = toDyadic(y);
  return roundDyadic(a.m * b.m, a.e + b.e, format, mode);
}

function div(x: number, y: number, format: FloatFormat, mode: RoundingMode): number {
  if (!Number.isFinite(x) || !Number.isFinite(y) || x === 0 || y === 0) return x / y;
  const a = toDyadic(x);
  const b = toDyadic(y);
  const negative = (a.m < 0n) !== (b.m < 0n);
  return roundRational(negative, a.m < 0n ? -a.m : a.m, b.m < 0n ? -b.m : b.m, a.e - b.e, format, mode);
}

function sqrt(x: number, format: FloatFormat, mode: RoundingMode): number {
  if (!(x > 0) || x === Infinity) return Math.sqrt(x);
  let { m, e } = toDyadic(x);
  if (e & 1) {
    m <<= 1n;
    e -= 1;
  }
  // Scale so the integer root has ≥ precision + 3 bits: the sticky half-unit then decides every rounding.
  const k = Math.max(0, Math.ceil((2 * (format.precision + 3) - bitLength(m)) / 2));
  const scaled = m << BigInt(2 * k);
  const s = isqrt(scaled);
  const sticky = s * s === scaled ? 0n : 1n;
  return roundRational(false, 2n * s + sticky, 1n, e / 2 - k - 1, format, mode);
}

/** fma: x · y + z rounded once. */
function fma(x: number, y: number, z: number, format: FloatFormat, mode: RoundingMode): number {
  // A finite product never overflows inside fma: finite · finite + ±∞ is ±∞ (x * y + z would give NaN).
  if (Number.isFinite(x) && Number.isFinite(y) && !Number.isFinite(z)) return z;
  if (!Number.isFinite(x) || !Number.isFinite(y)) return x * y + z;
  if (x === 0 || y === 0) return add(x * y, z, format, mode);
  const a = toDyadic(x);
  const b = toDyadic(y);
  const pm = a.m * b.m;
  const pe = a.e + b.e;
  if (z === 0) return roundDyadic(pm, pe, format, mode);
  const c = toDyadic(z);
  const e = Math.min(pe, c.e);
  const m = (pm << BigInt(pe - e)) + (c.m << BigInt(c.e - e));
  if (m === 0n) return mode === "rd" ? -0 : 0;
  return roundDyadic(m, e, format, mode);
}

/**
 * fmaf rounded to nearest, without BigInts: x · y of two binary32 values is exact in binary64, s = x · y + z
 * rounds once more, and TwoSum gives that rounding's exact error t. Binary32 midpoints are binary64 values,
 * so rounding s to binary32 is the correctly rounded fma unless s is exactly a midpoint and t ≠ 0: then the
 * exact value lies on t's side of it.
 */
function fmafNearest(x: number, y: number, z: number): number {
  const p = x * y;
  if (!Number.isFinite(p) || !Number.isFinite(z)) return fma(x, y, z, BINARY32, "rn");
  const s = p + z;
  const bb = s - p;
  const t = p - (s - bb) + (z - bb);
  const r = Math.fround(s);
  if (t === 0 || r === s) return r;
  if (!Number.isFinite(r)) {
    const midpoint = 3.4028235677973366e38; // (MAX + 2^128) / 2, where binary32 rounding overflows
    return Math.abs(s) === midpoint && (s > 0 ? t < 0 : t > 0) ? Math.sign(s) * BINARY32.max : r;
  }
  const other = nextFloat(r, s > r, BINARY32);
  if (s - r !== other - s) return r; // not a midpoint
  return t > 0 ? Math.max(r, other) : Math.min(r, other);
}

/** The next binary64 after a normal, finite c toward +∞ (up) or −∞, by arithmetic (no BigInts). */
function nextNormal64(c: number, up: boolean): number {
  const a = Math.abs(c);
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e--;
  else if (2 ** (e + 1) <= a) e++;
  const ulp = 2 ** (e - 52);
  const towardZero = up !== c > 0;
  // below a power of two the spacing halves
  const spacing = towardZero && a === 2 ** e ? ulp / 2 : ulp;
  return up ? c + spacing : c - spacing;
}

/** The rounding error of a · b = p (Dekker's product, exact where nothing overflows or underflows). */
function productError(a: number, b: number, p: number): number {
  const ca = 134217729 * a;
  const ah = ca - (ca - a);
  const al = a - ah;
  const cb = 134217729 * b;
  const bh = cb - (cb - b);
  const bl = b - bh;
  return ah * bh - p + ah * bl + al * bh + al * bl;
}

/**
 * 1/√x correctly rounded in binary64 without BigInts for x in [2^-900, 2^900]: the residual R = 1 − c²x in
 * double-double (error ~2^-103) gives c's offset from 1/√x, c · (R/2 + 3R²/8), to ~2^-50 of a half-ulp;
 * undefined when the offset is too near a half-ulp to decide (the caller's exact path then decides).
 */
function rsqrt64Fast(x: number): number | undefined {
  if (!(x >= 2 ** -900 && x <= 2 ** 900)) return undefined;
  let c = 1 / Math.sqrt(x);
  for (let step = 0; step < 3; step++) {
    const h = c * c;
    const l = productError(c, c, h);
    const a = h * x;
    const b = productError(h, x, a);
    const r = 1 - a - b - l * x;
    const offset = c * (r / 2 + 0.375 * r * r);
    const neighbour = nextNormal64(c, offset > 0);
    const half = Math.abs(neighbour - c) / 2;
    const distance = Math.abs(offset);
    if (distance < half * (1 - 2 ** -30)) return c;
    if (distance <= half * (1 + 2 ** -30)) return undefined;
    c = neighbour;
  }
  return undefined;
}

/**
 * fma rounded to nearest in binary64 without BigInts, where nothing can overflow or underflow: x · y = p + e
 * exactly (Dekker), p + z = s + t exactly (TwoSum), so x · y + z = s + t + e; the candidate c = s + (t + e)
 * is checked by the residual (s − c) + t + e against half an ulp of c (decided to ~2^-50 of it). Undefined
 * where that cannot decide; the exact path then does.
 */
function fmaNearestFast(x: number, y: number, z: number): number | undefined {
  const p = x * y;
  const ap = Math.abs(p);
  const az = Math.abs(z);
  if (!(ap >= 2 ** -800 && ap <= 2 ** 900) || !(az <= 2 ** 900) || (az !== 0 && az < 2 ** -800)) return undefined;
  const e = productError(x, y, p);
  const s = p + z;
  const bb = s - p;
  const t = p - (s - bb) + (z - bb);
  let c = s + (t + e);
  if (!(Math.abs(c) >= 2 ** -700)) return undefined;
  for (let step = 0; step < 3; step++) {
    const residual = s - c + t + e; // s − c is exact: c is within a few ulps of s
    if (residual === 0) return c;
    const neighbour = nextNormal64(c, residual > 0);
    const half = Math.abs(neighbour - c) / 2;
    const distance = Math.abs(residual);
    if (distance < half * (1 - 2 ** -30)) return c;
    if (distance <= half * (1 + 2 ** -30)) return undefined;
    c = neighbour;
  }
  return undefined;
}

/** 1/√x correctly rounded to nearest (frsqrt_rn). */
function rsqrtNearest(x: number, format: FloatFormat): number {
  if (Number.isNaN(x) || x < 0) return NaN;
  if (x === 0) return Object.is(x, -0) ? -Infinity : Infinity;
  if (x === Infinity) return 0;
  if (format === BINARY32) {
    // 1/fl(√x) is within 2^-52 (relative) of 1/√x: decisive unless next to a binary32 midpoint.
    const fast = binary32IfUnambiguous(1 / Math.sqrt(x), 2 ** -51);
    if (fast !== undefined) return fast;
  } else {
    const fast = rsqrt64Fast(x);
    if (fast !== undefined) return fast;
  }
  const candidate = format === BINARY32 ? Math.fround(1 / Math.sqrt(x)) : 1 / Math.sqrt(x);
  const dx = toDyadic(x);
  // sign(c − 1/√x) = sign(c² · x − 1) for c > 0
  return roundNearestByComparison(candidate, format, (m, e) => {
    const lhs = m * m * dx.m;
    const exp = 2 * e + dx.e;
    return exp >= 0 ? Math.sign(Number((lhs << BigInt(exp)) - 1n)) : Math.sign(Number(lhs - (1n << BigInt(-exp))));
  });
}

const f32 = (mode: RoundingMode) => ({
  add: (x: number, y: number) => (mode === "rn" ? Math.fround(x + y) : add(x, y, BINARY32, mode)),
  sub: (x: number, y: number) => (mode === "rn" ? Math.fround(x - y) : add(x, -y, BINARY32, mode)),
  mul: (x: number, y: number) => (mode === "rn" ? Math.fround(x * y) : mul(x, y, BINARY32, mode)),
  div: (x: number, y: number) => (mode === "rn" ? Math.fround(x / y) : div(x, y, BINARY32, mode)),
  rcp: (x: number) => (mode === "rn" ? Math.fround(1 / x) : div(1, x, BINARY32, mode)),
  sqrt: (x: number) => (mode === "rn" ? Math.fround(Math.sqrt(x)) : sqrt(x, BINARY32, mode)),
  fma: (x: number, y: number, z: number) => (mode === "rn" ? fmafNearest(x, y, z) : fma(x, y, z, BINARY32, mode)),
});
const f64 = (mode: RoundingMode) => ({
  add: (x: number, y: number) => (mode === "rn" ? x + y : add(x, y, BINARY64, mode)),
  mul: (x: number, y: number) => (mode === "rn" ? x * y : mul(x, y, BINARY64, mode)),
  div: (x: number, y: number) => (mode === "rn" ? x / y : div(x, y, BINARY64, mode)),
  rcp: (x: number) => (mode === "rn" ? 1 / x : div(1, x, BINARY64, mode)),
  sqrt: (x: number) => (mode === "rn" ? Math.sqrt(x) : sqrt(x, BINARY64, mode)),
  fma: (x: number, y: number, z: number) => (mode === "rn" ? fmaNearestFast(x, y, z) ?? fma(x, y, z, BINARY64, mode) : fma(x, y, z, BINARY64, mode)),
});
const [frn, frz, fru, frd] = (["rn", "rz", "ru", "rd"] as const).map(f32);
const [drn, drz, dru, drd] = (["rn", "rz", "ru", "rd"] as const).map(f64);

// Inside the simulator f32 operands are already binary32 values (the generated code frounds them).
export const ROUNDING = {
  fadd_rn: frn!.add, fadd_rz: frz!.add, fadd_ru: fru!.add, fadd_rd: frd!.add,
  fsub_rn: frn!.sub, fsub_rz: frz!.sub, fsub_ru: fru!.sub, fsub_rd: frd!.sub,
  fmul_rn: frn!.mul, fmul_rz: frz!.mul, fmul_ru: fru!.mul, fmul_rd: frd!.mul,
  fdiv_rn: frn!.div, fdiv_rz: frz!.div, fdiv_ru: fru!.div, fdiv_rd: frd!.div,
  frcp_rn: frn!.rcp, frcp_rz: frz!.rcp, frcp_ru: fru!.rcp, frcp_rd: frd!.rcp,
  fsqrt_rn: frn!.sqrt, fsqrt_rz: frz!.sqrt, fsqrt_ru: fru!.sqrt, fsqrt_rd: frd!.sqrt,
  fmaf: frn!.fma, fmaf_rn: frn!.fma, fmaf_rz: frz!.fma, fmaf_ru: fru!.fma, fmaf_rd: frd!.fma,
  dadd_rn: drn!.add, dadd_rz: drz!.add, dadd_ru: dru!.add, dadd_rd: drd!.add,
  dmul_rn: drn!.mul, dmul_rz: drz!.mul, dmul_ru: dru!.mul, dmul_rd: drd!.mul,
  ddiv_rn: drn!.div, ddiv_rz: drz!.div, ddiv_ru: dru!.div, ddiv_rd: drd!.div,
  drcp_rn: drn!.rcp, drcp_rz: drz!.rcp, drcp_ru: dru!.rcp, drcp_rd: drd!.rcp,
  dsqrt_rn: drn!.sqrt, dsqrt_rz: drz!.sqrt, dsqrt_ru: dru!.sqrt, dsqrt_rd: drd!.sqrt,
  fma: drn!.fma, fma_rn: drn!.fma, fma_rz: drz!.fma, fma_ru: dru!.fma, fma_rd: drd!.fma,
  frsqrt_rn: (x: number) => rsqrtNearest(x, BINARY32),
};
export { fmafNearest, fmaNearestFast, add as exactAdd, mul as exactMul, div as exactDiv, sqrt as exactSqrt, fma as exactFma, rsqrtNearest };
