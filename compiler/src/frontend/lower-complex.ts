/**
 * Lowering of complex numbers (docs/kernel-language.md#complex-numbers-c64-c128): `cuda.complex.*`
 * calls, `z.re` / `z.im`, and the guards that keep complex values away from the operators and from
 * implicit conversions (CS2022 / CS2023). The conversion lowerer, the operator lowerer and the
 * expression lowerer consult its guards first, so that every conversion, condition, operator and
 * property access passes through it.
 */
import ts from "typescript";
import { Codes } from "../diagnostics/codes";
import { makeDiagnostic } from "../diagnostics/diagnostic";
import type * as IR from "../ir/nodes";
import { BOOL, complexPart, isComplex, scalar, type ComplexDType, type DType, type ScalarType } from "../ir/types";
import { POISON, WEAK } from "./lower-base";
import type { LoweringContext } from "./lower-context";
import { stripParensAndNonNull } from "./constants";

/** `cuda.complex.<name>` taking complex operands of one dtype, by the IR intrinsic each becomes. */
const BINARY: Record<string, IR.ComplexFunction> = { add: "complexAdd", sub: "complexSub", mul: "complexMul", div: "complexDiv", eq: "complexEq" };
const UNARY: Record<string, IR.ComplexFunction> = {
  neg: "complexNeg", conj: "complexConj", exp: "complexExp", log: "complexLog", sqrt: "complexSqrt", sin: "complexSin", cos: "complexCos",
  abs: "complexAbs", arg: "complexArg",
};
/** Every kernel-side `cuda.complex` function, for the name tables (suggestions, typos). */
export const COMPLEX_FUNCTIONS: readonly string[] = ["c64", "c128", ...Object.keys(BINARY), ...Object.keys(UNARY), "rect"];

/** What to write for an operator on complex values. */
const OPERATOR_FUNCTION: Partial<Record<IR.ArithOp, string>> = { "+": "add", "-": "sub", "*": "mul", "/": "div" };

export function complexDTypeOf(e: IR.Expr): ComplexDType | undefined {
  return e.type.kind === "scalar" && isComplex(e.type.dtype) ? e.type.dtype : undefined;
}

export class ComplexLowerer {
  constructor(private readonly ctx: LoweringContext) {}

  /**
   * Complex values never convert implicitly: c64 <-> c128 and real <-> complex need a written conversion.
   * The placeholder of the reported mistake, or undefined when the conversion is not complex.
   */
  guardConversion(e: IR.Expr, dtype: DType, node?: ts.Node): IR.Expr | undefined {
    if (e.type.kind === "scalar" && e.type.dtype !== dtype && (isComplex(e.type.dtype) || isComplex(dtype))) {
      if (POISON.has(e)) return e;
      const from = e.type.dtype;
      const message = isComplex(from) && isComplex(dtype)
        ? `${from} and ${dtype} do not mix implicitly: convert with cuda.complex.${dtype}(…)`
        : isComplex(from)
          ? `a ${from} (complex) value is used where a real ${dtype} is expected: take a part (z.re, z.im) or the modulus (cuda.complex.abs(z))`
          : `a real ${from} is used where a ${dtype} (complex) value is expected: write cuda.complex.${dtype}(x) (x + 0i)`;
      this.ctx.diags.add(makeDiagnostic(Codes.ComplexMixing, node ? this.ctx.span(node) : e.span, message));
      const p: IR.ConstExpr = { k: "const", type: scalar("i32"), value: 0, span: e.span };
      POISON.add(p);
      WEAK.add(p);
      return p;
    }
    return undefined;
  }

  /** A complex value used as a condition (CS2022); undefined when `e` is not complex. */
  guardTruthy(e: IR.Expr, node: ts.Node): IR.Expr | undefined {
    const d = complexDTypeOf(e);
    if (d && !POISON.has(e)) {
      this.ctx.report(Codes.ComplexMixing, node, `a ${d} (complex) value is not a condition: test a part or the modulus, e.g. cuda.complex.abs(z) !== 0`);
      return this.ctx.weakConst(false, node);
    }
    return undefined;
  }

