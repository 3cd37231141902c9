// Exact floating-point functions: rounding to integral values, sign and magnitude, min/max, fmod,
// remainder/remquo, modf, frexp, ldexp/scalbn, nextafter, ilogb/logb, classification, saturate. Each
// result is exactly representable, so one implementation serves both precisions (the f32 forms get
// binary32 operands and return binary32 values; only nextafterf and ldexpf need their own format).
import { BINARY32, BINARY64, f64Bits, nextFloat, roundDyadic, toDyadic, type FloatFormat } from "./exact";
import { rintNearestEven, toI64 } from "./conversion";

const INT_MIN = -2147483648;
const INT_MAX = 2147483647;

function roundHalfAway(x: number): number {
  if (!Number.isFinite(x)) return x;
  const t = Math.trunc(x);
  const r = Math.abs(x - t) >= 0.5 ? t + Math.sign(x) : t;
  return r === 0 ? (x < 0 || Object.is(x, -0) ? -0 : 0) : r;
}
function ceil(x: number): number {
  return Math.ceil(x);
}
function fmax(x: number, y: number): number {
  if (Number.isNaN(x)) return y;
  if (Number.isNaN(y)) return x;
  return Math.max(x, y);
}
function fmin(x: number, y: number): number {
  if (Number.isNaN(x)) return y;
  if (Number.isNaN(y)) return x;
  return Math.min(x, y);
}
function fdim(x: number, y: number): number {
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN;
  return x > y ? x - y : 0;
}
function copysign(x: number, y: number): number {
  const negative = y < 0 || Object.is(y, -0);
  return negative ? -Math.abs(x) : Math.abs(x);
}

/** remainder(x, y) and the low three bits of the quotient rounded to nearest even (with its sign). */
function remquo(x: number, y: number): [number, number] {
  if (Number.isNaN(x) || Number.isNaN(y) || !Number.isFinite(x) || y === 0) return [NaN, 0];
  if (!Number.isFinite(y)) return [x, 0];
  const ay = Math.abs(y);
  let a = Math.abs(x);
  let q = 0;
  // Reduce modulo 8|y| (exactly: fmod; where 8|y| overflows, |x| is below it already), then peel off
  // 4|y|, 2|y|, |y|: every subtraction is exact.
  if (Number.isFinite(ay * 8)) a = a % (ay * 8);
  for (let j = 2; j >= 0; j--) {
    const step = ay * 2 ** j;
    if (step !== Infinity && a >= step) {
      a -= step;
      q += 2 ** j;
    }
  }
  if (a > ay - a || (a === ay - a && q % 2 === 1)) {
    a -= ay;
    q += 1;
  }
  q &= 7;
  const negativeQuotient = (x < 0) !== (y < 0);
  const r = x < 0 || Object.is(x, -0) ? -a : a;
  return [r === 0 ? (x < 0 || Object.is(x, -0) ? -0 : 0) : r, negativeQuotient ? -q : q];
}

function modf(x: number): [number, number] {
  if (Number.isNaN(x)) return [NaN, NaN];
  const whole = Math.trunc(x);
  const negative = x < 0 || Object.is(x, -0);
  if (!Number.isFinite(x)) return [negative ? -0 : 0, x];
  const fraction = x - whole;
  return [fraction === 0 ? (negative ? -0 : 0) : fraction, whole];
}

function frexp(x: number): [number, number] {
  if (x === 0 || !Number.isFinite(x)) return [x, 0];
  const { m, e } = toDyadic(x);
  const bits = m < 0n ? -m : m;
  const len = bits.toString(2).length;
  const exponent = e + len;
  return [x * 2 ** -Math.max(exponent, -1021) * 2 ** (-exponent + Math.max(exponent, -1021)), exponent];
}

function ldexp(x: number, n: number, format: FloatFormat): number {
  if (x === 0 || !Number.isFinite(x)) return x;
  // Fast path: a normal (or overflowing) binary64 product by 2^n is exact, or correctly rounded to ±∞;
  // binary32 then rounds it once. Subnormal results take the exact path.
  if (n >= -1022 && n <= 1023) {
    const r = x * 2 ** n;
    if (Math.abs(r) >= 2.2250738585072014e-308) return format === BINARY32 ? Math.fround(r) : r;
  }
  const { m, e } = toDyadic(x);
  const clamped = Math.max(-4000, Math.min(4000, n | 0));
  return roundDyadic(m, e + clamped, format, "rn");
}

function nextafter(x: number, y: number, format: FloatFormat): number {
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN;
  if (x === y) return y;
  return nextFloat(x, y > x, format);
}

function ilogb(x: number): number {
  if (Number.isNaN(x) || x === 0) return INT_MIN;
  if (!Number.isFinite(x)) return INT_MAX;
  return frexp(x)[1] - 1;
}
function logb(x: number): number {
  if (Number.isNaN(x)) return x;
  if (x === 0) return -Infinity;
  if (!Number.isFinite(x)) return Infinity;
  return frexp(x)[1] - 1;
}

const isnan = (x: number) => (Number.isNaN(x) ? 1 : 0);
const isinf = (x: number) => (x === Infinity || x === -Infinity ? 1 : 0);
const isfinite = (x: number) => (Number.isFinite(x) ? 1 : 0);
// A NaN's sign is not kept by the simulator's numbers: signbit(NaN) is 0.
const signbit = (x: number) => (x < 0 || Object.is(x, -0) ? 1 : 0);

const llrint = (x: number) => toI64(x, "rn");
const llround = (x: number) => toI64(Number.isFinite(x) ? roundHalfAway(x) : x, "rz");

export const FLOAT = {
  ceil, ceilf: ceil,
  floor: Math.floor, floorf: Math.floor,
  trunc: Math.trunc, truncf: Math.trunc,
  round: roundHalfAway, roundf: roundHalfAway,
  rint: rintNearestEven, rintf: rintNearestEven,
  nearbyint: rintNearestEven, nearbyintf: rintNearestEven,
  llrint, llrintf: llrint,
  llround, llroundf: llround,
  fabs: Math.abs, fabsf: Math.abs,
  copysign, copysignf: copysign,
  fmax, fmaxf: fmax,
  fmin, fminf: fmin,
  fdim, fdimf: (x: number, y: number) => Math.fround(fdim(x, y)),
  fmod: (x: number, y: number) => x % y,
  fmodf: (x: number, y: number) => x % y,
  remainder: (x: number, y: number) => remquo(x, y)[0],
  remainderf: (x: number, y: number) => remquo(x, y)[0],
  remquo, remquof: remquo,
  modf, modff: modf,
  frexp, frexpf: frexp,
  ldexp: (x: number, y: number) => ldexp(x, y, BINARY64),
  ldexpf: (x: number, y: number) => ldexp(x, y, BINARY32),
  scalbn: (x: number, y: number) => ldexp(x, y, BINARY64),
  scalbnf: (x: number, y: number) => ldexp(x, y, BINARY32),
  nextafter: (x: number, y: number) => nextafter(x, y, BINARY64),
  nextafterf: (x: number, y: number) => nextafter(x, y, BINARY32),
  ilogb, ilogbf: ilogb,
  logb, logbf: logb,
  isnand: isnan, isnanf: isnan,
  isinfd: isinf, isinff: isinf,
  isfinited: isfinite, finitef: isfinite,
  signbitd: signbit, signbitf: signbit,
  /** x clamped to [+0, 1]; NaN and −0 give +0 (PTX .sat). */
  saturatef: (x: number) => (x > 0 ? (x > 1 ? 1 : x) : 0),
};
export { f64Bits };
