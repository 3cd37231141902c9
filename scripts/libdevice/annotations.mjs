// Hand-written facts the generator adds to Numba's signatures: each function's family, its one-line
// description and CUDA's documented maximum error. Accuracy figures are the "Maximum ulp error" columns of
// the CUDA C++ Programming Guide, appendix "Mathematical Functions" (single precision, double precision
// and intrinsic-function tables; CUDA 11.8, the NVRTC the project uses). Functions the tables list with
// 0 ulp, and the bit/integer/conversion functions, are `exact`.

const MODE = { rn: "rounding to nearest even", rz: "rounding toward zero", ru: "rounding up (toward +∞)", rd: "rounding down (toward −∞)" };
const SP = "CUDA C++ Programming Guide, Mathematical Functions, single precision";
const DP = "CUDA C++ Programming Guide, Mathematical Functions, double precision";
const INTR = "CUDA C++ Programming Guide, Mathematical Functions, intrinsic functions";

const ulp = (n, source, note) => ({ ranges: [{ bound: { ulp: n } }], source, ...(note ? { note } : {}) });
const exact = (source = "exact (IEEE-754 operation, bit manipulation or integer arithmetic)") => ({ exact: true, source });

/** name → [accuracy, doc]; rounding-mode and conversion families are filled in by patterns below. */
const ELEMENTARY = {
  acos: [ulp(2, DP), "arc cosine of x, in radians"],
  acosf: [ulp(2, SP), "arc cosine of x, in radians"],
  acosh: [ulp(3, DP), "inverse hyperbolic cosine of x"],
  acoshf: [ulp(4, SP), "inverse hyperbolic cosine of x"],
  asin: [ulp(2, DP), "arc sine of x, in radians"],
  asinf: [ulp(2, SP), "arc sine of x, in radians"],
  asinh: [ulp(3, DP), "inverse hyperbolic sine of x"],
  asinhf: [ulp(3, SP), "inverse hyperbolic sine of x"],
  atan: [ulp(2, DP), "arc tangent of x, in radians"],
  atanf: [ulp(2, SP), "arc tangent of x, in radians"],
  atan2: [ulp(2, DP), "arc tangent of x / y (Numba's argument order: x first), in radians, quadrant from the signs"],
  atan2f: [ulp(3, SP), "arc tangent of x / y (Numba's argument order: x first), in radians, quadrant from the signs"],
  atanh: [ulp(2, DP), "inverse hyperbolic tangent of x"],
  atanhf: [ulp(3, SP), "inverse hyperbolic tangent of x"],
  cbrt: [ulp(1, DP), "cube root of x"],
  cbrtf: [ulp(1, SP), "cube root of x"],
  rcbrt: [ulp(1, DP), "reciprocal cube root, 1 / ∛x"],
  rcbrtf: [ulp(1, SP), "reciprocal cube root, 1 / ∛x"],
  cos: [ulp(2, DP), "cosine of x (radians)"],
  cosf: [ulp(2, SP), "cosine of x (radians)"],
  cosh: [ulp(1, DP), "hyperbolic cosine of x"],
  coshf: [ulp(2, SP), "hyperbolic cosine of x"],
  cospi: [ulp(2, DP), "cos(πx)"],
  cospif: [ulp(1, SP), "cos(πx)"],
  exp: [ulp(1, DP), "e to the power x"],
  expf: [ulp(2, SP), "e to the power x"],
  exp10: [ulp(1, DP), "10 to the power x"],
  exp10f: [ulp(2, SP), "10 to the power x"],
  exp2: [ulp(1, DP), "2 to the power x"],
  exp2f: [ulp(2, SP), "2 to the power x"],
  expm1: [ulp(1, DP), "e^x − 1, accurate near 0"],
  expm1f: [ulp(1, SP), "e^x − 1, accurate near 0"],
  hypot: [ulp(2, DP), "√(x² + y²) without undue overflow or underflow"],
  hypotf: [ulp(3, SP), "√(x² + y²) without undue overflow or underflow"],
  log: [ulp(1, DP), "natural logarithm of x"],
  logf: [ulp(1, SP), "natural logarithm of x"],
  log10: [ulp(1, DP), "base-10 logarithm of x"],
  log10f: [ulp(2, SP), "base-10 logarithm of x"],
  log1p: [ulp(1, DP), "ln(1 + x), accurate near 0"],
  log1pf: [ulp(1, SP), "ln(1 + x), accurate near 0"],
  log2: [ulp(1, DP), "base-2 logarithm of x"],
  log2f: [ulp(1, SP), "base-2 logarithm of x"],
  pow: [ulp(2, DP), "x to the power y"],
  powf: [ulp(4, SP), "x to the power y"],
  powi: [ulp(2, DP, "2 ulp, pow's bound: powi is not in the Programming Guide's tables"), "x to the integer power y"],
  powif: [ulp(4, SP, "4 ulp, powf's bound: powif is not in the Programming Guide's tables"), "x to the integer power y"],
  rsqrt: [ulp(1, DP), "reciprocal square root, 1 / √x"],
  rsqrtf: [ulp(2, SP), "reciprocal square root, 1 / √x"],
  sin: [ulp(2, DP), "sine of x (radians)"],
  sinf: [ulp(2, SP), "sine of x (radians)"],
  sincos: [ulp(2, DP), "sine and cosine of x (radians), as [sin, cos]"],
  sincosf: [ulp(2, SP), "sine and cosine of x (radians), as [sin, cos]"],
  sincospi: [ulp(2, DP), "sin(πx) and cos(πx), as [sin, cos]"],
  sincospif: [ulp(1, SP), "sin(πx) and cos(πx), as [sin, cos]"],
  sinh: [ulp(2, DP), "hyperbolic sine of x"],
  sinhf: [ulp(3, SP), "hyperbolic sine of x"],
  sinpi: [ulp(2, DP), "sin(πx)"],
  sinpif: [ulp(1, SP), "sin(πx)"],
  sqrt: [exact(DP + ": 0 ulp (IEEE-754 round to nearest)"), "square root of x, correctly rounded"],
  sqrtf: [exact(SP + ": 0 ulp (IEEE-754 round to nearest, NVRTC's default -prec-sqrt=true)"), "square root of x, correctly rounded"],
  tan: [ulp(2, DP), "tangent of x (radians)"],
  tanf: [ulp(4, SP), "tangent of x (radians)"],
  tanh: [ulp(1, DP), "hyperbolic tangent of x"],
  tanhf: [ulp(2, SP), "hyperbolic tangent of x"],
};

