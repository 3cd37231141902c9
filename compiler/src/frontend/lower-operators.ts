/**
 * Lowering of operators with JavaScript's semantics and weak literal typing: unary and binary
 * operators, integer division patterns, i64/u64 arithmetic, comparisons, `?:` (and `cuda.selp`).
 * Complex operands are refused first (lower-complex.ts); `?:` between arrays is an array variable's
 * choice (lower-array-vars.ts).
 */
import ts from "typescript";
import { Codes } from "../diagnostics/codes";
import type * as IR from "../ir/nodes";
import { BOOL, I32, U32, F64, isComplex, isFloat, isInt, isInt64, scalar, type IntDType, type ScalarType } from "../ir/types";
import { isIntDivisionPattern, stripParensAndNonNull } from "./constants";
import { bigintLiteralValue } from "./int64-constants";
import { isPure } from "../ir/visit";
import { ASSIGNMENT_OPS, INTEGER_TRUE_DIVISION, mixedSignedness, POISON, promoteForArith, WEAK } from "./lower-base";
import type { LoweringContext } from "./lower-context";

export const ARITH_OPS = new Map<ts.SyntaxKind, IR.ArithOp>([
  [ts.SyntaxKind.PlusToken, "+"],
  [ts.SyntaxKind.MinusToken, "-"],
  [ts.SyntaxKind.AsteriskToken, "*"],
  [ts.SyntaxKind.SlashToken, "/"],
  [ts.SyntaxKind.PercentToken, "%"],
  [ts.SyntaxKind.AmpersandToken, "&"],
  [ts.SyntaxKind.BarToken, "|"],
  [ts.SyntaxKind.CaretToken, "^"],
  [ts.SyntaxKind.LessThanLessThanToken, "<<"],
  [ts.SyntaxKind.GreaterThanGreaterThanToken, ">>"],
  [ts.SyntaxKind.GreaterThanGreaterThanGreaterThanToken, ">>>"],
]);

export const COMPARE_OPS = new Map<ts.SyntaxKind, IR.CompareOp>([
  [ts.SyntaxKind.LessThanToken, "<"],
  [ts.SyntaxKind.LessThanEqualsToken, "<="],
  [ts.SyntaxKind.GreaterThanToken, ">"],
  [ts.SyntaxKind.GreaterThanEqualsToken, ">="],
  [ts.SyntaxKind.EqualsEqualsEqualsToken, "=="],
  [ts.SyntaxKind.EqualsEqualsToken, "=="],
  [ts.SyntaxKind.ExclamationEqualsEqualsToken, "!="],
  [ts.SyntaxKind.ExclamationEqualsToken, "!="],
]);


export function isBoolish(e: IR.Expr): boolean {
  return e.type.kind === "scalar" && e.type.dtype === "bool";
}

export function foldArith(op: IR.ArithOp, a: number, b: number): number | undefined {
  switch (op) {
    case "+":
      return a + b;
    case "-":
      return a - b;
    case "*":
      return a * b;
    case "/":
      return a / b;
    case "%":
      return a % b;
    case "&":
      return a & b;
    case "|":
      return a | b;
    case "^":
      return a ^ b;
    case "<<":
      return a << b;
    case ">>":
      return a >> b;
    case ">>>":
      return a >>> b;
  }
}

export class OperatorLowerer {
  constructor(private readonly ctx: LoweringContext) {}

