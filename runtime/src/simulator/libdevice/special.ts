// Special functions: @stdlib's erf family, gamma, lgamma and Bessel J0/J1/Y0/Y1 (ports of Boost/Cephes/
// fdlibm, measured against mpmath by test/libdevice/accuracy.test.ts); jn/yn by recurrence; normcdf with
// its argument split in two (x/√2 rounded would cost up to ~1000 ulp in the far tail). binary32 forms are
// the binary64 result rounded once.
import besselj0 = require("@stdlib/math-base-special-besselj0");
import besselj1 = require("@stdlib/math-base-special-besselj1");
import bessely0 = require("@stdlib/math-base-special-bessely0");
import bessely1 = require("@stdlib/math-base-special-bessely1");
import erf = require("@stdlib/math-base-special-erf");
import erfc = require("@stdlib/math-base-special-erfc");
import erfcinv = require("@stdlib/math-base-special-erfcinv");
import erfcx = require("@stdlib/math-base-special-erfcx");
import erfinv = require("@stdlib/math-base-special-erfinv");
import gamma = require("@stdlib/math-base-special-gamma");
import gammaln = require("@stdlib/math-base-special-gammaln");

const fr = Math.fround;
const SQRT1_2_HI = 0.7071067811865476; // fl(1/√2)
const SQRT1_2_LO = -4.833646656726457e-17; // 1/√2 − SQRT1_2_HI
const TWO_OVER_SQRT_PI = 1.1283791670955126;

/** Φ(x) = erfc(−x/√2) / 2, with −x/√2 = t + dt in double-double and erfc(t + dt) ≈ erfc(t) − dt · 2/√π · e^(−t²). */
function normcdf(x: number): number {
  if (Number.isNaN(x)) return x;
  const t = -x * SQRT1_2_HI;
  // the product's rounding error (exact via Veltkamp splitting) plus the constant's low part
  const err = twoProductError(-x, SQRT1_2_HI, t) + -x * SQRT1_2_LO;
  const base = erfc(t);
  if (!Number.isFinite(t) || err === 0) return base / 2;
  return (base - err * TWO_OVER_SQRT_PI * Math.exp(-t * t)) / 2;
}
function split(a: number): [number, number] {
  const c = 134217729 * a;
  const hi = c - (c - a);
  return [hi, a - hi];
}
function twoProductError(a: number, b: number, p: number): number {
  if (!Number.isFinite(p) || Math.abs(a) > 1e300) return 0;
  const [ah, al] = split(a);
  const [bh, bl] = split(b);
  return ah * bh - p + ah * bl + al * bh + al * bl;
}
/** erfcx: for x < 0, 2·e^(x²) − erfcx(−x) with x² split exactly (e^(x²) rounded from fl(x²) is ~16 ulp off at x = −6). */
function erfcxAccurate(x: number): number {
  if (!(x < 0)) return erfcx(x);
  if (x < -26.7) return Infinity;
  const h = x * x;
  const l = twoProductError(x, x, h);
  return 2 * Math.exp(h) * Math.exp(l) - erfcx(-x);
}
/**
 * erfcinv: @stdlib's, refined in the far tail (z < 1e-20, where it is off by up to ~1000 ulp) by Newton's
 * method on ln erfc(y) = ln z, with ln erfc(y) from its asymptotic series (y > 6.5: converged to 1e-17).
 */
function erfcinvAccurate(z: number): number {
  let y = erfcinv(z);
  if (!(z > 0 && z < 1e-20)) return y;
  const logZ = Math.log(z);
  for (let i = 0; i < 4; i++) {
    const h = y * y;
    const l = twoProductError(y, y, h);
    // ln erfc(y) = −y² − ln(y√π) + ln(1 − 1/(2y²) + 3/(2y²)² − …)
    let term = 1;
    let series = 1;
    for (let k = 1; k < 40; k++) {
      term *= -(2 * k - 1) / (2 * h);
      series += term;
      if (Math.abs(term) < 1e-18) break;
    }
    const f = -h - l - Math.log(y * 1.7724538509055160) + Math.log(series) - logZ;
    const step = f / (-2 * y - 1 / y);
    y -= step;
    if (Math.abs(step) < 1e-17 * y) break;
  }
  return y;
}
const normcdfinv = (p: number) => -Math.SQRT2 * erfcinvAccurate(2 * p);

