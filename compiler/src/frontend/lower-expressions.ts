/**
 * Lowering of expressions: literals and names, element and shape access, properties and `cuda.*`
 * properties. Operators are in lower-operators.ts, calls in lower-calls.ts; a name, an element, a
 * length or a shape that goes through a view or an array variable is lowered by lower-views.ts and
 * lower-array-vars.ts, which the entry points here consult first.
 */
import ts from "typescript";
import { Codes } from "../diagnostics/codes";
import type * as IR from "../ir/nodes";
import { I32, isInt, isInt64, typeToString, type ArrayType } from "../ir/types";
import { isIntegerLiteralText, MATH_CONSTANTS, stripParensAndNonNull } from "./constants";
import { isCudaReference } from "./module-info";
import { bigintLiteralValue } from "./int64-constants";
import { KNOWN_CUDA_FUNCTIONS, unknownCudaName } from "./cuda-names";
import { containsAssignment, POISON, WEAK } from "./lower-base";
import type { LoweringContext } from "./lower-context";

export const ARRAY_METHODS = new Set([
  "map", "forEach", "reduce", "filter", "fill", "push", "pop", "shift", "unshift", "slice", "subarray", "splice", "set",
  "indexOf", "includes", "find", "findIndex", "sort", "reverse", "join", "concat", "every", "some", "at", "copyWithin",
  "entries", "keys", "values", "lastIndexOf", "reduceRight", "toString", "findLast", "findLastIndex", "with", "toSorted", "toReversed",
]);

// ───────────────────────── helpers ─────────────────────────

export class ExpressionLowerer {
  constructor(private readonly ctx: LoweringContext) {}

