/**
 * Lowering of expressions: literals and names, operators with JavaScript's semantics and weak
 * literal typing, element and shape access, and `cuda.*` properties. Calls are in lower-calls.ts.
 */
import ts from "typescript";
import { Codes } from "../diagnostics/codes";
import type * as IR from "../ir/nodes";
import { BOOL, I32, U32, F64, isComplex, isFloat, isInt, isInt64, scalar, typeToString, type ArrayType, type DType, type IntDType, type ScalarType } from "../ir/types";
import { isIntDivisionPattern, isIntegerLiteralText, MATH_CONSTANTS, stripParensAndNonNull } from "./constants";
import { isCudaReference } from "./module-info";
import { bigintLiteralValue } from "./int64-constants";
import { forEachChild, isPure } from "../ir/visit";
import { KNOWN_CUDA_FUNCTIONS, unknownCudaName } from "./cuda-names";
import { ASSIGNMENT_OPS, containsAssignment, INTEGER_TRUE_DIVISION, LowererBase, mixedSignedness, POISON, promoteForArith, ROUNDING_MATH, WEAK } from "./lower-base";

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

export const ARRAY_METHODS = new Set([
  "map", "forEach", "reduce", "filter", "fill", "push", "pop", "shift", "unshift", "slice", "subarray", "splice", "set",
  "indexOf", "includes", "find", "findIndex", "sort", "reverse", "join", "concat", "every", "some", "at", "copyWithin",
  "entries", "keys", "values", "lastIndexOf", "reduceRight", "toString", "findLast", "findLastIndex", "with", "toSorted", "toReversed",
]);

// ───────────────────────── helpers ─────────────────────────

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

export abstract class ExpressionLowerer extends LowererBase {

