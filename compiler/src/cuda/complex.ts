/**
 * Complex numbers in the generated CUDA C++: two small structs laid out like CUDA's float2 / double2
 * (interleaved re, im; 8- and 16-byte aligned, docs/abi.md) and inline device functions for
 * `cuda.complex.*`. cuComplex.h is not used: the CUDA 13 headers installed here do not match NVRTC 11.8,
 * and its division and modulus use other algorithms than the simulator. The formulas below are the
 * ones of runtime/src/simulator/complex-math.ts, step for step (docs/kernel-language.md lists them).
 */
import type * as IR from "../ir/nodes";

/** C++ name of each complex function of the IR (`complex` and the part reads are generated inline). */
const FUNCTIONS: Partial<Record<IR.ComplexFunction, string>> = {
  complexAdd: "cs_cadd", complexSub: "cs_csub", complexMul: "cs_cmul", complexDiv: "cs_cdiv", complexNeg: "cs_cneg", complexConj: "cs_cconj",
  complexAbs: "cs_cabs", complexArg: "cs_carg", complexExp: "cs_cexp", complexLog: "cs_clog", complexSqrt: "cs_csqrt", complexSin: "cs_csin",
  complexCos: "cs_ccos", complexEq: "cs_ceq",
};

/** The call text of a complex intrinsic whose arguments are already generated (`t`), for result dtype `d`. */
export function complexCall(name: IR.ComplexFunction, resultDtype: string, t: readonly string[]): string {
  switch (name) {
    case "complex":
      return `cs_make_${resultDtype}(${t[0]}, ${t[1]})`;
    case "complexRect":
      return `cs_crect_${resultDtype}(${t[0]}, ${t[1]})`;
    case "complexConvert":
      return `cs_to_${resultDtype}(${t[0]})`;
    case "complexRe":
      return `(${t[0]}).re`;
    case "complexIm":
      return `(${t[0]}).im`;
    default:
      return `${FUNCTIONS[name]}(${t.join(", ")})`;
  }
}

/** The functions of one complex type: `T` the struct, `F` its part type, `f` the libm suffix. */
function complexFunctions(T: string, F: string, f: string, dtype: string): string {
  const fn = (ret: string, name: string, params: string, body: string) => `static __device__ __forceinline__ __attribute__((unused)) ${ret} ${name}(${params}) { ${body} }`;
  const mk = (re: string, im: string) => `return cs_make_${dtype}(${re}, ${im});`;
  return [
    fn(T, `cs_make_${dtype}`, `${F} re, ${F} im`, `${T} z; z.re = re; z.im = im; return z;`),
    fn(T, "cs_cadd", `${T} a, ${T} b`, mk("a.re + b.re", "a.im + b.im")),
    fn(T, "cs_csub", `${T} a, ${T} b`, mk("a.re - b.re", "a.im - b.im")),
    fn(T, "cs_cmul", `${T} a, ${T} b`, mk("a.re * b.re - a.im * b.im", "a.re * b.im + a.im * b.re")),
    // Smith's algorithm: no overflow of |b|^2 for large divisors.
    fn(T, "cs_cdiv", `${T} a, ${T} b`, `if (fabs${f}(b.re) >= fabs${f}(b.im)) { const ${F} r = b.im / b.re; const ${F} d = b.re + b.im * r; ${mk("(a.re + a.im * r) / d", "(a.im - a.re * r) / d")} } const ${F} r = b.re / b.im; const ${F} d = b.re * r + b.im; ${mk("(a.re * r + a.im) / d", "(a.im * r - a.re) / d")}`),
    fn(T, "cs_cneg", `${T} a`, mk("-a.re", "-a.im")),
    fn(T, "cs_cconj", `${T} a`, mk("a.re", "-a.im")),
    fn(F, "cs_cabs", `${T} a`, `return hypot${f}(a.re, a.im);`),
    fn(F, "cs_carg", `${T} a`, `return atan2${f}(a.im, a.re);`),
    fn("bool", "cs_ceq", `${T} a, ${T} b`, `return a.re == b.re && a.im == b.im;`),
    fn(T, "cs_cexp", `${T} a`, `const ${F} e = exp${f}(a.re); ${mk(`e * cos${f}(a.im)`, `e * sin${f}(a.im)`)}`),
    fn(T, "cs_clog", `${T} a`, mk(`log${f}(hypot${f}(a.re, a.im))`, `atan2${f}(a.im, a.re)`)),
    // Kahan's form: the root with re >= 0, the sign of im kept (sqrt(-4 - 0i) = 0 - 2i).
    fn(T, "cs_csqrt", `${T} a`, `if (a.re == 0 && a.im == 0) ${mk("0", "a.im")} const ${F} t = sqrt${f}((fabs${f}(a.re) + hypot${f}(a.re, a.im)) * (${F})0.5); if (a.re >= 0) ${mk("t", "a.im / (t + t)")} ${mk("fabs" + f + "(a.im) / (t + t)", "copysign" + f + "(t, a.im)")}`),
    fn(T, "cs_csin", `${T} a`, mk(`sin${f}(a.re) * cosh${f}(a.im)`, `cos${f}(a.re) * sinh${f}(a.im)`)),
    fn(T, "cs_ccos", `${T} a`, mk(`cos${f}(a.re) * cosh${f}(a.im)`, `-(sin${f}(a.re) * sinh${f}(a.im))`)),
    fn(T, `cs_crect_${dtype}`, `${F} r, ${F} phi`, mk(`r * cos${f}(phi)`, `r * sin${f}(phi)`)),
  ].join("\n");
}

/** The prelude helper: both structs, their functions and the conversions between them. */
export const COMPLEX_PRELUDE = `/* Complex numbers (c64, c128): interleaved parts like float2 / double2 (see compiler/src/cuda/complex.ts). */
struct __align__(8) cs_c64 { float re, im; };
struct __align__(16) cs_c128 { double re, im; };
${complexFunctions("cs_c64", "float", "f", "c64")}
${complexFunctions("cs_c128", "double", "", "c128")}
static __device__ __forceinline__ __attribute__((unused)) cs_c128 cs_to_c128(cs_c64 a) { return cs_make_c128((double)a.re, (double)a.im); }
static __device__ __forceinline__ __attribute__((unused)) cs_c64 cs_to_c64(cs_c128 a) { return cs_make_c64((float)a.re, (float)a.im); }`;

/** Whether generated code mentions a complex type (then it needs COMPLEX_PRELUDE). */
export function usesComplex(text: string): boolean {
  return /\bcs_c(64|128)\b/.test(text);
}