  lowerPrefix(e: ts.PrefixUnaryExpression): IR.Expr {
    const span = this.ctx.span(e);
    switch (e.operator) {
      case ts.SyntaxKind.PlusPlusToken:
      case ts.SyntaxKind.MinusMinusToken:
        this.ctx.report(Codes.EmbeddedAssignment, e, `'${e.getText(this.ctx.sf)}' changes a variable inside an expression: do it on its own line before or after`);
        return this.ctx.expr.lowerExpr(e.operand);
      case ts.SyntaxKind.ExclamationToken: {
        const v = this.ctx.conv.truthy(this.ctx.expr.lowerExpr(e.operand), e.operand);
        return { k: "unary", type: BOOL, op: "!", operand: v, span };
      }
      case ts.SyntaxKind.PlusToken: {
        const v = this.ctx.expr.lowerExpr(e.operand);
        if (v.type.kind === "scalar" && isInt64(v.type.dtype) && !POISON.has(v)) {
          this.ctx.report(Codes.Int64Operation, e, `unary + does not convert a bigint (it throws a TypeError): write Number(${e.operand.getText(this.ctx.sf)})`);
          return this.ctx.error(e);
        }
        return v;
      }
      case ts.SyntaxKind.MinusToken: {
        // `-9223372036854775808n` is the least i64, not the negation of a u64 2^63.
        const literal = stripParensAndNonNull(e.operand);
        if (ts.isBigIntLiteral(literal)) return this.ctx.weakConst(-bigintLiteralValue(literal), e);
        const v = this.ctx.conv.scalarOperand(this.ctx.expr.lowerExpr(e.operand), e.operand);
        const t = v.type as ScalarType;
        if (isComplex(t.dtype)) return this.ctx.complex.complexNegation(e);
        const dtype = t.dtype === "bool" ? "i32" : isInt(t.dtype) ? promoteForArith(t.dtype) : t.dtype;
        return { k: "unary", type: scalar(dtype), op: "-", operand: this.ctx.conv.convertTo(v, dtype), span };
      }
      case ts.SyntaxKind.TildeToken: {
        const o = this.ctx.conv.scalarOperand(this.ctx.expr.lowerExpr(e.operand), e.operand);
        if (o.type.kind === "scalar" && isInt64(o.type.dtype)) return { k: "unary", type: o.type, op: "~", operand: o, span };
        const v = this.ctx.conv.toInt32Operand(o, e.operand);
        return { k: "unary", type: I32, op: "~", operand: v, span };
      }
    }
    return this.ctx.error(e);
  }

  lowerBinary(e: ts.BinaryExpression): IR.Expr {
    const op = e.operatorToken.kind;
    const span = this.ctx.span(e);
    if (ASSIGNMENT_OPS.has(op)) {
      this.ctx.report(Codes.EmbeddedAssignment, e, "an assignment inside an expression is not supported in kernels: assign on its own line first");
      return this.ctx.expr.lowerExpr(e.right);
    }
    if (op === ts.SyntaxKind.CommaToken) {
      this.ctx.report(Codes.UnsupportedExpression, e, "the comma operator is not supported in kernels: write separate statements");
      return this.ctx.error(e);
    }
    if (op === ts.SyntaxKind.AsteriskAsteriskToken) {
      this.ctx.report(Codes.UnsupportedOperator, e.operatorToken, `'**' is not supported in kernels: write Math.pow(${e.left.getText(this.ctx.sf)}, ${e.right.getText(this.ctx.sf)}) (or x * x for a square)`);
      return this.ctx.error(e);
    }
    if (op === ts.SyntaxKind.InKeyword || op === ts.SyntaxKind.InstanceOfKeyword || op === ts.SyntaxKind.QuestionQuestionToken) {
      this.ctx.expr.lowerExpr(e.left);
      this.ctx.expr.lowerExpr(e.right);
      this.ctx.report(Codes.UnsupportedOperator, e.operatorToken, `'${e.operatorToken.getText(this.ctx.sf)}' is not supported in kernels`);
      return this.ctx.error(e);
    }
    if (op === ts.SyntaxKind.AmpersandAmpersandToken || op === ts.SyntaxKind.BarBarToken) {
      const l = this.ctx.expr.lowerExpr(e.left), r = this.ctx.expr.lowerExpr(e.right);
      const lop = op === ts.SyntaxKind.AmpersandAmpersandToken ? "&&" : "||";
      if (isBoolish(l) && isBoolish(r))
        return { k: "logical", type: BOOL, op: lop, left: this.ctx.conv.truthy(l, e.left), right: this.ctx.conv.truthy(r, e.right), span };
      // Value semantics of JavaScript's && / || on numbers: `a || b` is `a ? a : b`.
      if (!isPure(l)) {
        this.ctx.report(Codes.UnsupportedExpression, e, `use ${lop} on conditions, or write an explicit ?: expression`);
        return this.ctx.error(e);
      }
      const t = this.ctx.conv.unifyArith(l, r);
      const cond = this.ctx.conv.truthy(l, e.left);
      return lop === "||" ? { k: "select", type: scalar(t.dtype), cond, then: t.l, else: t.r, span } : { k: "select", type: scalar(t.dtype), cond, then: t.r, else: t.l, span };
    }
    const cmp = COMPARE_OPS.get(op);
    if (cmp) {
      const l = this.ctx.conv.scalarOperand(this.ctx.expr.lowerExpr(e.left), e.left), r = this.ctx.conv.scalarOperand(this.ctx.expr.lowerExpr(e.right), e.right);
      return this.compare(cmp, l, r, e);
    }
    const arith = ARITH_OPS.get(op);
    if (arith) {
      if (isIntDivisionPattern(e)) {
        const div = stripParensAndNonNull(e.left) as ts.BinaryExpression;
        const q = this.integerDivision(div, e);
        if (q) return q.type.kind === "scalar" && q.type.dtype === "i32" ? q : this.ctx.conv.convertTo(q, "i32");
      }
      const l = this.ctx.expr.lowerExpr(e.left), r = this.ctx.expr.lowerExpr(e.right);
      return this.arith(arith, l, r, e);
    }
    this.ctx.report(Codes.UnsupportedOperator, e.operatorToken, `'${e.operatorToken.getText(this.ctx.sf)}' is not supported in kernels`);
    return this.ctx.error(e);
  }