  lowerExpr(e: ts.Expression): IR.Expr {
    // Constant expressions fold first (`TPB >> 1`, `2 * Math.PI`), keeping literal weakness.
    if (!ts.isIdentifier(e) || this.ctx.lookup(e.text)?.k !== "var") {
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
          const b = this.ctx.lookup(e.text);
          if (b?.k === "const") return this.ctx.constExpr(b.value, e, b.dtype);
        }
        if (!containsAssignment(e)) {
          const before = this.ctx.diags.list.length;
          const c = this.ctx.foldConst(e);
          // An overflowing constant was reported where it is computed: do not build on its value.
          if (c && this.ctx.diags.list.slice(before).some((d) => d.code === Codes.ConstantOverflow.code)) return this.ctx.error(e);
          if (c) return this.ctx.constExpr(c, e);
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
        return this.ctx.weakConst(Number((e as ts.NumericLiteral).text.replace(/_/g, "")), e, isIntegerLiteralText((e as ts.NumericLiteral).text));
      case ts.SyntaxKind.TrueKeyword:
      case ts.SyntaxKind.FalseKeyword:
        return this.ctx.weakConst(e.kind === ts.SyntaxKind.TrueKeyword, e);
      case ts.SyntaxKind.Identifier:
        if (this.ctx.records.recordLocalOf(e)) return this.ctx.records.reportRecordValue(e);
        return this.lowerIdentifier(e as ts.Identifier);
      case ts.SyntaxKind.BinaryExpression:
        return this.ctx.ops.lowerBinary(e as ts.BinaryExpression);
      case ts.SyntaxKind.PrefixUnaryExpression:
        return this.ctx.ops.lowerPrefix(e as ts.PrefixUnaryExpression);
      case ts.SyntaxKind.PostfixUnaryExpression:
        this.ctx.report(Codes.EmbeddedAssignment, e, `'${e.getText(this.ctx.sf)}' changes a variable inside an expression: do it on its own line (${(e as ts.PostfixUnaryExpression).operand.getText(this.ctx.sf)} += 1) before or after`);
        return this.lowerExpr((e as ts.PostfixUnaryExpression).operand);
      case ts.SyntaxKind.ConditionalExpression:
        return this.ctx.ops.lowerConditional(e as ts.ConditionalExpression);
      case ts.SyntaxKind.ElementAccessExpression: {
        if (this.ctx.records.isRecordElement(e)) return this.ctx.records.reportRecordValue(e);
        const shape = this.lowerShapeAccess(e as ts.ElementAccessExpression);
        if (shape) return shape;
        const r = this.lowerElementAccess(e as ts.ElementAccessExpression);
        if (!r) return this.ctx.error(e);
        // A record array reached another way (an array variable, `?:`) is read only through fields (lower-records.ts).
        if (r.k === "index" && !r.field && r.array.type.kind === "array" && r.array.type.record) return this.ctx.records.reportRecordValue(e);
        if (r.type.kind === "array") {
          const arr = r.type;
          this.ctx.report(Codes.WrongIndexCount, e, `${e.getText(this.ctx.sf)} is a row of a ${arr.rank + 1}-D array: index every dimension, e.g. ${e.getText(this.ctx.sf)}[j]`);
          return this.ctx.error(e);
        }
        return r;
      }
      case ts.SyntaxKind.PropertyAccessExpression:
        return this.lowerPropertyAccess(e as ts.PropertyAccessExpression);
      case ts.SyntaxKind.CallExpression:
        return this.ctx.calls.lowerCall(e as ts.CallExpression);
      case ts.SyntaxKind.StringLiteral:
      case ts.SyntaxKind.NoSubstitutionTemplateLiteral:
      case ts.SyntaxKind.TemplateExpression:
      case ts.SyntaxKind.TaggedTemplateExpression:
        this.ctx.report(Codes.UnsupportedString, e, "strings are not supported in kernels (only as console.log arguments): use numbers, e.g. an error code");
        return this.ctx.error(e);
      case ts.SyntaxKind.ObjectLiteralExpression:
        this.ctx.report(Codes.UnsupportedLiteral, e, "object literals are not supported in kernels: use separate scalar variables or typed-array parameters");
        return this.ctx.error(e);
      case ts.SyntaxKind.ArrayLiteralExpression:
        this.ctx.report(Codes.UnsupportedLiteral, e, "array literals are not supported in kernels: use cuda.local.array(n, dtype) for a per-thread array");
        return this.ctx.error(e);
      case ts.SyntaxKind.NewExpression:
        this.ctx.report(Codes.UnsupportedNew, e, "kernels cannot allocate: use cuda.local.array(n, dtype) (per thread) or cuda.shared.array(n, dtype) (per block) with a constant size, or pass a device array");
        return this.ctx.error(e);
      case ts.SyntaxKind.ThisKeyword:
        this.ctx.report(Codes.UnsupportedClass, e, "`this` is not available in kernels: pass what you need as parameters");
        return this.ctx.error(e);
      case ts.SyntaxKind.ArrowFunction:
      case ts.SyntaxKind.FunctionExpression:
        this.ctx.report(Codes.NestedFunction, e, "functions cannot be created inside kernels: declare it at module level as const f = cuda.device((…) => …)");
        return this.ctx.error(e);
      case ts.SyntaxKind.AwaitExpression:
      case ts.SyntaxKind.YieldExpression:
        this.ctx.report(Codes.UnsupportedAsync, e, `'${e.kind === ts.SyntaxKind.AwaitExpression ? "await" : "yield"}' is not supported in kernels: kernels run to completion`);
        return this.ctx.error(e);
      case ts.SyntaxKind.TypeOfExpression:
      case ts.SyntaxKind.DeleteExpression:
      case ts.SyntaxKind.VoidExpression:
        this.ctx.report(Codes.UnsupportedExpression, e, `'${e.getText(this.ctx.sf).split(/[\s(]/)[0]}' is not supported in kernels`);
        return this.ctx.error(e);
      case ts.SyntaxKind.SpreadElement:
        this.ctx.report(Codes.UnsupportedExpression, e, "spread is not supported in kernels: pass each argument");
        return this.ctx.error(e);
      case ts.SyntaxKind.BigIntLiteral:
        return this.ctx.weakConst(bigintLiteralValue(e as ts.BigIntLiteral), e);
      case ts.SyntaxKind.NullKeyword:
      case ts.SyntaxKind.RegularExpressionLiteral:
        this.ctx.report(Codes.UnsupportedExpression, e, `'${e.getText(this.ctx.sf)}' is not supported in kernels`);
        return this.ctx.error(e);
      default:
        this.ctx.report(Codes.UnsupportedExpression, e, `this expression is not supported in kernels`);
        return this.ctx.error(e);
    }
  }