const besselSmall = (n, abs, source) => ({
  ranges: [{ domain: [-8, 8], bound: { ulp: n } }, { bound: { absolute: abs } }],
  source,
  note: `${n} ulp for |x| < 8, otherwise an absolute error of ${abs}`,
});
const SPECIAL = {
  erf: [ulp(2, DP), "error function"],
  erff: [ulp(2, SP), "error function"],
  erfc: [ulp(5, DP), "complementary error function, 1 − erf(x)"],
  erfcf: [ulp(4, SP), "complementary error function, 1 − erf(x)"],
  erfcinv: [ulp(6, DP), "inverse complementary error function (x in [0, 2])"],
  erfcinvf: [ulp(4, SP), "inverse complementary error function (x in [0, 2])"],
  erfcx: [ulp(4, DP), "scaled complementary error function, e^(x²) · erfc(x)"],
  erfcxf: [ulp(4, SP), "scaled complementary error function, e^(x²) · erfc(x)"],
  erfinv: [ulp(5, DP), "inverse error function (x in [−1, 1])"],
  erfinvf: [ulp(2, SP), "inverse error function (x in [−1, 1])"],
  normcdf: [ulp(5, DP), "standard normal cumulative distribution function"],
  normcdff: [ulp(5, SP), "standard normal cumulative distribution function"],
  normcdfinv: [ulp(8, DP), "inverse of the standard normal cumulative distribution function (x in [0, 1])"],
  normcdfinvf: [ulp(5, SP), "inverse of the standard normal cumulative distribution function (x in [0, 1])"],
  lgamma: [{ ranges: [{ domain: [-23.0001, -2.2637], bound: { unbounded: true } }, { bound: { ulp: 4 } }], source: DP, note: "4 ulp outside the interval −23.0001 … −2.2637; larger inside" }, "natural logarithm of |Γ(x)|"],
  lgammaf: [{ ranges: [{ domain: [-10.001, -2.264], bound: { unbounded: true } }, { bound: { ulp: 6 } }], source: SP, note: "6 ulp outside the interval −10.001 … −2.264; larger inside" }, "natural logarithm of |Γ(x)|"],
  tgamma: [ulp(10, DP), "gamma function Γ(x)"],
  tgammaf: [ulp(5, SP), "gamma function Γ(x)"],
  j0: [besselSmall(7, 5e-12, DP), "Bessel function of the first kind, order 0"],
  j0f: [besselSmall(9, 2.2e-6, SP), "Bessel function of the first kind, order 0"],
  j1: [besselSmall(7, 5e-12, DP), "Bessel function of the first kind, order 1"],
  j1f: [besselSmall(9, 2.2e-6, SP), "Bessel function of the first kind, order 1"],
  jn: [{ ranges: [{ bound: { absolute: 5e-12 } }], source: DP, note: "the guide states 5e-12 absolute for n = 128" }, "Bessel function of the first kind, order n"],
  jnf: [{ ranges: [{ bound: { absolute: 2.2e-6 } }], source: SP, note: "the guide states 2.2e-6 absolute for n = 128" }, "Bessel function of the first kind, order n"],
  y0: [besselSmall(7, 5e-12, DP), "Bessel function of the second kind, order 0"],
  y0f: [besselSmall(9, 2.2e-6, SP), "Bessel function of the second kind, order 0"],
  y1: [besselSmall(7, 5e-12, DP), "Bessel function of the second kind, order 1"],
  y1f: [besselSmall(9, 2.2e-6, SP), "Bessel function of the second kind, order 1"],
  yn: [{ ranges: [{ aboveOrder: 1.5, bound: { absolute: 5e-12 } }, { bound: { unbounded: true } }], source: DP, note: "5e-12 absolute for |x| > 1.5n; the guide states no bound elsewhere" }, "Bessel function of the second kind, order n"],
  ynf: [{ ranges: [{ aboveOrder: 1, bound: { absolute: 2.2e-6 } }, { bound: { ulp: 2, ulpPerOrder: 2.5 } }], source: SP, note: "ceil(2 + 2.5n) ulp for |x| < n, 2.2e-6 absolute otherwise" }, "Bessel function of the second kind, order n"],
};