  lowerExpr(e: ts.Expression): IR.Expr {
    // Constant expressions fold first (`TPB >> 1`, `2 * Math.PI`), keeping literal weakness.
    if (!ts.isIdentifier(e) || this.lookup(e.text)?.k !== "var") {
      const kind = e.kind;
      if (
        kind === ts.SyntaxKind.NumericLiteral ||
        kind === ts.SyntaxKind.BigIntLiteral ||
        kind === ts.SyntaxKind.BinaryExpression ||
        kind === ts.SyntaxKind.PrefixUnaryExpression ||
        kind === ts.SyntaxKind.Identifier ||
        kind === ts.SyntaxKind.ParenthesizedExpression ||
        kind === ts.SyntaxKind.PropertyAccessExpression ||
        kind === ts.SyntaxKind.TrueKeyword ||
        kind === ts.SyntaxKind.FalseKeyword
      ) {
        if (ts.isIdentifier(e)) {
          const b = this.lookup(e.text);
          if (b?.k === "const") return this.constExpr(b.value, e, b.dtype);
        }
        if (!containsAssignment(e)) {
          const before = this.diags.list.length;
          const c = this.foldConst(e);
          // An overflowing constant was reported where it is computed: do not build on its value.
          if (c && this.diags.list.slice(before).some((d) => d.code === Codes.ConstantOverflow.code)) return this.error(e);
          if (c) return this.constExpr(c, e);
        }
      }
    }
    switch (e.kind) {
      case ts.SyntaxKind.ParenthesizedExpression:
      case ts.SyntaxKind.NonNullExpression:
      case ts.SyntaxKind.SatisfiesExpression:
        return this.lowerExpr((e as ts.ParenthesizedExpression).expression);
      case ts.SyntaxKind.AsExpression:
      case ts.SyntaxKind.TypeAssertionExpression:
        return this.lowerExpr((e as ts.AsExpression).expression);
      case ts.SyntaxKind.NumericLiteral:
        return this.weakConst(Number((e as ts.NumericLiteral).text.replace(/_/g, "")), e, isIntegerLiteralText((e as ts.NumericLiteral).text));
      case ts.SyntaxKind.TrueKeyword:
      case ts.SyntaxKind.FalseKeyword:
        return this.weakConst(e.kind === ts.SyntaxKind.TrueKeyword, e);
      case ts.SyntaxKind.Identifier:
        return this.lowerIdentifier(e as ts.Identifier);
      case ts.SyntaxKind.BinaryExpression:
        return this.lowerBinary(e as ts.BinaryExpression);
      case ts.SyntaxKind.PrefixUnaryExpression:
        return this.lowerPrefix(e as ts.PrefixUnaryExpression);
      case ts.SyntaxKind.PostfixUnaryExpression:
        this.report(Codes.EmbeddedAssignment, e, `'${e.getText(this.sf)}' changes a variable inside an expression: do it on its own line (${(e as ts.PostfixUnaryExpression).operand.getText(this.sf)} += 1) before or after`);
        return this.lowerExpr((e as ts.PostfixUnaryExpression).operand);
      case ts.SyntaxKind.ConditionalExpression:
        return this.lowerConditional(e as ts.ConditionalExpression);
      case ts.SyntaxKind.ElementAccessExpression: {
        const shape = this.lowerShapeAccess(e as ts.ElementAccessExpression);
        if (shape) return shape;
        const r = this.lowerElementAccess(e as ts.ElementAccessExpression);
        if (!r) return this.error(e);
        if (r.type.kind === "array") {
          const arr = r.type;
          this.report(Codes.WrongIndexCount, e, `${e.getText(this.sf)} is a row of a ${arr.rank + 1}-D array: index every dimension, e.g. ${e.getText(this.sf)}[j]`);
          return this.error(e);
        }
        return r;
      }
      case ts.SyntaxKind.PropertyAccessExpression:
        return this.lowerPropertyAccess(e as ts.PropertyAccessExpression);
      case ts.SyntaxKind.CallExpression:
        return this.lowerCall(e as ts.CallExpression);
      case ts.SyntaxKind.StringLiteral:
      case ts.SyntaxKind.NoSubstitutionTemplateLiteral:
      case ts.SyntaxKind.TemplateExpression:
      case ts.SyntaxKind.TaggedTemplateExpression:
        this.report(Codes.UnsupportedString, e, "strings are not supported in kernels (only as console.log arguments): use numbers, e.g. an error code");
        return this.error(e);
      case ts.SyntaxKind.ObjectLiteralExpression:
        this.report(Codes.UnsupportedLiteral, e, "object literals are not supported in kernels: use separate scalar variables or typed-array parameters");
        return this.error(e);
      case ts.SyntaxKind.ArrayLiteralExpression:
        this.report(Codes.UnsupportedLiteral, e, "array literals are not supported in kernels: use cuda.local.array(n, dtype) for a per-thread array");
        return this.error(e);
      case ts.SyntaxKind.NewExpression:
        this.report(Codes.UnsupportedNew, e, "kernels cannot allocate: use cuda.local.array(n, dtype) (per thread) or cuda.shared.array(n, dtype) (per block) with a constant size, or pass a device array");
        return this.error(e);
      case ts.SyntaxKind.ThisKeyword:
        this.report(Codes.UnsupportedClass, e, "`this` is not available in kernels: pass what you need as parameters");
        return this.error(e);
      case ts.SyntaxKind.ArrowFunction:
      case ts.SyntaxKind.FunctionExpression:
        this.report(Codes.NestedFunction, e, "functions cannot be created inside kernels: declare it at module level as const f = cuda.device((…) => …)");
        return this.error(e);
      case ts.SyntaxKind.AwaitExpression:
      case ts.SyntaxKind.YieldExpression:
        this.report(Codes.UnsupportedAsync, e, `'${e.kind === ts.SyntaxKind.AwaitExpression ? "await" : "yield"}' is not supported in kernels: kernels run to completion`);
        return this.error(e);
      case ts.SyntaxKind.TypeOfExpression:
      case ts.SyntaxKind.DeleteExpression:
      case ts.SyntaxKind.VoidExpression:
        this.report(Codes.UnsupportedExpression, e, `'${e.getText(this.sf).split(/[\s(]/)[0]}' is not supported in kernels`);
        return this.error(e);
      case ts.SyntaxKind.SpreadElement:
        this.report(Codes.UnsupportedExpression, e, "spread is not supported in kernels: pass each argument");
        return this.error(e);
      case ts.SyntaxKind.BigIntLiteral:
        return this.weakConst(bigintLiteralValue(e as ts.BigIntLiteral), e);
      case ts.SyntaxKind.NullKeyword:
      case ts.SyntaxKind.RegularExpressionLiteral:
        this.report(Codes.UnsupportedExpression, e, `'${e.getText(this.sf)}' is not supported in kernels`);
        return this.error(e);
      default:
        this.report(Codes.UnsupportedExpression, e, `this expression is not supported in kernels`);
        return this.error(e);
    }
  }

  protected lowerIdentifier(id: ts.Identifier): IR.Expr {
    const b = this.lookup(id.text);
    if (b) {
      if (b.k === "const") return this.constExpr(b.value, id, b.dtype);
      if (b.k === "poison") return this.error(id);
      if (b.k === "gridGroup") return this.gridGroupAsValue(id);
      return { k: "var", type: b.v.type, v: b.v, span: this.span(id) };
    }
    const sym = this.host.front.resolveName(this.module, id.text);
    if (sym) {
      switch (sym.kind) {
        case "mutable":
          this.report(Codes.MutableCapture, id, `kernels cannot read host variable '${id.text}': it can change after compilation; pass it as a kernel parameter, or make it a module const with a constant value`);
          return this.error(id);
        case "const": {
          const r = this.host.front.moduleConst(sym.module, sym.decl);
          if (r.problems.length) return this.error(id); // already reported where it is declared
          if (r.array)
            this.report(Codes.MutableCapture, id, `'${id.text}' is a host array: pass it as a kernel parameter, or use cuda.const.arrayLike(${id.text}) to put it in constant memory`);
          else
            this.report(Codes.MutableCapture, id, `'${id.text}' is not a compile-time constant (its initialiser is not made of literals and other constants): pass it as a kernel parameter`);
          return this.error(id);
        }
        case "function":
        case "plainFunction":
          this.report(Codes.NestedFunction, id, `functions are not values in kernels: call ${id.text}(…) directly`);
          return this.error(id);
        case "cudascript":
          if (sym.export.kind === "dtype") {
            this.report(Codes.WrongDType, id, `${id.text} is a dtype: use it as the dtype argument of cuda.shared.array / cuda.local.array`);
            return this.error(id);
          }
          this.report(Codes.UnknownCudaApi, id, `'${id.text}' is not a value in kernels: use a member such as cuda.threadIdx.x`);
          return this.error(id);
        case "class":
          this.report(Codes.UnsupportedClass, id, "classes are not supported in kernels");
          return this.error(id);
        default:
          break;
      }
    }
    if (id.text === "undefined" || id.text === "NaN" || id.text === "Infinity") {
      if (id.text === "undefined") {
        this.report(Codes.UnsupportedExpression, id, "`undefined` is not a kernel value: every variable holds a number");
        return this.error(id);
      }
      return this.weakConst(id.text === "NaN" ? NaN : Infinity, id, false);
    }
    this.report(Codes.UnknownIdentifier, id, `'${id.text}' is not available in kernels: kernels may use their parameters and locals, module constants, device functions, cuda.* and Math.*`);
    return this.error(id);
  }