  /** `a / b` on integers, from `(a / b) | 0` or `Math.trunc(a / b)`: truncating integer division. */
  integerDivision(div: ts.BinaryExpression, node: ts.Node): IR.Expr | undefined {
    const l = this.ctx.expr.lowerExpr(div.left), r = this.ctx.expr.lowerExpr(div.right);
    if (l.type.kind !== "scalar" || r.type.kind !== "scalar") return undefined;
    const ld = l.type.dtype, rd = r.type.dtype;
    // bigint `/` already truncates; `(a / b) | 0` on bigints is the mix TypeScript refuses (CS2018 from `|`).
    if (isInt64(ld) || isInt64(rd)) return undefined;
    if (!(isInt(ld) || ld === "bool") || !(isInt(rd) || rd === "bool")) return this.arith("/", l, r, div);
    if (r.k === "const" && r.value === 0) {
      this.ctx.report(Codes.DivisionByZero, div.right, "integer division by zero");
    }
    const lw = WEAK.has(l), rw = WEAK.has(r);
    let dtype: IntDType;
    if (lw && !rw) dtype = promoteForArith(rd as IntDType);
    else if (rw && !lw) dtype = promoteForArith(ld as IntDType);
    else {
      const pl = promoteForArith(ld as IntDType), pr = promoteForArith(rd as IntDType);
      if (pl !== pr) {
        // Mixed signedness: JavaScript divides the real values; so do we, exactly, in f64.
        const q = { k: "binary", type: scalar("f64"), op: "/", left: this.ctx.conv.convertTo(l, "f64"), right: this.ctx.conv.convertTo(r, "f64"), span: this.ctx.span(div) } as IR.BinaryExpr;
        return { k: "intrinsic", type: scalar("f64"), name: "trunc", args: [q], span: this.ctx.span(node) };
      }
      dtype = pl;
    }
    return { k: "binary", type: scalar(dtype), op: "/", left: this.ctx.conv.convertTo(l, dtype), right: this.ctx.conv.convertTo(r, dtype), span: this.ctx.span(div) };
  }