const FAST = {
  fast_cosf: [{ ranges: [{ domain: [-Math.PI, Math.PI], bound: { absolute: 2 ** -21.19 } }, { bound: { unbounded: true } }], source: INTR, note: "2^−21.19 absolute for x in [−π, π]; larger otherwise" }, "fast approximate cosine (__cosf)"],
  fast_sinf: [{ ranges: [{ domain: [-Math.PI, Math.PI], bound: { absolute: 2 ** -21.41 } }, { bound: { unbounded: true } }], source: INTR, note: "2^−21.41 absolute for x in [−π, π]; larger otherwise" }, "fast approximate sine (__sinf)"],
  fast_sincosf: [{ ranges: [{ domain: [-Math.PI, Math.PI], bound: { absolute: 2 ** -21.19 } }, { bound: { unbounded: true } }], source: INTR, note: "as __sinf and __cosf (2^−21.41 and 2^−21.19 absolute in [−π, π]); the looser bound applies to both results here" }, "fast approximate sine and cosine (__sincosf), as [sin, cos]"],
  fast_tanf: [{ ranges: [{ bound: { unbounded: true } }], source: INTR, note: "derived from its implementation as __sinf(x) · (1 / __cosf(x))" }, "fast approximate tangent (__tanf)"],
  fast_expf: [{ ranges: [{ bound: { ulp: 2, ulpPerAbsX: 1.173 } }], source: INTR, note: "2 + floor(|1.173 · x|) ulp" }, "fast approximate e^x (__expf)"],
  fast_exp10f: [{ ranges: [{ bound: { ulp: 2, ulpPerAbsX: 2.97 } }], source: INTR, note: "2 + floor(|2.97 · x|) ulp" }, "fast approximate 10^x (__exp10f)"],
  fast_logf: [{ ranges: [{ domain: [0.5, 2], bound: { absolute: 2 ** -21.41 } }, { bound: { ulp: 3 } }], source: INTR, note: "2^−21.41 absolute for x in [0.5, 2], otherwise 3 ulp" }, "fast approximate natural logarithm (__logf)"],
  fast_log2f: [{ ranges: [{ domain: [0.5, 2], bound: { absolute: 2 ** -22 } }, { bound: { ulp: 2 } }], source: INTR, note: "2^−22 absolute for x in [0.5, 2], otherwise 2 ulp" }, "fast approximate base-2 logarithm (__log2f)"],
  fast_log10f: [{ ranges: [{ domain: [0.5, 2], bound: { absolute: 2 ** -24 } }, { bound: { ulp: 3 } }], source: INTR, note: "2^−24 absolute for x in [0.5, 2], otherwise 3 ulp" }, "fast approximate base-10 logarithm (__log10f)"],
  fast_powf: [{ ranges: [{ bound: { unbounded: true } }], source: INTR, note: "derived from its implementation as exp2f(y · __log2f(x))" }, "fast approximate x to the power y (__powf)"],
  fast_fdividef: [{ ranges: [{ param: "y", abs: true, domain: [2 ** -126, 2 ** 126], bound: { ulp: 2 } }, { bound: { unbounded: true } }], source: INTR, note: "2 ulp for 2^−126 ≤ |y| ≤ 2^126; outside, 0 when |y| > 2^126 and x is finite" }, "fast approximate division x / y (__fdividef)"],
};