  protected lowerPrefix(e: ts.PrefixUnaryExpression): IR.Expr {
    const span = this.span(e);
    switch (e.operator) {
      case ts.SyntaxKind.PlusPlusToken:
      case ts.SyntaxKind.MinusMinusToken:
        this.report(Codes.EmbeddedAssignment, e, `'${e.getText(this.sf)}' changes a variable inside an expression: do it on its own line before or after`);
        return this.lowerExpr(e.operand);
      case ts.SyntaxKind.ExclamationToken: {
        const v = this.truthy(this.lowerExpr(e.operand), e.operand);
        return { k: "unary", type: BOOL, op: "!", operand: v, span };
      }
      case ts.SyntaxKind.PlusToken: {
        const v = this.lowerExpr(e.operand);
        if (v.type.kind === "scalar" && isInt64(v.type.dtype) && !POISON.has(v)) {
          this.report(Codes.Int64Operation, e, `unary + does not convert a bigint (it throws a TypeError): write Number(${e.operand.getText(this.sf)})`);
          return this.error(e);
        }
        return v;
      }
      case ts.SyntaxKind.MinusToken: {
        // `-9223372036854775808n` is the least i64, not the negation of a u64 2^63.
        const literal = stripParensAndNonNull(e.operand);
        if (ts.isBigIntLiteral(literal)) return this.weakConst(-bigintLiteralValue(literal), e);
        const v = this.scalarOperand(this.lowerExpr(e.operand), e.operand);
        const t = v.type as ScalarType;
        if (isComplex(t.dtype)) return this.complexNegation(e);
        const dtype = t.dtype === "bool" ? "i32" : isInt(t.dtype) ? promoteForArith(t.dtype) : t.dtype;
        return { k: "unary", type: scalar(dtype), op: "-", operand: this.convertTo(v, dtype), span };
      }
      case ts.SyntaxKind.TildeToken: {
        const o = this.scalarOperand(this.lowerExpr(e.operand), e.operand);
        if (o.type.kind === "scalar" && isInt64(o.type.dtype)) return { k: "unary", type: o.type, op: "~", operand: o, span };
        const v = this.toInt32Operand(o, e.operand);
        return { k: "unary", type: I32, op: "~", operand: v, span };
      }
    }
    return this.error(e);
  }

  protected lowerBinary(e: ts.BinaryExpression): IR.Expr {
    const op = e.operatorToken.kind;
    const span = this.span(e);
    if (ASSIGNMENT_OPS.has(op)) {
      this.report(Codes.EmbeddedAssignment, e, "an assignment inside an expression is not supported in kernels: assign on its own line first");
      return this.lowerExpr(e.right);
    }
    if (op === ts.SyntaxKind.CommaToken) {
      this.report(Codes.UnsupportedExpression, e, "the comma operator is not supported in kernels: write separate statements");
      return this.error(e);
    }
    if (op === ts.SyntaxKind.AsteriskAsteriskToken) {
      this.report(Codes.UnsupportedOperator, e.operatorToken, `'**' is not supported in kernels: write Math.pow(${e.left.getText(this.sf)}, ${e.right.getText(this.sf)}) (or x * x for a square)`);
      return this.error(e);
    }
    if (op === ts.SyntaxKind.InKeyword || op === ts.SyntaxKind.InstanceOfKeyword || op === ts.SyntaxKind.QuestionQuestionToken) {
      this.lowerExpr(e.left);
      this.lowerExpr(e.right);
      this.report(Codes.UnsupportedOperator, e.operatorToken, `'${e.operatorToken.getText(this.sf)}' is not supported in kernels`);
      return this.error(e);
    }
    if (op === ts.SyntaxKind.AmpersandAmpersandToken || op === ts.SyntaxKind.BarBarToken) {
      const l = this.lowerExpr(e.left), r = this.lowerExpr(e.right);
      const lop = op === ts.SyntaxKind.AmpersandAmpersandToken ? "&&" : "||";
      if (isBoolish(l) && isBoolish(r))
        return { k: "logical", type: BOOL, op: lop, left: this.truthy(l, e.left), right: this.truthy(r, e.right), span };
      // Value semantics of JavaScript's && / || on numbers: `a || b` is `a ? a : b`.
      if (!isPure(l)) {
        this.report(Codes.UnsupportedExpression, e, `use ${lop} on conditions, or write an explicit ?: expression`);
        return this.error(e);
      }
      const t = this.unifyArith(l, r);
      const cond = this.truthy(l, e.left);
      return lop === "||" ? { k: "select", type: scalar(t.dtype), cond, then: t.l, else: t.r, span } : { k: "select", type: scalar(t.dtype), cond, then: t.r, else: t.l, span };
    }
    const cmp = COMPARE_OPS.get(op);
    if (cmp) {
      const l = this.scalarOperand(this.lowerExpr(e.left), e.left), r = this.scalarOperand(this.lowerExpr(e.right), e.right);
      return this.compare(cmp, l, r, e);
    }
    const arith = ARITH_OPS.get(op);
    if (arith) {
      if (isIntDivisionPattern(e)) {
        const div = stripParensAndNonNull(e.left) as ts.BinaryExpression;
        const q = this.integerDivision(div, e);
        if (q) return q.type.kind === "scalar" && q.type.dtype === "i32" ? q : this.convertTo(q, "i32");
      }
      const l = this.lowerExpr(e.left), r = this.lowerExpr(e.right);
      return this.arith(arith, l, r, e);
    }
    this.report(Codes.UnsupportedOperator, e.operatorToken, `'${e.operatorToken.getText(this.sf)}' is not supported in kernels`);
    return this.error(e);
  }

