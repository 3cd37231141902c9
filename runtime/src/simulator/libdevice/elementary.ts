// Elementary functions. binary64: JavaScript's Math (V8's ports of fdlibm, under 1 ulp), @stdlib's
// sinpi/cospi, and correctly rounded rsqrt/rcbrt (a candidate corrected by exact comparison). binary32:
// the binary64 result rounded once to binary32 (within 1 ulp of the correctly rounded value, inside every
// bound CUDA documents). pow keeps C's special cases where JavaScript differs: pow(1, y) = 1 and
// pow(−1, ±∞) = 1 (JavaScript gives NaN).
import cospiStdlib = require("@stdlib/math-base-special-cospi");
import sinpiStdlib = require("@stdlib/math-base-special-sinpi");
import { BINARY32, BINARY64, binary32IfUnambiguous, roundNearestByComparison, toDyadic, type FloatFormat } from "./exact";
import { rsqrtNearest } from "./rounding";

const fr = Math.fround;

function pow(x: number, y: number): number {
  if (x === 1) return 1;
  if (x === -1 && (y === Infinity || y === -Infinity)) return 1;
  return Math.pow(x, y);
}

/** 1/∛x rounded to nearest in `format`. */
function rcbrt(x: number, format: FloatFormat): number {
  if (Number.isNaN(x)) return x;
  if (x === 0) return Object.is(x, -0) ? -Infinity : Infinity;
  if (!Number.isFinite(x)) return x > 0 ? 0 : -0;
  if (format === BINARY32) {
    // V8's cbrt is under 1 ulp, the division adds ½: within 2^-51 relative of 1/∛x.
    const fast = binary32IfUnambiguous(Math.abs(1 / Math.cbrt(x)), 2 ** -50);
    if (fast !== undefined) return x < 0 ? -fast : fast;
  }
  const candidate = format === BINARY32 ? fr(1 / Math.cbrt(x)) : 1 / Math.cbrt(x);
  const dx = toDyadic(Math.abs(x));
  const magnitude = roundNearestByComparison(Math.abs(candidate), format, (m, e) => {
    // sign(c − 1/∛|x|) = sign(c³ · |x| − 1) for c > 0
    const lhs = m * m * m * dx.m;
    const exp = 3 * e + dx.e;
    const diff = exp >= 0 ? (lhs << BigInt(exp)) - 1n : lhs - (1n << BigInt(-exp));
    return diff > 0n ? 1 : diff < 0n ? -1 : 0;
  });
  return x < 0 ? -magnitude : magnitude;
}

const sinpi = (x: number) => sinpiStdlib(x);
const cospi = (x: number) => cospiStdlib(x);
const exp10 = (x: number) => Math.pow(10, x);
const exp2 = (x: number) => Math.pow(2, x);

export const ELEMENTARY = {
  acos: Math.acos, acosf: (x: number) => fr(Math.acos(x)),
  acosh: Math.acosh, acoshf: (x: number) => fr(Math.acosh(x)),
  asin: Math.asin, asinf: (x: number) => fr(Math.asin(x)),
  asinh: Math.asinh, asinhf: (x: number) => fr(Math.asinh(x)),
  atan: Math.atan, atanf: (x: number) => fr(Math.atan(x)),
  atan2: (x: number, y: number) => Math.atan2(x, y), atan2f: (x: number, y: number) => fr(Math.atan2(x, y)),
  atanh: Math.atanh, atanhf: (x: number) => fr(Math.atanh(x)),
  cbrt: Math.cbrt, cbrtf: (x: number) => fr(Math.cbrt(x)),
  rcbrt: (x: number) => rcbrt(x, BINARY64), rcbrtf: (x: number) => rcbrt(x, BINARY32),
  cos: Math.cos, cosf: (x: number) => fr(Math.cos(x)),
  cosh: Math.cosh, coshf: (x: number) => fr(Math.cosh(x)),
  cospi, cospif: (x: number) => fr(cospi(x)),
  exp: Math.exp, expf: (x: number) => fr(Math.exp(x)),
  exp10, exp10f: (x: number) => fr(exp10(x)),
  exp2, exp2f: (x: number) => fr(exp2(x)),
  expm1: Math.expm1, expm1f: (x: number) => fr(Math.expm1(x)),
  hypot: (x: number, y: number) => Math.hypot(x, y), hypotf: (x: number, y: number) => fr(Math.hypot(x, y)),
  log: Math.log, logf: (x: number) => fr(Math.log(x)),
  log10: Math.log10, log10f: (x: number) => fr(Math.log10(x)),
  log1p: Math.log1p, log1pf: (x: number) => fr(Math.log1p(x)),
  log2: Math.log2, log2f: (x: number) => fr(Math.log2(x)),
  pow, powf: (x: number, y: number) => fr(pow(x, y)),
  powi: (x: number, y: number) => pow(x, y), powif: (x: number, y: number) => fr(pow(x, y)),
  rsqrt: (x: number) => rsqrtNearest(x, BINARY64), rsqrtf: (x: number) => rsqrtNearest(x, BINARY32),
  sin: Math.sin, sinf: (x: number) => fr(Math.sin(x)),
  sincos: (x: number) => [Math.sin(x), Math.cos(x)], sincosf: (x: number) => [fr(Math.sin(x)), fr(Math.cos(x))],
  sincospi: (x: number) => [sinpi(x), cospi(x)], sincospif: (x: number) => [fr(sinpi(x)), fr(cospi(x))],
  sinh: Math.sinh, sinhf: (x: number) => fr(Math.sinh(x)),
  sinpi, sinpif: (x: number) => fr(sinpi(x)),
  sqrt: Math.sqrt, sqrtf: (x: number) => fr(Math.sqrt(x)),
  tan: Math.tan, tanf: (x: number) => fr(Math.tan(x)),
  tanh: Math.tanh, tanhf: (x: number) => fr(Math.tanh(x)),
};
export { pow };