const EXACT_DOCS = {
  abs: "absolute value of a 32-bit integer (MIN stays MIN)",
  llabs: "absolute value of a 64-bit integer (MIN stays MIN)",
  brev: "reverses the bits of a 32-bit integer",
  brevll: "reverses the bits of a 64-bit integer",
  byte_perm: "selects four bytes from the eight bytes of y:x by the selector z (__byte_perm)",
  clz: "number of leading zero bits of a 32-bit integer (32 for 0)",
  clzll: "number of leading zero bits of a 64-bit integer (64 for 0)",
  ffs: "position (1-based) of the least significant set bit of a 32-bit integer, 0 for 0",
  ffsll: "position (1-based) of the least significant set bit of a 64-bit integer, 0 for 0",
  popc: "number of set bits of a 32-bit integer",
  popcll: "number of set bits of a 64-bit integer",
  hadd: "(x + y) >> 1 without overflow, signed 32-bit",
  rhadd: "(x + y + 1) >> 1 without overflow, signed 32-bit",
  uhadd: "(x + y) >> 1 without overflow, the bits read as unsigned 32-bit",
  urhadd: "(x + y + 1) >> 1 without overflow, the bits read as unsigned 32-bit",
  mulhi: "high 32 bits of the 64-bit product of two signed 32-bit integers",
  umulhi: "high 32 bits of the 64-bit product of two unsigned 32-bit integers",
  mul64hi: "high 64 bits of the 128-bit product of two signed 64-bit integers",
  umul64hi: "high 64 bits of the 128-bit product of two unsigned 64-bit integers",
  mul24: "product of the low 24 bits of x and y (sign-extended), low 32 bits of it",
  umul24: "product of the low 24 bits of x and y (unsigned), low 32 bits of it",
  sad: "|x − y| + z, signed x and y",
  usad: "|x − y| + z, the bits read as unsigned 32-bit",
  max: "larger of two signed 32-bit integers",
  min: "smaller of two signed 32-bit integers",
  umax: "larger of two 32-bit integers read as unsigned",
  umin: "smaller of two 32-bit integers read as unsigned",
  llmax: "larger of two signed 64-bit integers",
  llmin: "smaller of two signed 64-bit integers",
  ullmax: "larger of two 64-bit integers read as unsigned",
  ullmin: "smaller of two 64-bit integers read as unsigned",
  ceil: "smallest integral value not less than x", ceilf: "smallest integral value not less than x",
  floor: "largest integral value not greater than x", floorf: "largest integral value not greater than x",
  trunc: "x rounded toward zero to an integral value", truncf: "x rounded toward zero to an integral value",
  round: "x rounded to the nearest integral value, halves away from zero", roundf: "x rounded to the nearest integral value, halves away from zero",
  rint: "x rounded to the nearest integral value, halves to even (Python's round())", rintf: "x rounded to the nearest integral value, halves to even (Python's round())",
  nearbyint: "x rounded to the nearest integral value, halves to even", nearbyintf: "x rounded to the nearest integral value, halves to even",
  llrint: "x rounded to the nearest 64-bit integer, halves to even", llrintf: "x rounded to the nearest 64-bit integer, halves to even",
  llround: "x rounded to the nearest 64-bit integer, halves away from zero", llroundf: "x rounded to the nearest 64-bit integer, halves away from zero",
  fabs: "absolute value of x", fabsf: "absolute value of x",
  copysign: "x with the sign of y", copysignf: "x with the sign of y",
  fmax: "larger of x and y (the number if one is NaN)", fmaxf: "larger of x and y (the number if one is NaN)",
  fmin: "smaller of x and y (the number if one is NaN)", fminf: "smaller of x and y (the number if one is NaN)",
  fdim: "x − y if x > y, else +0", fdimf: "x − y if x > y, else +0",
  fmod: "x − trunc(x / y) · y, exactly", fmodf: "x − trunc(x / y) · y, exactly",
  remainder: "x − n · y with n = x / y rounded to nearest even, exactly", remainderf: "x − n · y with n = x / y rounded to nearest even, exactly",
  remquo: "[remainder(x, y), the sign and low 3 bits of the rounded quotient]", remquof: "[remainder(x, y), the sign and low 3 bits of the rounded quotient]",
  modf: "[fractional part, integral part] of x", modff: "[fractional part, integral part] of x",
  frexp: "[mantissa in [0.5, 1), exponent] with x = mantissa · 2^exponent", frexpf: "[mantissa in [0.5, 1), exponent] with x = mantissa · 2^exponent",
  ldexp: "x · 2^y", ldexpf: "x · 2^y",
  scalbn: "x · 2^y", scalbnf: "x · 2^y",
  nextafter: "next representable value after x toward y", nextafterf: "next representable value after x toward y",
  ilogb: "unbiased exponent of x as an integer", ilogbf: "unbiased exponent of x as an integer",
  logb: "unbiased exponent of x as a floating-point value", logbf: "unbiased exponent of x as a floating-point value",
  isnand: "1 if x is NaN, else 0", isnanf: "1 if x is NaN, else 0",
  isinfd: "1 if x is ±∞, else 0", isinff: "1 if x is ±∞, else 0",
  isfinited: "1 if x is finite, else 0", finitef: "1 if x is finite, else 0",
  signbitd: "1 if the sign bit of x is set (−0 and negative NaN included), else 0", signbitf: "1 if the sign bit of x is set (−0 and negative NaN included), else 0",
  saturatef: "x clamped to [+0, 1] (NaN → +0)",
  fma: "x · y + z with one rounding (to nearest even)", fmaf: "x · y + z with one rounding (to nearest even)",
  frsqrt_rn: "1 / √x, correctly rounded to nearest even",
  double2hiint: "high 32 bits of the bit pattern of x",
  double2loint: "low 32 bits of the bit pattern of x",
  hiloint2double: "the double whose bit pattern is x (high 32 bits) and y (low 32 bits)",
  double_as_longlong: "the bit pattern of a double as a 64-bit integer",
  longlong_as_double: "the double whose bit pattern is the 64-bit integer",
  float_as_int: "the bit pattern of a float as a 32-bit integer",
  int_as_float: "the float whose bit pattern is the 32-bit integer",
  float2half_rn: "the half-precision bit pattern of x, rounded to nearest even",
  half2float: "the float value of a half-precision bit pattern",
};