  arith(op: IR.ArithOp, l0: IR.Expr, r0: IR.Expr, node: ts.Node): IR.Expr {
    const complex = this.ctx.complex.guardArith(op, l0, r0, node);
    if (complex) return complex;
    // An operand already reported poisons the result: its placeholder type must not earn more diagnostics.
    if (POISON.has(l0) || POISON.has(r0)) return this.ctx.error(node);
    const span = this.ctx.span(node);
    const l = this.ctx.conv.scalarOperand(l0, node), r = this.ctx.conv.scalarOperand(r0, node);
    if (this.ctx.conv.reportInt64Mixing(l, r, node) || ((op === "/" || op === "%" || op === ">>") && this.reportSignMixing64(l, r, node))) return this.ctx.error(node);
    if (isInt64((l.type as ScalarType).dtype)) return this.arith64(op, l, r, node);
    if (l.k === "const" && r.k === "const" && WEAK.has(l) && WEAK.has(r)) {
      // Both constant (e.g. after inlining a const): fold like JavaScript.
      const v = foldArith(op, Number(l.value), Number(r.value));
      if (v !== undefined) {
        const folded = this.ctx.weakConst(v, node, (l.type as ScalarType).dtype !== "f32" && (l.type as ScalarType).dtype !== "f64" && Number.isInteger(v) && op !== "/");
        if (op === "/" && Number.isInteger(Number(l.value)) && Number.isInteger(Number(r.value))) INTEGER_TRUE_DIVISION.add(folded.span);
        return folded;
      }
    }
    switch (op) {
      case "&":
      case "|":
      case "^":
      case "<<":
      case ">>":
        // JavaScript's bitwise operators work on ToInt32 of their operands and give an i32.
        return { k: "binary", type: I32, op, left: this.ctx.conv.convertTo(l, "i32"), right: op === "<<" || op === ">>" ? this.ctx.conv.shiftCount(r) : this.ctx.conv.convertTo(r, "i32"), span };
      case ">>>":
        return { k: "binary", type: U32, op, left: this.ctx.conv.convertTo(l, "u32"), right: this.ctx.conv.shiftCount(r), span };
      case "/": {
        // True division as in JavaScript: integers divide as floats (the kernel's float type).
        let { dtype, l: a, r: b } = this.ctx.conv.unifyArith(l, r, node);
        if (!isFloat(dtype)) {
          dtype = this.ctx.defaultFloat;
          a = this.ctx.conv.convertTo(a, dtype);
          b = this.ctx.conv.convertTo(b, dtype);
          INTEGER_TRUE_DIVISION.add(span);
        }
        this.ctx.conv.noteF64(dtype, node);
        return { k: "binary", type: scalar(dtype), op, left: a, right: b, span };
      }
      default: {
        let { dtype, l: a, r: b } = this.ctx.conv.unifyArith(l, r, node);
        if (dtype === "bool" || (isInt(dtype) && dtype !== "i32" && dtype !== "u32")) {
          dtype = dtype === "bool" ? "i32" : promoteForArith(dtype as IntDType);
          a = this.ctx.conv.convertTo(a, dtype);
          b = this.ctx.conv.convertTo(b, dtype);
        }
        this.ctx.conv.noteF64(dtype, node);
        return { k: "binary", type: scalar(dtype), op, left: a, right: b, span };
      }
    }
  }

  /** i64/u64 arithmetic: every operator keeps the operands' 64-bit type, as bigint arithmetic does. */
  private arith64(op: IR.ArithOp, l: IR.Expr, r: IR.Expr, node: ts.Node): IR.Expr {
    if (op === ">>>") {
      this.ctx.report(Codes.Int64Operation, node, "bigints have no >>> (TypeScript refuses it): write >> (on a u64 it shifts in zeros; for an i64 write BigInt.asUintN(64, x) >> n)");
      return this.ctx.error(node);
    }
    const { dtype, l: a, r: b } = this.ctx.conv.unifyArith(l, r);
    if (r.k === "const" && (op === "/" || op === "%") && (r.value === 0n || r.value === 0)) this.ctx.report(Codes.DivisionByZero, node, "integer division by zero");
    return { k: "binary", type: scalar(dtype), op, left: a, right: b, span: this.ctx.span(node) };
  }

  /**
   * i64 next to u64 (neither a literal) where the two readings differ: TypeScript has one bigint type
   * (-1n < 5n), CUDA C++ converts the i64 to u64 (huge). For + - * & | ^ << the low 64 bits agree, so
   * those compute in u64 without complaint; comparisons, / % and >> need an explicit conversion.
   */
  reportSignMixing64(l: IR.Expr, r: IR.Expr, node: ts.Node): boolean {
    if (WEAK.has(l) || WEAK.has(r) || l.type.kind !== "scalar" || r.type.kind !== "scalar") return false;
    const a = l.type.dtype, b = r.type.dtype;
    if (!isInt64(a) || !isInt64(b) || a === b) return false;
    this.ctx.report(Codes.Int64Mixing, node, `an i64 and a u64 cannot be mixed: convert one first, BigInt.asUintN(64, x) to u64 or BigInt.asIntN(64, x) to i64`);
    return true;
  }

