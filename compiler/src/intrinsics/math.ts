/**
 * The `Math.*` functions kernels call (and Numba's `cuda.cbrt` / `cuda.fma`): the C library's functions
 * on the GPU (`sinf` for f32, `sin` for f64; an f16 computes in f32 and rounds once), JavaScript's `Math`
 * on the simulator (rounded to f32/f16 where the result is not exact), with C's semantics where
 * JavaScript's differ (docs/kernel-language.md#semantics).
 */
import { call, P } from "../cuda/precedence";
import { param, sig, type CudaCallContext, type IntrinsicRecord, type JsCallContext } from "./record";

/** libm functions whose CUDA implementation is exact without fused multiply-adds (the rest use libdevice's, which fuse). */
const WITHOUT_LIBRARY_FMA = new Set(["sqrt", "floor", "ceil", "trunc", "rint", "round"]);

/** Functions whose f32 (f16) result of an f32 (f16) argument is exact: no rounding after the f64 computation. */
const EXACT = new Set(["floor", "ceil", "round", "trunc", "abs", "min", "max", "sign"]);

const libmSuffix = (c: CudaCallContext): string => (c.dtype === "f32" ? "f" : "");

/** JavaScript's `Math.<fn>` of the arguments, rounded to the result's precision unless exact. */
function mathJs(fn: string): (c: JsCallContext) => string {
  return (c) => rounded(c, `Math.${fn}(${c.args.join(", ")})`, EXACT.has(fn));
}

function rounded(c: JsCallContext, call: string, exact: boolean): string {
  if (c.dtype === "f32" && !exact) return `Math.fround(${call})`;
  if (c.dtype === "f16" && !exact) return `rt.f16round(${call})`;
  return call;
}

const float = (name: string) => param(name, "float");

/** A libm function of one or two floats: `name` / `namef` on the GPU, `Math.name` on the simulator. */
function libm(name: string, arity: 1 | 2, text: string, numba: string, paths = [`Math.${name}`], js = mathJs(name)): IntrinsicRecord {
  const params = arity === 1 ? [float("x")] : [float("x"), float("y")];
  const shown = params.map((p) => `${p.name}: number`).join(", ");
  return {
    name,
    paths,
    numba,
    effect: "pure",
    uniformity: "args",
    signatures: [sig("T", ...params)],
    doc: { signature: `${paths[0]}(${shown}): number`, text, cuda: `${name}f(…) / ${name}(…)` },
    half: "f32",
    ...(WITHOUT_LIBRARY_FMA.has(name) ? {} : { libraryFma: true as const }),
    cuda: (c) => call(`${name}${libmSuffix(c)}`, c.t),
    js,
  };
}

/** Rounding to a whole number: an integer argument is already whole (the front end returns it as is). */
function rounding(name: string, text: string, numba: string): IntrinsicRecord {
  return { ...libm(name, 1, text, numba), signatures: undefined, lowering: "frontend/lower-calls.ts lowerMathCall (integers pass through; Math.trunc(a / b) is integer division)" };
}

/**
 * Round half to even (C's rint in the default rounding mode). Math.round rounds halves up, so an odd
 * result exactly 0.5 above x steps back to the even one. Exact for any |x| < 2^52 (x and r are exact in
 * f64, so r - x is too), f16 and f32 values included; keeps -0 and x's sign for -0.5 → -0; NaN and
 * ±Infinity pass. On an f16 it runs on the f32 value, exact: every integer an f16 rounds to is an f16.
 */
const RINT_JS = "function $rint(x) { const r = Math.round(x); return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r; }";

/** pow(1, y) and pow(-1, ±Infinity) are 1 in C (and Numba), NaN in JavaScript. */
const POW_JS = "function $pow(x, y) { return x === 1 || (x === -1 && (y === Infinity || y === -Infinity)) ? 1 : Math.pow(x, y); }";

/** min/max of a NaN give the other operand, as C's fmin/fmax (-0 stays below +0, as Math.min). */
const minMaxJs = (fn: "min" | "max"): string => `function $f${fn}(a, b) { return a !== a ? b : b !== b ? a : Math.${fn}(a, b); }`;