  /** `a / b` on integers, from `(a / b) | 0` or `Math.trunc(a / b)`: truncating integer division. */
  protected integerDivision(div: ts.BinaryExpression, node: ts.Node): IR.Expr | undefined {
    const l = this.lowerExpr(div.left), r = this.lowerExpr(div.right);
    if (l.type.kind !== "scalar" || r.type.kind !== "scalar") return undefined;
    const ld = l.type.dtype, rd = r.type.dtype;
    // bigint `/` already truncates; `(a / b) | 0` on bigints is the mix TypeScript refuses (CS2018 from `|`).
    if (isInt64(ld) || isInt64(rd)) return undefined;
    if (!(isInt(ld) || ld === "bool") || !(isInt(rd) || rd === "bool")) return this.arith("/", l, r, div);
    if (r.k === "const" && r.value === 0) {
      this.report(Codes.DivisionByZero, div.right, "integer division by zero");
    }
    const lw = WEAK.has(l), rw = WEAK.has(r);
    let dtype: IntDType;
    if (lw && !rw) dtype = promoteForArith(rd as IntDType);
    else if (rw && !lw) dtype = promoteForArith(ld as IntDType);
    else {
      const pl = promoteForArith(ld as IntDType), pr = promoteForArith(rd as IntDType);
      if (pl !== pr) {
        // Mixed signedness: JavaScript divides the real values; so do we, exactly, in f64.
        const q = { k: "binary", type: scalar("f64"), op: "/", left: this.convertTo(l, "f64"), right: this.convertTo(r, "f64"), span: this.span(div) } as IR.BinaryExpr;
        return { k: "intrinsic", type: scalar("f64"), name: "trunc", args: [q], span: this.span(node) };
      }
      dtype = pl;
    }
    return { k: "binary", type: scalar(dtype), op: "/", left: this.convertTo(l, dtype), right: this.convertTo(r, dtype), span: this.span(div) };
  }

  /**
   * Converts a value to the integer (or other) type of where it goes — a declared variable, an
   * assignment, a device function's argument or result, an element, an atomic's operand — and is the
   * one place that says so when a float becomes an integer (CS5004): TypeScript keeps the fraction
   * there (a typed array truncates it), the kernel truncates, and out of range the GPU and the
   * simulator differ. `into` names the destination ("the i32 'k'", "Int32Array"). Number(…) of a
   * bigint is whole: only outside typed-array stores (`arrayStore`), where TypeScript keeps the whole
   * value and the kernel its low bits, is it reported. `at`: where to report; `node`: convertTo's.
   */
  protected convertImplicitly(value: IR.Expr, dtype: DType, into: string, at: ts.Node, node: ts.Node | undefined, arrayStore = false): IR.Expr {
    const from = value.type.kind === "scalar" ? value.type.dtype : undefined;
    if (from && isInt(dtype) && !isInt64(dtype) && isFloat(from) && !WEAK.has(value) && !POISON.has(value) && !(value.k === "intrinsic" && ROUNDING_MATH.has(value.name))) {
      const numberOfBigInt = value.k === "convert" && value.value.type.kind === "scalar" && isInt64(value.value.type.dtype);
      if (!numberOfBigInt)
        this.report(Codes.ImplicitFloatToInt, at, `this stores a ${from} value into ${into}, which truncates it: write Math.trunc(…) (or … | 0) to say so, or Math.round(…)${this.trueDivisionNote(value, from)}`);
      else if (!arrayStore)
        this.report(Codes.ImplicitFloatToInt, at, `Number(…) of a ${value.value.type.kind === "scalar" ? value.value.type.dtype : "bigint"} is a whole number, but stored into ${into} the kernel keeps only its low 32 bits where TypeScript keeps the whole value: write Number(…) | 0 to say so, or keep it a bigint`);
    }
    return this.convertTo(value, dtype, node);
  }