  compare(op: IR.CompareOp, l: IR.Expr, r: IR.Expr, node: ts.Node): IR.Expr {
    const complex = this.ctx.complex.guardCompare(op, l, r, node);
    if (complex) return complex;
    if (POISON.has(l) || POISON.has(r)) return this.ctx.error(node);
    const span = this.ctx.span(node);
    const lt = (l.type as ScalarType).dtype, rt = (r.type as ScalarType).dtype;
    if (lt === "bool" && rt === "bool") return { k: "compare", type: BOOL, op, operandType: BOOL, left: l, right: r, span };
    if (this.ctx.conv.reportInt64Mixing(l, r, node) || this.reportSignMixing64(l, r, node)) return this.ctx.error(node);
    if (mixedSignedness(l, r)) {
      // i32 vs u32: compare the mathematical values, as JavaScript does (C would convert the i32 to
      // u32). f64 holds both exactly; the original operands are widened, never converted to u32 first.
      return { k: "compare", type: BOOL, op, operandType: F64, left: this.ctx.conv.convertTo(l, "f64"), right: this.ctx.conv.convertTo(r, "f64"), span };
    }
    let { dtype, l: a, r: b } = this.ctx.conv.unifyArith(l, r, node);
    if (dtype === "bool") dtype = "i32";
    a = this.ctx.conv.convertTo(a, dtype);
    b = this.ctx.conv.convertTo(b, dtype);
    return { k: "compare", type: BOOL, op, operandType: scalar(dtype), left: a, right: b, span };
  }

  lowerConditional(e: ts.ConditionalExpression): IR.Expr {
    return this.lowerSelect(e, e.condition, e.whenTrue, e.whenFalse, "?:");
  }

  /**
   * `condition ? whenTrue : whenFalse`, also spelt `cuda.selp(condition, whenTrue, whenFalse)` (`what`
   * names the spelling in messages): one typing rule and one IR select for both, so every backend
   * evaluates only the chosen operand for either spelling.
   */
  lowerSelect(e: ts.Node, condition: ts.Expression, whenTrue: ts.Expression, whenFalse: ts.Expression, what: string): IR.Expr {
    return this.ctx.arrayVars.lowerSelect(e, condition, whenTrue, whenFalse, what, () => this.lowerValueSelect(e, condition, whenTrue, whenFalse, what));
  }

  /** `?:` / `cuda.selp` between two values (not a choice between arrays). */
  private lowerValueSelect(e: ts.Node, condition: ts.Expression, whenTrue: ts.Expression, whenFalse: ts.Expression, what: string): IR.Expr {
    const cond = this.ctx.conv.lowerCondition(condition);
    const a = this.ctx.expr.lowerExpr(whenTrue), b = this.ctx.expr.lowerExpr(whenFalse);
    if (a.type.kind === "array" || b.type.kind === "array") {
      const c = condition.getText(this.ctx.sf), x = whenTrue.getText(this.ctx.sf), y = whenFalse.getText(this.ctx.sf);
      const instead = what === "?:" ? `${c} ? ${x}[i] : ${y}[i]` : `${what}(${c}, ${x}[i], ${y}[i])`;
      this.ctx.report(Codes.TypeMismatch, e, `${what} chooses between two arrays (named arrays or array variables) or between two values, not between an array and something else: choose the element instead, ${instead}`);
      return this.ctx.error(e);
    }
    if (a.type.kind !== "scalar" || b.type.kind !== "scalar") {
      this.ctx.report(Codes.TypeMismatch, e, `both ${what === "?:" ? "branches of ?:" : `values of ${what}`} must be numbers or booleans in kernels`);
      return this.ctx.error(e);
    }
    const span = this.ctx.span(e);
    if (a.type.dtype === "bool" && b.type.dtype === "bool") return { k: "select", type: BOOL, cond, then: a, else: b, span };
    if (this.ctx.conv.reportInt64Mixing(a, b, e)) return this.ctx.error(e);
    const t = this.ctx.conv.unifyArith(a, b, e);
    const r: IR.SelectExpr = { k: "select", type: scalar(t.dtype), cond, then: t.l, else: t.r, span };
    if (WEAK.has(a) && WEAK.has(b)) WEAK.add(r);
    return r;
  }

}
