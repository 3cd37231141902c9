/**
 * Numba's `cuda.fp16` functions (hadd, hsub, …, hsin, hsqrt, …), camelCased under `cuda.fp16.*`. Each
 * is an ordinary f16 operation of the IR (a binary operator, a comparison, a Math intrinsic), so every
 * backend computes it exactly as it computes `a + b` or `Math.sqrt(h)` on f16 values.
 */
import type * as IR from "../ir/nodes";

export type Fp16Lowering =
  | { readonly kind: "arith"; readonly op: "+" | "-" | "*" | "/"; readonly arity: 2 }
  | { readonly kind: "compare"; readonly op: IR.CompareOp; readonly arity: 2 }
  | { readonly kind: "neg"; readonly arity: 1 }
  | { readonly kind: "intrinsic"; readonly name: IR.IntrinsicName; readonly arity: 1 | 2 | 3 }
  /** `base ** x` (hexp2, hexp10): Math.pow with a constant base. */
  | { readonly kind: "powOf"; readonly base: number; readonly arity: 1 }
  /** `1 / f(x)`: hrcp (f = identity) and hrsqrt (f = sqrt, computed in f32), rounded once to f16. */
  | { readonly kind: "reciprocal"; readonly of?: IR.IntrinsicName; readonly arity: 1 };

const arith = (op: "+" | "-" | "*" | "/"): Fp16Lowering => ({ kind: "arith", op, arity: 2 });
const compare = (op: IR.CompareOp): Fp16Lowering => ({ kind: "compare", op, arity: 2 });
const math = (name: IR.IntrinsicName, arity: 1 | 2 | 3 = 1): Fp16Lowering => ({ kind: "intrinsic", name, arity });

/** `cuda.fp16.<name>` → its lowering. Numba's names, which are already camelCase-free single words. */
export const FP16_FUNCTIONS: ReadonlyMap<string, Fp16Lowering> = new Map<string, Fp16Lowering>([
  ["hadd", arith("+")],
  ["hsub", arith("-")],
  ["hmul", arith("*")],
  ["hdiv", arith("/")],
  ["hfma", math("fma", 3)],
  ["hneg", { kind: "neg", arity: 1 }],
  ["habs", math("abs")],
  ["heq", compare("==")],
  ["hne", compare("!=")],
  ["hge", compare(">=")],
  ["hgt", compare(">")],
  ["hle", compare("<=")],
  ["hlt", compare("<")],
  ["hmax", math("max", 2)],
  ["hmin", math("min", 2)],
  ["hsin", math("sin")],
  ["hcos", math("cos")],
  ["hlog", math("log")],
  ["hlog10", math("log10")],
  ["hlog2", math("log2")],
  ["hexp", math("exp")],
  ["hexp10", { kind: "powOf", base: 10, arity: 1 }],
  ["hexp2", { kind: "powOf", base: 2, arity: 1 }],
  ["hsqrt", math("sqrt")],
  ["hrsqrt", { kind: "reciprocal", of: "sqrt", arity: 1 }],
  ["hfloor", math("floor")],
  ["hceil", math("ceil")],
  ["htrunc", math("trunc")],
  ["hrint", math("rint")],
  ["hrcp", { kind: "reciprocal", arity: 1 }],
]);