const EULER_GAMMA = 0.5772156649015329;
/** Y0 and Y1 below 1e-8 from their leading terms (@stdlib's lose accuracy, or overflow, near 0). */
function y0(x: number): number {
  if (x > 0 && x < 1e-8) return (2 / Math.PI) * (Math.log(x) - Math.LN2 + EULER_GAMMA);
  return bessely0(x);
}
function y1(x: number): number {
  if (x > 0 && x < 1e-8) return -(2 / Math.PI) / x + (x / Math.PI) * (Math.log(x) - Math.LN2 + EULER_GAMMA - 0.5);
  return bessely1(x);
}
/**
 * J0 and J1 for |x| < 8 by their power series Σ (−q)^k (x/2)^n / (k! (k + n)!) (q = x²/4, n the order)
 * in double-double: the alternating terms reach ~70, so binary64 would lose ~7 bits (@stdlib's rational
 * fits measured 7 ulp for J0 and 8 ulp for J1 at x = 4.14, past CUDA's 7).
 */
function besselSeries(x: number, order: 0 | 1): number {
  const h = x / 2;
  const qh = h * h;
  const ql = twoProductError(h, h, qh);
  let th = order === 0 ? 1 : h; // the term, double-double (th, tl)
  let tl = 0;
  let sh = th; // the sum
  let sl = 0;
  for (let k = 1; k < 60; k++) {
    // term · (−q) / (k (k + n))
    const ph = th * qh;
    const pl = twoProductError(th, qh, ph) + th * ql + tl * qh;
    const d = k * (k + order);
    const q1 = ph / d;
    const r = ph - q1 * d + pl; // q1 · d is exact for these sizes up to a rounding of ph's tail
    const q2 = (r - twoProductError(q1, d, q1 * d)) / d;
    th = -(q1 + q2);
    tl = -(q2 - (q1 + q2 - q1));
    // sum += term (TwoSum, then renormalise)
    const s1 = sh + th;
    const bb = s1 - sh;
    const e = sh - (s1 - bb) + (th - bb) + sl + tl;
    sh = s1 + e;
    sl = e - (sh - s1);
    if (Math.abs(th) < 1e-40 * Math.abs(sh)) break;
  }
  return sh + sl;
}
const j0 = (x: number) => (Math.abs(x) < 8 ? besselSeries(x, 0) : besselj0(x));
const j1 = (x: number) => (x === 0 ? x : Math.abs(x) < 8 ? besselSeries(x, 1) : besselj1(x));

function lgamma(x: number): number {
  if (x === Infinity || x === -Infinity) return Infinity;
  return gammaln(x);
}

/**
 * Orders past 2^20 (where a recurrence would take seconds): Debye's leading terms, relative error O(1/n).
 * Returns [J_n(x), Y_n(x)] for x > 0.
 */
const DEBYE_ORDER = 2 ** 20;
function debye(n: number, x: number): [number, number] {
  if (x < n) {
    const alpha = Math.acosh(n / x);
    const t = Math.tanh(alpha);
    const j = Math.exp(n * (t - alpha)) / Math.sqrt(2 * Math.PI * n * t);
    const y = -Math.exp(n * (alpha - t)) / Math.sqrt(0.5 * Math.PI * n * t);
    return [j, y];
  }
  const beta = Math.acos(n / x);
  const t = Math.tan(beta);
  const phase = n * (t - beta) - Math.PI / 4;
  const scale = Math.sqrt(2 / (Math.PI * n * t));
  return [scale * Math.cos(phase), scale * Math.sin(phase)];
}