  /** "; it is f32 because a / b is true division…" when `value` is a float only through `/` of integers. */
  private trueDivisionNote(value: IR.Expr, from: DType): string {
    let division: IR.Span | undefined;
    let otherFloat = false;
    const visit = (e: IR.Expr): void => {
      if (INTEGER_TRUE_DIVISION.has(e.span)) division ??= e.span;
      else if (e.k === "binary" || e.k === "unary" || e.k === "select" || e.k === "convert") forEachChild(e, visit);
      // Any other float (a float variable or element, Math.sqrt(…), 2.5) would be a float anyway.
      else if (e.type.kind === "scalar" && isFloat(e.type.dtype) && !(e.k === "const" && WEAK.has(e) && Number.isInteger(e.value))) otherFloat = true;
    };
    visit(value);
    if (!division || otherFloat) return "";
    const text = this.sf.text.slice(division.start, division.end);
    return `; it is ${from} because ${text} is true division, which gives a float even on integers: write (${text}) | 0 for integer division, and the expression stays an integer`;
  }

  protected arith(op: IR.ArithOp, l0: IR.Expr, r0: IR.Expr, node: ts.Node): IR.Expr {
    // An operand already reported poisons the result: its placeholder type must not earn more diagnostics.
    if (POISON.has(l0) || POISON.has(r0)) return this.error(node);
    const span = this.span(node);
    const l = this.scalarOperand(l0, node), r = this.scalarOperand(r0, node);
    if (this.reportInt64Mixing(l, r, node) || ((op === "/" || op === "%" || op === ">>") && this.reportSignMixing64(l, r, node))) return this.error(node);
    if (isInt64((l.type as ScalarType).dtype)) return this.arith64(op, l, r, node);
    if (l.k === "const" && r.k === "const" && WEAK.has(l) && WEAK.has(r)) {
      // Both constant (e.g. after inlining a const): fold like JavaScript.
      const v = foldArith(op, Number(l.value), Number(r.value));
      if (v !== undefined) {
        const folded = this.weakConst(v, node, (l.type as ScalarType).dtype !== "f32" && (l.type as ScalarType).dtype !== "f64" && Number.isInteger(v) && op !== "/");
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
        return { k: "binary", type: I32, op, left: this.convertTo(l, "i32"), right: op === "<<" || op === ">>" ? this.shiftCount(r) : this.convertTo(r, "i32"), span };
      case ">>>":
        return { k: "binary", type: U32, op, left: this.convertTo(l, "u32"), right: this.shiftCount(r), span };
      case "/": {
        // True division as in JavaScript: integers divide as floats (the kernel's float type).
        let { dtype, l: a, r: b } = this.unifyArith(l, r, node);
        if (!isFloat(dtype)) {
          dtype = this.defaultFloat;
          a = this.convertTo(a, dtype);
          b = this.convertTo(b, dtype);
          INTEGER_TRUE_DIVISION.add(span);
        }
        this.noteF64(dtype, node);
        return { k: "binary", type: scalar(dtype), op, left: a, right: b, span };
      }
      default: {
        let { dtype, l: a, r: b } = this.unifyArith(l, r, node);
        if (dtype === "bool" || (isInt(dtype) && dtype !== "i32" && dtype !== "u32")) {
          dtype = dtype === "bool" ? "i32" : promoteForArith(dtype as IntDType);
          a = this.convertTo(a, dtype);
          b = this.convertTo(b, dtype);
        }
        this.noteF64(dtype, node);
        return { k: "binary", type: scalar(dtype), op, left: a, right: b, span };
      }
    }
  }

  /** i64/u64 arithmetic: every operator keeps the operands' 64-bit type, as bigint arithmetic does. */
  private arith64(op: IR.ArithOp, l: IR.Expr, r: IR.Expr, node: ts.Node): IR.Expr {
    if (op === ">>>") {
      this.report(Codes.Int64Operation, node, "bigints have no >>> (TypeScript refuses it): write >> (on a u64 it shifts in zeros; for an i64 write BigInt.asUintN(64, x) >> n)");
      return this.error(node);
    }
    const { dtype, l: a, r: b } = this.unifyArith(l, r);
    if (r.k === "const" && (op === "/" || op === "%") && (r.value === 0n || r.value === 0)) this.report(Codes.DivisionByZero, node, "integer division by zero");
    return { k: "binary", type: scalar(dtype), op, left: a, right: b, span: this.span(node) };
  }

  /**
   * i64 next to u64 (neither a literal) where the two readings differ: TypeScript has one bigint type
   * (-1n < 5n), CUDA C++ converts the i64 to u64 (huge). For + - * & | ^ << the low 64 bits agree, so
   * those compute in u64 without complaint; comparisons, / % and >> need an explicit conversion.
   */
  protected reportSignMixing64(l: IR.Expr, r: IR.Expr, node: ts.Node): boolean {
    if (WEAK.has(l) || WEAK.has(r) || l.type.kind !== "scalar" || r.type.kind !== "scalar") return false;
    const a = l.type.dtype, b = r.type.dtype;
    if (!isInt64(a) || !isInt64(b) || a === b) return false;
    this.report(Codes.Int64Mixing, node, `an i64 and a u64 cannot be mixed: convert one first, BigInt.asUintN(64, x) to u64 or BigInt.asIntN(64, x) to i64`);
    return true;
  }

  protected compare(op: IR.CompareOp, l: IR.Expr, r: IR.Expr, node: ts.Node): IR.Expr {
    if (POISON.has(l) || POISON.has(r)) return this.error(node);
    const span = this.span(node);
    const lt = (l.type as ScalarType).dtype, rt = (r.type as ScalarType).dtype;
    if (lt === "bool" && rt === "bool") return { k: "compare", type: BOOL, op, operandType: BOOL, left: l, right: r, span };
    if (this.reportInt64Mixing(l, r, node) || this.reportSignMixing64(l, r, node)) return this.error(node);
    if (mixedSignedness(l, r)) {
      // i32 vs u32: compare the mathematical values, as JavaScript does (C would convert the i32 to
      // u32). f64 holds both exactly; the original operands are widened, never converted to u32 first.
      return { k: "compare", type: BOOL, op, operandType: F64, left: this.convertTo(l, "f64"), right: this.convertTo(r, "f64"), span };
    }
    let { dtype, l: a, r: b } = this.unifyArith(l, r, node);
    if (dtype === "bool") dtype = "i32";
    a = this.convertTo(a, dtype);
    b = this.convertTo(b, dtype);
    return { k: "compare", type: BOOL, op, operandType: scalar(dtype), left: a, right: b, span };
  }

  protected lowerConditional(e: ts.ConditionalExpression): IR.Expr {
    return this.lowerSelect(e, e.condition, e.whenTrue, e.whenFalse, "?:");
  }

  /**
   * `condition ? whenTrue : whenFalse`, also spelt `cuda.selp(condition, whenTrue, whenFalse)` (`what`
   * names the spelling in messages): one typing rule and one IR select for both, so every backend
   * evaluates only the chosen operand for either spelling.
   */
  protected lowerSelect(e: ts.Node, condition: ts.Expression, whenTrue: ts.Expression, whenFalse: ts.Expression, what: string): IR.Expr {
    const cond = this.lowerCondition(condition);
    const a = this.lowerExpr(whenTrue), b = this.lowerExpr(whenFalse);
    if (a.type.kind === "array" || b.type.kind === "array") {
      const c = condition.getText(this.sf), x = whenTrue.getText(this.sf), y = whenFalse.getText(this.sf);
      const instead = what === "?:" ? `${c} ? ${x}[i] : ${y}[i]` : `${what}(${c}, ${x}[i], ${y}[i])`;
      this.report(Codes.TypeMismatch, e, `${what} chooses between two arrays (named arrays or array variables) or between two values, not between an array and something else: choose the element instead, ${instead}`);
      return this.error(e);
    }
    if (a.type.kind !== "scalar" || b.type.kind !== "scalar") {
      this.report(Codes.TypeMismatch, e, `both ${what === "?:" ? "branches of ?:" : `values of ${what}`} must be numbers or booleans in kernels`);
      return this.error(e);
    }
    const span = this.span(e);
    if (a.type.dtype === "bool" && b.type.dtype === "bool") return { k: "select", type: BOOL, cond, then: a, else: b, span };
    if (this.reportInt64Mixing(a, b, e)) return this.error(e);
    const t = this.unifyArith(a, b, e);
    const r: IR.SelectExpr = { k: "select", type: scalar(t.dtype), cond, then: t.l, else: t.r, span };
    if (WEAK.has(a) && WEAK.has(b)) WEAK.add(r);
    return r;
  }

  /** `a[i][j][k]` split into its base expression and its index expressions, outermost first. */
  protected splitElementAccess(e: ts.ElementAccessExpression): { base: ts.Expression; indexNodes: ts.Expression[] } {
    const indexNodes: ts.Expression[] = [];
    let base: ts.Expression = e;
    while (ts.isElementAccessExpression(base)) {
      indexNodes.unshift(base.argumentExpression);
      base = stripParensAndNonNull(base.expression);
    }
    return { base, indexNodes };
  }

  /**
   * The array an element access indexes, with its lowered indices; undefined (reported) when the base
   * is not an array or gets more indices than it has dimensions.
   */
  protected elementAccessArray(e: ts.ElementAccessExpression): { arr: IR.VarExpr & { type: ArrayType }; indices: IR.Expr[] } | undefined {
    const { base, indexNodes } = this.splitElementAccess(e);
    const arr = this.lowerExpr(base);
    if (arr.type.kind !== "array" || arr.k !== "var") {
      if (!POISON.has(arr)) this.report(Codes.NotAnArray, base, `'${base.getText(this.sf)}' is not an array and cannot be indexed`);
      indexNodes.forEach((n) => this.lowerExpr(n));
      return undefined;
    }
    const at = arr.type;
    if (indexNodes.length > at.rank) {
      this.report(Codes.WrongIndexCount, e, `'${base.getText(this.sf)}' has ${at.rank} dimension${at.rank > 1 ? "s" : ""}: index it as ${base.getText(this.sf)}${"[…]".repeat(at.rank)}`);
      return undefined;
    }
    return { arr: arr as IR.VarExpr & { type: ArrayType }, indices: indexNodes.map((n) => this.lowerIndex(n)) };
  }

  /** An element (an IndexExpr), or an array (a row: lower-views.ts makes it a view). */
  protected lowerElementAccess(e: ts.ElementAccessExpression): IR.Expr | undefined {
    const access = this.elementAccessArray(e);
    if (!access) return undefined;
    const { arr, indices } = access;
    const at = arr.type;
    if (indices.length < at.rank) {
      // A partial index (a row): only valid as the base of a further index, which the caller handles.
      return { ...arr, type: { ...at, rank: (at.rank - indices.length) as 1 | 2 } } as IR.Expr & { type: ArrayType };
    }
    return { k: "index", type: scalar(at.dtype), array: arr, indices, span: this.span(e) };
  }

  /** `a.shape[d]` with a constant d → the extent of dimension d. */
  protected lowerShapeAccess(e: ts.ElementAccessExpression): IR.Expr | undefined {
    const base = stripParensAndNonNull(e.expression);
    if (!ts.isPropertyAccessExpression(base) || base.name.text !== "shape") return undefined;
    const arr = this.lowerExpr(base.expression);
    if (arr.type.kind !== "array" || arr.k !== "var") return undefined;
    const d = this.foldConst(e.argumentExpression);
    if (!d || typeof d.value !== "number" || !Number.isInteger(d.value) || d.value < 0 || d.value >= arr.type.rank) {
      this.report(Codes.NotConstant, e.argumentExpression, `index .shape with a constant dimension from 0 to ${arr.type.rank - 1}`);
      return this.error(e);
    }
    return { k: "shape", type: I32, array: arr, dim: d.value, span: this.span(e) };
  }

  protected lowerIndex(n: ts.Expression): IR.Expr {
    // `a[Number(i)]` with i a bigint: TypeScript refuses `a[i]` (TS2538), so Number(…) is how an i64
    // index is written; the kernel indexes with the 64-bit value itself, no float round trip.
    const inner = stripParensAndNonNull(n);
    if (ts.isCallExpression(inner) && ts.isIdentifier(inner.expression) && inner.expression.text === "Number" && inner.arguments.length === 1 && !this.lookup("Number")) {
      const x = this.lowerExpr(inner.arguments[0]!);
      if (x.type.kind === "scalar" && isInt64(x.type.dtype)) return x;
    }
    const v = this.lowerExpr(n);
    if (v.type.kind !== "scalar") {
      this.report(Codes.NonIntegerIndex, n, `an index must be an integer, not ${typeToString(v.type)}`);
      return this.weakConst(0, n);
    }
    const d = v.type.dtype;
    if (v.k === "const" && WEAK.has(v)) {
      if (typeof v.value === "number" && Number.isInteger(v.value)) return this.convertTo(v, "i32");
      this.report(Codes.NonIntegerIndex, n, `index ${String(v.value)} is not an integer`, { fix: { kind: "wrapIndexInt" } });
      return this.weakConst(0, n);
    }
    if (isInt(d)) return d === "i32" || d === "u32" ? v : this.convertTo(v, "i32");
    if (d === "bool") return this.convertTo(v, "i32");
    const text = n.getText(this.sf);
    const div = stripParensAndNonNull(n);
    const rounding = roundingCallName(div);
    const message = rounding
      ? // Math.floor(x) is whole but still a float (as in JavaScript and CUDA's floorf): say why it is not an index.
        `Math.${rounding} gives a float (${d}), not an integer, even though its value is whole: write ${text} | 0, or declare the index as an integer, let bin: i32 = ${text}, and index with bin`
      : `this index is ${d}, not an integer: write ${ts.isBinaryExpression(div) && div.operatorToken.kind === ts.SyntaxKind.SlashToken ? `(${text}) | 0 for integer division` : `Math.floor(${text}) | 0, or keep the index in an i32 variable`}`;
    this.report(Codes.NonIntegerIndex, n, message, { fix: { kind: "wrapIndexInt" } });
    return this.convertTo(v, "i32");
  }

  protected lowerPropertyAccess(e: ts.PropertyAccessExpression): IR.Expr {
    if (e.questionDotToken) {
      this.report(Codes.UnsupportedExpression, e, "optional chaining (?.) is not supported in kernels");
      return this.error(e);
    }
    const path = this.cudaPath(e);
    if (path) return this.lowerCudaProperty(path, e);
    const obj = stripParensAndNonNull(e.expression);
    if (ts.isIdentifier(obj) && obj.text === "Math" && !this.lookup("Math")) {
      const c = MATH_CONSTANTS[e.name.text];
      if (c !== undefined) return this.weakConst(c, e, false);
      this.report(Codes.UnsupportedExpression, e, `Math.${e.name.text} is not a constant; Math functions must be called`);
      return this.error(e);
    }
    const name = e.name.text;
    // a.shape[d] is handled by the element-access path through `shape`; here: a.length, a.shape
    const base = ts.isPropertyAccessExpression(obj) && obj.name.text === "shape" ? undefined : this.lowerExpr(obj);
    if (base && base.type.kind === "array" && base.k === "var") {
      if (name === "length") return { k: "shape", type: I32, array: base, dim: 0, span: this.span(e) };
      if (name === "shape") {
        this.report(Codes.UnsupportedExpression, e, `index the shape: ${e.getText(this.sf)}[0]`);
        return this.error(e);
      }
      if (ARRAY_METHODS.has(name) || name === "byteLength" || name === "buffer" || name === "byteOffset") {
        this.report(Codes.UnsupportedArrayMethod, e, `'${name}' is not available on arrays in kernels: only elements, .length and .shape[d]`);
        return this.error(e);
      }
    }
    if (base && POISON.has(base)) return this.error(e);
    const part = base && this.complexPartAccess(e, base);
    if (part) return part;
    if (base && base.type.kind === "scalar") {
      this.report(Codes.UnsupportedExpression, e, `numbers have no properties in kernels ('${name}')`);
      return this.error(e);
    }
    if (base) this.report(Codes.UnsupportedExpression, e, `'${e.getText(this.sf)}' is not supported in kernels`);
    return this.error(e);
  }

  /** An unknown `cuda.<path>`: a known Numba gap says what to write instead (CS1022), a typo gets CS1014. */
  protected reportUnknownCuda(path: string, node: ts.Node): void {
    const u = unknownCudaName(path);
    this.report(u.gap ? Codes.NumbaApiUnavailable : Codes.UnknownCudaApi, node, u.message);
  }

  /** `cuda.a.b` → ["a", "b"]; undefined when the expression is not rooted at the `cuda` import. */
  protected cudaPath(e: ts.Expression): string[] | undefined {
    const parts: string[] = [];
    let x: ts.Expression = stripParensAndNonNull(e);
    while (ts.isPropertyAccessExpression(x)) {
      if (isCudaReference(x, this.module.cudascript) && !this.shadowsCuda(x)) return parts;
      parts.unshift(x.name.text);
      x = stripParensAndNonNull(x.expression);
    }
    if (ts.isIdentifier(x) && isCudaReference(x, this.module.cudascript) && !this.lookup(x.text)) return parts;
    return undefined;
  }

  protected shadowsCuda(x: ts.PropertyAccessExpression): boolean {
    return ts.isIdentifier(x.expression) && !!this.lookup(x.expression.text);
  }

  protected lowerCudaProperty(path: string[], node: ts.Node): IR.Expr {
    const span = this.span(node);
    const [a, b] = path;
    if ((a === "threadIdx" || a === "blockIdx" || a === "blockDim" || a === "gridDim") && path.length === 2) {
      if (b === "x" || b === "y" || b === "z") return { k: "special", type: I32, reg: a, axis: b, span };
      this.report(Codes.UnknownCudaApi, node, `cuda.${a} has x, y and z`);
      return this.error(node);
    }
    if ((a === "laneid" || a === "warpsize") && path.length === 1) return { k: "special", type: I32, reg: a, axis: "x", span };
    if ((a === "threadIdx" || a === "blockIdx" || a === "blockDim" || a === "gridDim") && path.length === 1) {
      this.report(Codes.UnsupportedExpression, node, `cuda.${a} is a Dim3: read its fields, e.g. cuda.${a}.x`);
      return this.error(node);
    }
    if (KNOWN_CUDA_FUNCTIONS.has(path.join("."))) {
      this.report(Codes.UnsupportedExpression, node, `cuda.${path.join(".")} must be called`);
      return this.error(node);
    }
    this.reportUnknownCuda(path.join("."), node);
    return this.error(node);
  }

  /** A grid group name used as a value (anything but `g.sync()`): implemented by GridGroupLowerer. */
  protected abstract gridGroupAsValue(id: ts.Identifier): IR.Expr;
  /** `-z` on a complex value; `z.re` / `z.im` (undefined when `base` is not complex): implemented by ComplexLowerer. */
  protected abstract complexNegation(e: ts.PrefixUnaryExpression): IR.Expr;
  protected abstract complexPartAccess(e: ts.PropertyAccessExpression, base: IR.Expr): IR.Expr | undefined;

  /** Calls of device functions, `cuda.*`, `Math.*`; implemented by CallLowerer. */
  protected abstract lowerCall(call: ts.CallExpression): IR.Expr;
}

/** `floor` for `Math.floor(…)` (and the other rounding functions): a whole value of a float type. */
function roundingCallName(e: ts.Expression): string | undefined {
  if (!ts.isCallExpression(e) || !ts.isPropertyAccessExpression(e.expression)) return undefined;
  const { expression: obj, name } = e.expression;
  return ts.isIdentifier(obj) && obj.text === "Math" && ["floor", "ceil", "round", "trunc"].includes(name.text) ? name.text : undefined;
}