  /** An arithmetic operator on a complex operand (CS2023); undefined when neither operand is complex. */
  guardArith(op: IR.ArithOp, l: IR.Expr, r: IR.Expr, node: ts.Node): IR.Expr | undefined {
    if (complexDTypeOf(l) || complexDTypeOf(r)) {
      const fn = OPERATOR_FUNCTION[op];
      this.ctx.report(
        Codes.ComplexOperator,
        node,
        fn
          ? `'${op}' does not apply to complex numbers (TypeScript has no operator overloading): write cuda.complex.${fn}(a, b)`
          : `'${op}' does not apply to complex numbers: apply it to a part (z.re, z.im)`,
      );
      return this.ctx.error(node);
    }
    return undefined;
  }

  /** A comparison of complex values (CS2023); undefined when neither operand is complex. */
  guardCompare(op: IR.CompareOp, l: IR.Expr, r: IR.Expr, node: ts.Node): IR.Expr | undefined {
    if (complexDTypeOf(l) || complexDTypeOf(r)) {
      const message =
        op === "==" || op === "!="
          ? `comparing complex values with '${op === "==" ? "===" : "!=="}' compares objects in TypeScript: write ${op === "!=" ? "!" : ""}cuda.complex.eq(a, b)`
          : `complex numbers have no order ('${op}'): compare their moduli, cuda.complex.abs(a) ${op} cuda.complex.abs(b), or a part`;
      this.ctx.report(Codes.ComplexOperator, node, message);
      return this.ctx.error(node);
    }
    return undefined;
  }

  /** `-z` on a complex value (called by lowerPrefix). */
  complexNegation(e: ts.PrefixUnaryExpression): IR.Expr {
    this.ctx.report(Codes.ComplexOperator, e, `unary '-' does not apply to complex numbers: write cuda.complex.neg(${e.operand.getText(this.ctx.sf)})`);
    return this.ctx.error(e);
  }