  /** A name: an array variable (lower-array-vars.ts), a view (lower-views.ts), or what the name is bound to. */
  lowerIdentifier(id: ts.Identifier): IR.Expr {
    return this.ctx.arrayVars.lowerIdentifier(id, () => this.ctx.views.lowerIdentifier(id, () => this.lowerIdentifierDirect(id)));
  }

  /** A name that is neither an array variable nor a view. */
  private lowerIdentifierDirect(id: ts.Identifier): IR.Expr {
    const b = this.ctx.lookup(id.text);
    if (b) {
      if (b.k === "const") return this.ctx.constExpr(b.value, id, b.dtype);
      if (b.k === "poison") return this.ctx.error(id);
      if (b.k === "gridGroup") return this.ctx.gridGroup.gridGroupAsValue(id);
      return { k: "var", type: b.v.type, v: b.v, span: this.ctx.span(id) };
    }
    const sym = this.ctx.host.front.resolveName(this.ctx.module, id.text);
    if (sym) {
      switch (sym.kind) {
        case "mutable":
          this.ctx.report(Codes.MutableCapture, id, `kernels cannot read host variable '${id.text}': it can change after compilation; pass it as a kernel parameter, or make it a module const with a constant value`);
          return this.ctx.error(id);
        case "const": {
          const r = this.ctx.host.front.moduleConst(sym.module, sym.decl);
          if (r.problems.length) return this.ctx.error(id); // already reported where it is declared
          if (r.array)
            this.ctx.report(Codes.MutableCapture, id, `'${id.text}' is a host array: pass it as a kernel parameter, or use cuda.const.arrayLike(${id.text}) to put it in constant memory`);
          else
            this.ctx.report(Codes.MutableCapture, id, `'${id.text}' is not a compile-time constant (its initialiser is not made of literals and other constants): pass it as a kernel parameter`);
          return this.ctx.error(id);
        }
        case "function":
        case "plainFunction":
          this.ctx.report(Codes.NestedFunction, id, `functions are not values in kernels: call ${id.text}(…) directly`);
          return this.ctx.error(id);
        case "cudascript":
          if (sym.export.kind === "dtype") {
            this.ctx.report(Codes.WrongDType, id, `${id.text} is a dtype: use it as the dtype argument of cuda.shared.array / cuda.local.array`);
            return this.ctx.error(id);
          }
          this.ctx.report(Codes.UnknownCudaApi, id, `'${id.text}' is not a value in kernels: use a member such as cuda.threadIdx.x`);
          return this.ctx.error(id);
        case "class":
          this.ctx.report(Codes.UnsupportedClass, id, "classes are not supported in kernels");
          return this.ctx.error(id);
        default:
          break;
      }
    }
    if (id.text === "undefined" || id.text === "NaN" || id.text === "Infinity") {
      if (id.text === "undefined") {
        this.ctx.report(Codes.UnsupportedExpression, id, "`undefined` is not a kernel value: every variable holds a number");
        return this.ctx.error(id);
      }
      return this.ctx.weakConst(id.text === "NaN" ? NaN : Infinity, id, false);
    }
    this.ctx.report(Codes.UnknownIdentifier, id, `'${id.text}' is not available in kernels: kernels may use their parameters and locals, module constants, device functions, cuda.* and Math.*`);
    return this.ctx.error(id);
  }