/** J_n(x): forward recurrence where it is stable (n < |x|), Miller's backward recurrence otherwise. */
function jn(n: number, x: number): number {
  if (Number.isNaN(x)) return x;
  let sign = 1;
  if (n < 0) {
    n = -n;
    if (n & 1) sign = -sign;
  }
  if (x < 0) {
    x = -x;
    if (n & 1) sign = -sign;
  }
  if (n === 0) return sign * j0(x);
  if (n === 1) return sign * j1(x);
  if (x === 0) return sign * 0;
  if (x === Infinity) return sign * 0;
  if (n > DEBYE_ORDER) return sign * debye(n, x)[0];
  if (n < x) {
    let a = j0(x);
    let b = besselj1(x);
    for (let k = 1; k < n; k++) {
      const c = ((2 * k) / x) * b - a;
      a = b;
      b = c;
    }
    return sign * b;
  }
  // |J_n(x)| < (x/2)^n / n! for n ≥ x: below the smallest subnormal, it is ±0.
  if (n * Math.log((Math.E * x) / (2 * n)) - 0.5 * Math.log(2 * Math.PI * n) < -760) return sign * 0;
  // Backward from m ≫ n, normalised by J0 + 2(J2 + J4 + …) = 1.
  const m = 2 * Math.floor((Math.max(n, x) + 20 + Math.floor(Math.sqrt(40 * Math.max(n, x)))) / 2);
  let next = 0;
  let current = 1e-300;
  let sum = 0;
  let result = 0;
  for (let k = m; k > 0; k--) {
    const previous = ((2 * k) / x) * current - next;
    next = current;
    current = previous;
    if (k - 1 === n) result = current;
    if ((k - 1) % 2 === 0 && k - 1 > 0) sum += 2 * current;
    if (Math.abs(current) > 1e250) {
      current *= 1e-250;
      next *= 1e-250;
      result *= 1e-250;
      sum *= 1e-250;
    }
  }
  sum += current; // J0's term
  return sign * (result / sum);
}

/** Y_n(x) by forward recurrence from Y0 and Y1 (stable for Y at every n). */
function yn(n: number, x: number): number {
  if (Number.isNaN(x)) return x;
  let sign = 1;
  if (n < 0) {
    n = -n;
    if (n & 1) sign = -1;
  }
  if (x < 0) return NaN;
  if (x === 0) return sign * -Infinity;
  if (n === 0) return y0(x);
  if (n === 1) return sign * y1(x);
  if (n > DEBYE_ORDER) return sign * debye(n, x)[1];
  let a = y0(x);
  let b = y1(x);
  for (let k = 1; k < n && b !== -Infinity; k++) {
    const c = ((2 * k) / x) * b - a;
    a = b;
    b = c;
  }
  return sign * b;
}

export const SPECIAL = {
  erf, erff: (x: number) => fr(erf(x)),
  erfc, erfcf: (x: number) => fr(erfc(x)),
  erfinv, erfinvf: (x: number) => fr(erfinv(x)),
  erfcinv: erfcinvAccurate, erfcinvf: (x: number) => fr(erfcinvAccurate(x)),
  erfcx: erfcxAccurate, erfcxf: (x: number) => fr(erfcxAccurate(x)),
  normcdf, normcdff: (x: number) => fr(normcdf(x)),
  normcdfinv, normcdfinvf: (x: number) => fr(normcdfinv(x)),
  lgamma, lgammaf: (x: number) => fr(lgamma(x)),
  tgamma: (x: number) => gamma(x), tgammaf: (x: number) => fr(gamma(x)),
  j0, j0f: (x: number) => fr(j0(x)),
  j1, j1f: (x: number) => fr(j1(x)),
  jn, jnf: (n: number, x: number) => fr(jn(n, x)),
  y0, y0f: (x: number) => fr(y0(x)),
  y1, y1f: (x: number) => fr(y1(x)),
  yn, ynf: (n: number, x: number) => fr(yn(n, x)),
};