  /** `z.re` / `z.im`, or undefined when `e` is not a part of a complex value. */
  complexPartAccess(e: ts.PropertyAccessExpression, base: IR.Expr): IR.Expr | undefined {
    const d = complexDTypeOf(base);
    if (!d) return undefined;
    const name = e.name.text;
    if (name === "re" || name === "im") return { k: "intrinsic", type: scalar(complexPart(d)), name: name === "re" ? "complexRe" : "complexIm", args: [base], span: this.ctx.span(e) };
    const numba = name === "real" ? "re" : name === "imag" ? "im" : undefined;
    this.ctx.report(Codes.UnsupportedExpression, e, `a ${d} has the parts .re and .im${numba ? ` (Numba's .${name} is .${numba})` : ""}; functions of it are cuda.complex.*`);
    return this.ctx.error(e);
  }

  /** `z.re = v` / `a[i].im = v`: the element is written whole (CS2024). Returns true when reported. */
  complexPartAssignment(t: ts.PropertyAccessExpression): boolean {
    if (t.name.text !== "re" && t.name.text !== "im") return false;
    const base = this.ctx.expr.lowerExpr(stripParensAndNonNull(t.expression));
    const d = complexDTypeOf(base);
    if (!d) return false;
    const z = t.expression.getText(this.ctx.sf);
    const whole = t.name.text === "re" ? `cuda.complex.${d}(value, ${z}.im)` : `cuda.complex.${d}(${z}.re, value)`;
    this.ctx.report(Codes.ComplexPartWrite, t, `the parts of a complex value are read-only: assign the whole value, ${z} = ${whole}`);
    return true;
  }

  /** `cuda.complex.<name>(…)`. */
  lowerComplexCall(name: string, call: ts.CallExpression): IR.Expr {
    const span = this.ctx.span(call);
    const what = `cuda.complex.${name}`;
    const known = name === "c64" || name === "c128" || name === "rect" || name in BINARY || name in UNARY;
    if (!known) {
      this.ctx.expr.reportUnknownCuda(`complex.${name}`, call.expression);
      for (const a of call.arguments) this.ctx.expr.lowerExpr(a);
      return this.ctx.error(call);
    }
    const args = call.arguments.map((a) => this.ctx.conv.scalarOperand(this.ctx.expr.lowerExpr(a), a));
    if (args.some((a) => POISON.has(a))) return this.ctx.error(call);
    const arity = name === "c64" || name === "c128" ? [1, 2] : name === "rect" || name in BINARY ? [2, 2] : [1, 1];
    const n = call.arguments.length;
    if (n < arity[0]! || n > arity[1]!) {
      this.ctx.report(Codes.WrongArgumentCount, call, `${what} takes ${arity[0] === arity[1] ? arity[0] : `${arity[0]} or ${arity[1]}`} argument${arity[1] === 1 ? "" : "s"}, got ${n}`);
      return this.ctx.error(call);
    }
    if (name === "c64" || name === "c128") {
      const d: ComplexDType = name;
      const from = complexDTypeOf(args[0]!);
      if (from) {
        if (n === 2) {
          this.ctx.report(Codes.ComplexMixing, call.arguments[0]!, `${what}(re, im) takes two real parts; to convert a complex value write ${what}(z)`);
          return this.ctx.error(call);
        }
        return from === d ? args[0]! : { k: "intrinsic", type: scalar(d), name: "complexConvert", args, span };
      }
      return this.makeComplex(d, args[0]!, args[1], call.arguments[0]!, call.arguments[1], span);
    }
    if (name === "rect") {
      // The complex number of modulus r and phase phi (Python's cmath.rect): c128 when a part is f64.
      const ds = args.filter((a) => !WEAK.has(a)).map((a) => (a.type as ScalarType).dtype);
      const d: ComplexDType = ds.includes("f64") || (ds.length < 2 && this.ctx.defaultFloat === "f64" && !ds.includes("f32")) ? "c128" : "c64";
      const part = complexPart(d);
      return { k: "intrinsic", type: scalar(d), name: "complexRect", args: args.map((a, i) => this.ctx.conv.convertTo(a, part, call.arguments[i])), span };
    }
    const dtypes = args.map(complexDTypeOf);
    const d = dtypes.find((x) => x);
    if (!d) {
      const real = UNARY[name] && name !== "neg" && name !== "conj" ? ` (for a real number, Math.${name === "arg" ? "atan2(0, x)" : name}(x))` : "";
      this.ctx.report(Codes.ComplexMixing, call, `${what} takes complex numbers: make one with cuda.complex.c64(re, im) or cuda.complex.c128(re, im)${real}`);
      return this.ctx.error(call);
    }
    if (dtypes.some((x) => x && x !== d)) {
      this.ctx.report(Codes.ComplexMixing, call, `${what} mixes c64 and c128: convert one, cuda.complex.c128(z) (or cuda.complex.c64(z), which rounds to f32)`);
      return this.ctx.error(call);
    }
    // A real operand of add/sub/mul/div/eq is the complex number x + 0i, as in Numba.
    const operands = args.map((a, i) => (dtypes[i] ? a : this.makeComplex(d, a, undefined, call.arguments[i]!, undefined, a.span)));
    const fn = BINARY[name] ?? UNARY[name]!;
    const type = fn === "complexEq" ? BOOL : fn === "complexAbs" || fn === "complexArg" ? scalar(complexPart(d)) : scalar(d);
    return { k: "intrinsic", type, name: fn, args: operands, span };
  }

  private makeComplex(d: ComplexDType, re: IR.Expr, im: IR.Expr | undefined, reNode: ts.Node, imNode: ts.Node | undefined, span: IR.Span): IR.Expr {
    const part = complexPart(d);
    const zero: IR.ConstExpr = { k: "const", type: scalar(part), value: 0, span };
    return { k: "intrinsic", type: scalar(d), name: "complex", args: [this.ctx.conv.convertTo(re, part, reNode), im ? this.ctx.conv.convertTo(im, part, imNode) : zero], span };
  }
}