  /** `a[i][j]`: through an array variable (lower-array-vars.ts) or a view, row or array (lower-views.ts). */
  lowerElementAccess(e: ts.ElementAccessExpression): IR.Expr | undefined {
    return this.ctx.arrayVars.lowerElementAccess(e, () => this.ctx.views.lowerElementAccess(e));
  }

  /** `a.shape[d]`: of an array variable, of a view, or of an array. */
  lowerShapeAccess(e: ts.ElementAccessExpression): IR.Expr | undefined {
    const recordShape = this.ctx.records.fieldArrays.shapeAccess(e);
    if (recordShape) return recordShape;
    return this.ctx.arrayVars.lowerShapeAccess(e, () => this.ctx.views.lowerShapeAccess(e, () => this.lowerShapeAccessDirect(e)));
  }

  /** `x.name`: of an array variable, a view's length, or anything else. */
  lowerPropertyAccess(e: ts.PropertyAccessExpression): IR.Expr {
    const field = this.ctx.records.lowerFieldAccess(e);
    if (field) return field;
    return this.ctx.arrayVars.lowerPropertyAccess(e, () => this.ctx.views.lowerPropertyAccess(e, () => this.lowerPropertyAccessDirect(e)));
  }

  /** `a[i][j][k]` split into its base expression and its index expressions, outermost first. */
  splitElementAccess(e: ts.ElementAccessExpression): { base: ts.Expression; indexNodes: ts.Expression[] } {
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
  elementAccessArray(e: ts.ElementAccessExpression): { arr: IR.VarExpr & { type: ArrayType }; indices: IR.Expr[] } | undefined {
    const { base, indexNodes } = this.splitElementAccess(e);
    const arr = this.lowerExpr(base);
    if (arr.type.kind !== "array" || arr.k !== "var") {
      if (!POISON.has(arr)) this.ctx.report(Codes.NotAnArray, base, `'${base.getText(this.ctx.sf)}' is not an array and cannot be indexed`);
      indexNodes.forEach((n) => this.lowerExpr(n));
      return undefined;
    }
    const at = arr.type;
    if (indexNodes.length > at.rank) {
      this.ctx.report(Codes.WrongIndexCount, e, `'${base.getText(this.ctx.sf)}' has ${at.rank} dimension${at.rank > 1 ? "s" : ""}: index it as ${base.getText(this.ctx.sf)}${"[…]".repeat(at.rank)}`);
      return undefined;
    }
    return { arr: arr as IR.VarExpr & { type: ArrayType }, indices: indexNodes.map((n) => this.lowerIndex(n)) };
  }

  /** `a.shape[d]` of an array with a constant d → the extent of dimension d. */
  private lowerShapeAccessDirect(e: ts.ElementAccessExpression): IR.Expr | undefined {
    const base = stripParensAndNonNull(e.expression);
    if (!ts.isPropertyAccessExpression(base) || base.name.text !== "shape") return undefined;
    const arr = this.lowerExpr(base.expression);
    if (arr.type.kind !== "array" || arr.k !== "var") return undefined;
    const d = this.ctx.foldConst(e.argumentExpression);
    if (!d || typeof d.value !== "number" || !Number.isInteger(d.value) || d.value < 0 || d.value >= arr.type.rank) {
      this.ctx.report(Codes.NotConstant, e.argumentExpression, `index .shape with a constant dimension from 0 to ${arr.type.rank - 1}`);
      return this.ctx.error(e);
    }
    return { k: "shape", type: I32, array: arr, dim: d.value, span: this.ctx.span(e) };
  }

  lowerIndex(n: ts.Expression): IR.Expr {
    // `a[Number(i)]` with i a bigint: TypeScript refuses `a[i]` (TS2538), so Number(…) is how an i64
    // index is written; the kernel indexes with the 64-bit value itself, no float round trip.
    const inner = stripParensAndNonNull(n);
    if (ts.isCallExpression(inner) && ts.isIdentifier(inner.expression) && inner.expression.text === "Number" && inner.arguments.length === 1 && !this.ctx.lookup("Number")) {
      const x = this.lowerExpr(inner.arguments[0]!);
      if (x.type.kind === "scalar" && isInt64(x.type.dtype)) return x;
    }
    const v = this.lowerExpr(n);
    if (v.type.kind !== "scalar") {
      this.ctx.report(Codes.NonIntegerIndex, n, `an index must be an integer, not ${typeToString(v.type)}`);
      return this.ctx.weakConst(0, n);
    }
    const d = v.type.dtype;
    if (v.k === "const" && WEAK.has(v)) {
      if (typeof v.value === "number" && Number.isInteger(v.value)) return this.ctx.conv.convertTo(v, "i32");
      this.ctx.report(Codes.NonIntegerIndex, n, `index ${String(v.value)} is not an integer`, { fix: { kind: "wrapIndexInt" } });
      return this.ctx.weakConst(0, n);
    }
    if (isInt(d)) return d === "i32" || d === "u32" ? v : this.ctx.conv.convertTo(v, "i32");
    if (d === "bool") return this.ctx.conv.convertTo(v, "i32");
    const text = n.getText(this.ctx.sf);
    const div = stripParensAndNonNull(n);
    const rounding = roundingCallName(div);
    const message = rounding
      ? // Math.floor(x) is whole but still a float (as in JavaScript and CUDA's floorf): say why it is not an index.
        `Math.${rounding} gives a float (${d}), not an integer, even though its value is whole: write ${text} | 0, or declare the index as an integer, let bin: i32 = ${text}, and index with bin`
      : `this index is ${d}, not an integer: write ${ts.isBinaryExpression(div) && div.operatorToken.kind === ts.SyntaxKind.SlashToken ? `(${text}) | 0 for integer division` : `Math.floor(${text}) | 0, or keep the index in an i32 variable`}`;
    this.ctx.report(Codes.NonIntegerIndex, n, message, { fix: { kind: "wrapIndexInt" } });
    return this.ctx.conv.convertTo(v, "i32");
  }

  private lowerPropertyAccessDirect(e: ts.PropertyAccessExpression): IR.Expr {
    if (e.questionDotToken) {
      this.ctx.report(Codes.UnsupportedExpression, e, "optional chaining (?.) is not supported in kernels");
      return this.ctx.error(e);
    }
    const path = this.cudaPath(e);
    if (path) return this.lowerCudaProperty(path, e);
    const obj = stripParensAndNonNull(e.expression);
    if (ts.isIdentifier(obj) && obj.text === "Math" && !this.ctx.lookup("Math")) {
      const c = MATH_CONSTANTS[e.name.text];
      if (c !== undefined) return this.ctx.weakConst(c, e, false);
      this.ctx.report(Codes.UnsupportedExpression, e, `Math.${e.name.text} is not a constant; Math functions must be called`);
      return this.ctx.error(e);
    }
    const name = e.name.text;
    // a.shape[d] is handled by the element-access path through `shape`; here: a.length, a.shape
    const base = ts.isPropertyAccessExpression(obj) && obj.name.text === "shape" ? undefined : this.lowerExpr(obj);
    if (base && base.type.kind === "array" && base.k === "var") {
      if (name === "length") return { k: "shape", type: I32, array: base, dim: 0, span: this.ctx.span(e) };
      if (name === "shape") {
        this.ctx.report(Codes.UnsupportedExpression, e, `index the shape: ${e.getText(this.ctx.sf)}[0]`);
        return this.ctx.error(e);
      }
      if (ARRAY_METHODS.has(name) || name === "byteLength" || name === "buffer" || name === "byteOffset") {
        this.ctx.report(Codes.UnsupportedArrayMethod, e, `'${name}' is not available on arrays in kernels: only elements, .length and .shape[d]`);
        return this.ctx.error(e);
      }
    }
    if (base && POISON.has(base)) return this.ctx.error(e);
    const part = base && this.ctx.complex.complexPartAccess(e, base);
    if (part) return part;
    if (base && base.type.kind === "scalar") {
      this.ctx.report(Codes.UnsupportedExpression, e, `numbers have no properties in kernels ('${name}')`);
      return this.ctx.error(e);
    }
    if (base) this.ctx.report(Codes.UnsupportedExpression, e, `'${e.getText(this.ctx.sf)}' is not supported in kernels`);
    return this.ctx.error(e);
  }

  /** An unknown `cuda.<path>`: a known Numba gap says what to write instead (CS1022), a typo gets CS1014. */
  reportUnknownCuda(path: string, node: ts.Node): void {
    const u = unknownCudaName(path);
    this.ctx.report(u.gap ? Codes.NumbaApiUnavailable : Codes.UnknownCudaApi, node, u.message);
  }

  /** `cuda.a.b` → ["a", "b"]; undefined when the expression is not rooted at the `cuda` import. */
  cudaPath(e: ts.Expression): string[] | undefined {
    const parts: string[] = [];
    let x: ts.Expression = stripParensAndNonNull(e);
    while (ts.isPropertyAccessExpression(x)) {
      if (isCudaReference(x, this.ctx.module.cudascript) && !this.shadowsCuda(x)) return parts;
      parts.unshift(x.name.text);
      x = stripParensAndNonNull(x.expression);
    }
    if (ts.isIdentifier(x) && isCudaReference(x, this.ctx.module.cudascript) && !this.ctx.lookup(x.text)) return parts;
    return undefined;
  }

  shadowsCuda(x: ts.PropertyAccessExpression): boolean {
    return ts.isIdentifier(x.expression) && !!this.ctx.lookup(x.expression.text);
  }

  lowerCudaProperty(path: string[], node: ts.Node): IR.Expr {
    const span = this.ctx.span(node);
    const [a, b] = path;
    if ((a === "threadIdx" || a === "blockIdx" || a === "blockDim" || a === "gridDim") && path.length === 2) {
      if (b === "x" || b === "y" || b === "z") return { k: "special", type: I32, reg: a, axis: b, span };
      this.ctx.report(Codes.UnknownCudaApi, node, `cuda.${a} has x, y and z`);
      return this.ctx.error(node);
    }
    if ((a === "laneid" || a === "warpsize") && path.length === 1) return { k: "special", type: I32, reg: a, axis: "x", span };
    if ((a === "threadIdx" || a === "blockIdx" || a === "blockDim" || a === "gridDim") && path.length === 1) {
      this.ctx.report(Codes.UnsupportedExpression, node, `cuda.${a} is a Dim3: read its fields, e.g. cuda.${a}.x`);
      return this.ctx.error(node);
    }
    if (KNOWN_CUDA_FUNCTIONS.has(path.join("."))) {
      this.ctx.report(Codes.UnsupportedExpression, node, `cuda.${path.join(".")} must be called`);
      return this.ctx.error(node);
    }
    this.reportUnknownCuda(path.join("."), node);
    return this.ctx.error(node);
  }

}

/** `floor` for `Math.floor(…)` (and the other rounding functions): a whole value of a float type. */
function roundingCallName(e: ts.Expression): string | undefined {
  if (!ts.isCallExpression(e) || !ts.isPropertyAccessExpression(e.expression)) return undefined;
  const { expression: obj, name } = e.expression;
  return ts.isIdentifier(obj) && obj.text === "Math" && ["floor", "ceil", "round", "trunc"].includes(name.text) ? name.text : undefined;
}
