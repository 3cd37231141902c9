/**
 * Complex numbers (docs/kernel-language.md#complex-numbers-c64-c128): `cuda.complex.*`, typed by
 * frontend/lower-complex.ts (a real operand is x + 0i; c64 and c128 do not mix), computed on the GPU by
 * cuda/complex.ts's inline functions and on the simulator by runtime/src/simulator/complex-math.ts, with
 * the same formulas step for step. `complex`/`complexRe`/`complexIm`/`complexConvert` are also made by
 * the front end from other syntax (`z.re`, a c64 → c128 conversion).
 */
import { complexCall } from "../cuda/complex";
import type { ComplexFunction } from "../ir/nodes";
import { P } from "../cuda/precedence";
import type { IntrinsicRecord, JsCallContext } from "./record";

/** The simulator's JavaScript of a complex function (runtime/src/simulator/complex-math.ts). */
function complexJs(name: ComplexFunction, c: JsCallContext): string {
  const result = c.dtype;
  const operand = c.argDTypes[0] ?? result;
  switch (name) {
    case "complex":
      return `rt.${result}.make(${c.args[0]}, ${c.args[1]})`;
    case "complexRect":
      return `rt.${result}.rect(${c.args[0]}, ${c.args[1]})`;
    case "complexConvert":
      return `rt.${result}.from(${c.args[0]})`;
    case "complexRe":
      return `${c.args[0]}.re`;
    case "complexIm":
      return `${c.args[0]}.im`;
    default:
      return `rt.${operand}.${name.slice("complex".length).toLowerCase()}(${c.args.join(", ")})`;
  }
}

const Z = "Z (c64 or c128)";

function complexRecord(name: ComplexFunction, path: string | undefined, params: string, result: string, text: string, numba: string): IntrinsicRecord {
  const shown = path ?? name;
  return {
    name,
    paths: path ? [`cuda.complex.${path}`] : [],
    numba,
    effect: "pure",
    uniformity: "args",
    lowering: "frontend/lower-complex.ts",
    // abs, sqrt and log use hypot, arg atan2, exp/sin/cos/rect the libm functions: libdevice's fused multiply-adds.
    ...(["complexAbs", "complexArg", "complexExp", "complexLog", "complexSqrt", "complexSin", "complexCos", "complexRect"].includes(name) ? { libraryFma: true as const } : {}),
    doc: { signature: `cuda.complex.${shown}(${params}): ${result}`, text, cuda: path === "c64" || path === "c128" ? `cs_make_${path}(re, im)` : `cs_c${shown}(…)` },
    cuda: (c) => ({ t: complexCall(name, c.dtype, c.t), p: P.primary }),
    js: (c) => complexJs(name, c),
  };
}

export const COMPLEX_RECORDS: readonly IntrinsicRecord[] = [
  // cuda.complex.c64(re, im) and .c128(re, im) both make a `complex` node (of the named dtype).
  { ...complexRecord("complex", "c64", "re: number, im = 0", "c64", "A c64 from two parts (rounded to f32), or `cuda.complex.c64(z)` converts a c128.", "numpy.complex64(complex(re, im))"), paths: ["cuda.complex.c64", "cuda.complex.c128"],
    pathDocs: { "cuda.complex.c128": { signature: "cuda.complex.c128(re: number, im = 0): c128", text: "A c128 from two parts, or `cuda.complex.c128(z)` converts a c64 exactly.", cuda: "cs_make_c128(re, im)" } },
  },
  complexRecord("complexRe", undefined, "z: Z", "f32 | f64", "The real part: `z.re`.", "z.real"),
  complexRecord("complexIm", undefined, "z: Z", "f32 | f64", "The imaginary part: `z.im`.", "z.imag"),
  complexRecord("complexConvert", undefined, "z: Z", "c64 | c128", "c64 ↔ c128 (`cuda.complex.c128(z)`, `cuda.complex.c64(z)`).", "numpy.complex128(z)"),
  complexRecord("complexAdd", "add", "a: Z, b: Z", "Z", "a + b. A real operand is x + 0i; c64 and c128 do not mix (CS2023).", "a + b"),
  complexRecord("complexSub", "sub", "a: Z, b: Z", "Z", "a − b.", "a - b"),
  complexRecord("complexMul", "mul", "a: Z, b: Z", "Z", "a · b (the schoolbook product).", "a * b"),
  complexRecord("complexDiv", "div", "a: Z, b: Z", "Z", "a / b by Smith's algorithm (no overflow of |b|²).", "a / b"),
  complexRecord("complexNeg", "neg", `z: ${Z}`, "Z", "−z.", "-z"),
  complexRecord("complexConj", "conj", `z: ${Z}`, "Z", "The complex conjugate re − im·i.", "z.conjugate()"),
  complexRecord("complexAbs", "abs", `z: ${Z}`, "f32 | f64", "The modulus |z| = hypot(re, im).", "abs(z)"),
  complexRecord("complexArg", "arg", `z: ${Z}`, "f32 | f64", "The phase atan2(im, re), in (−π, π].", "cmath.phase(z)"),
  complexRecord("complexExp", "exp", `z: ${Z}`, "Z", "e^z = e^re · (cos im + i sin im).", "cmath.exp(z)"),
  complexRecord("complexLog", "log", `z: ${Z}`, "Z", "The principal logarithm log|z| + i·arg z.", "cmath.log(z)"),
  complexRecord("complexSqrt", "sqrt", `z: ${Z}`, "Z", "The principal square root (Kahan's form; branch cut on the negative real axis).", "cmath.sqrt(z)"),
  complexRecord("complexSin", "sin", `z: ${Z}`, "Z", "sin z = sin re · cosh im + i cos re · sinh im.", "cmath.sin(z)"),
  complexRecord("complexCos", "cos", `z: ${Z}`, "Z", "cos z = cos re · cosh im − i sin re · sinh im.", "cmath.cos(z)"),
  complexRecord("complexRect", "rect", "r: number, phi: number", "c64 | c128", "The complex number of modulus r and phase phi (c128 when an argument is f64).", "cmath.rect(r, phi)"),
  complexRecord("complexEq", "eq", "a: Z, b: Z", "bool", "Whether both parts are equal (`===` on complex values would compare objects: CS2022).", "a == b"),
];