function minMax(fn: "min" | "max"): IntrinsicRecord {
  return {
    name: fn,
    paths: [`Math.${fn}`],
    numba: `${fn}(a, b)`,
    effect: "pure",
    uniformity: "args",
    lowering: "frontend/lower-calls.ts lowerMathCall (one or more arguments in their common type)",
    doc: {
      signature: `Math.${fn}(...values: number[]): number`,
      text: `${fn === "min" ? "Smallest" : "Largest"} argument (one or more), in their common type. A NaN operand gives the other one (C's f${fn}).`,
      cuda: `${fn} / f${fn}f / f${fn}`,
    },
    half: "f32",
    cuda: (c) => {
      if (c.dtype !== "f32" && c.dtype !== "f64") return call(fn, c.t);
      c.helper(`f${fn}${c.dtype === "f64" ? "F64" : "F32"}`);
      return call(`cs_f${fn}`, c.t);
    },
    js: (c) => (c.dtype === "f32" || c.dtype === "f64" || c.dtype === "f16" ? `${c.helper(`$f${fn}`, minMaxJs(fn))}(${c.args.join(", ")})` : `Math.${fn}(${c.args.join(", ")})`),
  };
}

export const MATH_RECORDS: readonly IntrinsicRecord[] = [
  libm("sqrt", 1, "Square root.", "math.sqrt(x)"),
  libm("cbrt", 1, "Cube root: f32 stays f32 (`cbrtf`), f64 is `cbrt`; an integer becomes the kernel's float.", "cuda.cbrt(x) / math.cbrt(x)", ["Math.cbrt", "cuda.cbrt"]),
  libm("exp", 1, "e to the power x.", "math.exp(x)"),
  libm("expm1", 1, "e^x − 1, accurate near 0.", "math.expm1(x)"),
  libm("log", 1, "Natural logarithm.", "math.log(x)"),
  libm("log2", 1, "Base-2 logarithm.", "math.log2(x)"),
  libm("log10", 1, "Base-10 logarithm.", "math.log10(x)"),
  libm("log1p", 1, "ln(1 + x), accurate near 0.", "math.log1p(x)"),
  libm("sin", 1, "Sine (radians).", "math.sin(x)"),
  libm("cos", 1, "Cosine (radians).", "math.cos(x)"),
  libm("tan", 1, "Tangent (radians).", "math.tan(x)"),
  libm("asin", 1, "Arcsine.", "math.asin(x)"),
  libm("acos", 1, "Arccosine.", "math.acos(x)"),
  libm("atan", 1, "Arctangent.", "math.atan(x)"),
  libm("sinh", 1, "Hyperbolic sine.", "math.sinh(x)"),
  libm("cosh", 1, "Hyperbolic cosine.", "math.cosh(x)"),
  libm("tanh", 1, "Hyperbolic tangent.", "math.tanh(x)"),
  libm("asinh", 1, "Inverse hyperbolic sine.", "math.asinh(x)"),
  libm("acosh", 1, "Inverse hyperbolic cosine.", "math.acosh(x)"),
  libm("atanh", 1, "Inverse hyperbolic tangent.", "math.atanh(x)"),
  libm("atan2", 2, "Angle of the point (x, y): `Math.atan2(y, x)`.", "math.atan2(y, x)"),
  libm("hypot", 2, "√(x² + y²) without overflow (two arguments in kernels).", "math.hypot(x, y)"),
  libm("pow", 2, "x to the power y (`pow(1, y)` and `pow(-1, ±Infinity)` are 1, as in C). Prefer `x * x` for squares.", "math.pow(x, y) / x ** y", ["Math.pow"], (c) => {
    const pow = c.helper("$pow", POW_JS);
    return c.dtype === "f64" ? `${pow}(${c.args.join(", ")})` : rounded(c, `${pow}(${c.args.join(", ")})`, false);
  }),
  rounding("floor", "Largest whole number ≤ x (an integer argument is returned as is). `Math.floor(x) | 0` gives an i32.", "math.floor(x)"),
  rounding("ceil", "Smallest whole number ≥ x.", "math.ceil(x)"),
  rounding("trunc", "x with its fraction dropped. `Math.trunc(a / b)` on integers is truncating integer division.", "math.trunc(x)"),
  {
    ...rounding("round", "Nearest whole number, halves rounded up (JavaScript semantics, exactly: not `floor(x + 0.5)`).", "no exact equivalent (Python's round() rounds halves to even: cuda.libdevice.rint)"),
    doc: { signature: "Math.round(x: number): number", text: "Nearest whole number, halves rounded up (JavaScript semantics, exactly: not `floor(x + 0.5)`).", cuda: "cs_round(x)" },
    cuda: (c) => {
      // JavaScript's Math.round, exactly (floor(x + 0.5) is wrong where x + 0.5 rounds: see the helper).
      c.helper("round");
      return call("cs_round", c.t);
    },
  },
  {
    ...libm("rint", 1, "Round half to even (the default rounding mode): `cuda.fp16.hrint` on f16.", "cuda.fp16.hrint(x)", []),
    doc: { signature: "rint(x: number): number", text: "Round half to even (the default rounding mode): `cuda.fp16.hrint` on f16.", cuda: "rintf(x) / rint(x)" },
    js: (c) => `${c.helper("$rint", RINT_JS)}(${c.args[0]})`,
  },
  {
    name: "fma",
    paths: ["cuda.fma"],
    numba: "cuda.fma(a, b, c)",
    effect: "pure",
    uniformity: "args",
    signatures: [sig("T", float("a"), float("b"), float("c"))],
    doc: { signature: "cuda.fma(a: number, b: number, c: number): number", text: "`a * b + c` with a single rounding (fused multiply-add), in f16, f32 or f64.", cuda: "fmaf(a, b, c) / fma(a, b, c)" },
    feature: (_, d) => (d === "f16" ? "f16Arithmetic" : undefined),
    half: "native",
    libraryFma: true,
    cuda: (c) => (c.dtype === "f16" ? call("cs_hfma", c.t) : call(`fma${libmSuffix(c)}`, c.t)),
    js: (c) => {
      const [a, b, x] = c.args;
      if (c.dtype === "f16") return `rt.f16round(rt.fma64(${a}, ${b}, ${x}))`;
      return c.dtype === "f32" ? `Math.fround(${a} * ${b} + ${x})` : `rt.fma64(${a}, ${b}, ${x})`;
    },
  },
  {
    name: "abs",
    paths: ["Math.abs"],
    numba: "abs(x)",
    effect: "pure",
    uniformity: "args",
    lowering: "frontend/lower-calls.ts lowerMathCall (integers other than u32 compute in i32; u32 is its own absolute value)",
    doc: { signature: "Math.abs(x: number): number", text: "Absolute value; integer for integers, float for floats.", cuda: "abs / fabsf / fabs" },
    feature: (_, d) => (d === "f16" ? "f16Arithmetic" : undefined),
    half: "native",
    cuda: (c) => (c.dtype === "f16" ? call("cs_habs", c.t) : call(c.dtype === "f32" ? "fabsf" : c.dtype === "f64" ? "fabs" : "abs", c.t)),
    js: (c) => (c.dtype === "i32" ? `(Math.abs(${c.args[0]}) | 0)` : `Math.abs(${c.args[0]})`),
  },
  {
    name: "sign",
    paths: ["Math.sign"],
    numba: "numpy.sign(x)",
    effect: "pure",
    uniformity: "args",
    lowering: "frontend/lower-calls.ts lowerMathCall (as Math.abs)",
    doc: { signature: "Math.sign(x: number): number", text: "−1, 0 or 1 with the sign of x (−0 and NaN are returned as they are).", cuda: "cs_sign(x)" },
    half: "f32",
    cuda: (c) => {
      c.helper("sign");
      return call("cs_sign", c.t);
    },
    js: mathJs("sign"),
  },
  minMax("min"),
  minMax("max"),
];

/** `P` is re-exported for records built elsewhere from these helpers. */
export { P };