const OPS = { add: "x + y", sub: "x − y", mul: "x · y", div: "x / y", rcp: "1 / x", sqrt: "√x" };
const CTYPES = { f32: "float", f64: "double", i16: "short", i32: "int", i64: "long long" };
const TYPE_WORDS = { double: "a double", float: "a float", int: "a 32-bit integer", uint: "a 32-bit integer read as unsigned", ll: "a 64-bit integer", ull: "a 64-bit integer read as unsigned" };

export function annotate(name) {
  let m;
  if (ELEMENTARY[name]) return { family: "elementary", accuracy: ELEMENTARY[name][0], doc: ELEMENTARY[name][1] };
  if (SPECIAL[name]) return { family: "special", accuracy: SPECIAL[name][0], doc: SPECIAL[name][1] };
  if (FAST[name]) return { family: "fast", accuracy: FAST[name][0], doc: FAST[name][1] };
  if ((m = /^([df])(add|sub|mul|div|rcp|sqrt)_(r[nzud])$/.exec(name)))
    return { family: "rounding", accuracy: exact(), doc: `${OPS[m[2]]} in ${m[1] === "d" ? "double" : "single"} precision, ${MODE[m[3]]}` };
  if ((m = /^fma(f?)_(r[nzud])$/.exec(name)))
    return { family: "rounding", accuracy: exact(), doc: `x · y + z with one ${MODE[m[2]].replace("rounding", "rounding,")}`.replace("one rounding,", "one rounding") };
  if (name === "fma" || name === "fmaf" || name === "frsqrt_rn") return { family: "rounding", accuracy: exact(), doc: EXACT_DOCS[name] };
  if ((m = /^(double|float|int|uint|ll|ull)2(double|float|int|uint|ll|ull)_(r[nzud])$/.exec(name)))
    return { family: "conversion", accuracy: exact(), doc: `${TYPE_WORDS[m[1]]} converted to ${TYPE_WORDS[m[2]]}, ${MODE[m[3]]}${/int|ll/.test(m[2]) ? " (NaN → 0, out-of-range values saturate, as the GPU's cvt)" : ""}` };
  if (EXACT_DOCS[name]) {
    const family = /hiint|loint|hiloint|_as_|half/.test(name) ? "conversion"
      : /^(abs|llabs|brev|brevll|byte_perm|clz|clzll|ffs|ffsll|popc|popcll|u?r?hadd|u?mulhi|u?mul64hi|u?mul24|u?sad|u?max|u?min|u?llmax|u?llmin|ullmax|ullmin)$/.test(name) ? "integer"
      : "float";
    return { family, accuracy: exact(), doc: EXACT_DOCS[name] };
  }
  throw new Error(`no annotation for ${name}`);
}
export { CTYPES };
