/**
 * Conversions and operand typing shared by every lowerer: conditions (truthiness), implicit
 * conversions with retyped weak literals (and CS5004 where a float becomes an integer, CS2018 where a
 * bigint meets a number), the common type of two operands, and the explicit conversions `BigInt(x)`,
 * `Number(x)`, `BigInt.asIntN/asUintN(64, x)`. Complex values are guarded first (lower-complex.ts).
 */
import ts from "typescript";
import { Codes } from "../diagnostics/codes";
import type * as IR from "../ir/nodes";
import { BOOL, F64, commonDType, int64Range, intRange, isFloat, isInt, isInt64, scalar, typeToString, type DType, type IntDType, type ScalarType } from "../ir/types";
import { f16round } from "../ir/f16";
import { forEachChild } from "../ir/visit";
import { f16MixMessage, INTEGER_TRUE_DIVISION, POISON, ROUNDING_MATH, WEAK, weakMeets } from "./lower-base";
import type { LoweringContext } from "./lower-context";

export class ConversionLowerer {
  constructor(private readonly ctx: LoweringContext) {}

  lowerCondition(e: ts.Expression): IR.Expr {
    return this.truthy(this.ctx.expr.lowerExpr(e), e);
  }

  truthy(e: IR.Expr, node: ts.Node): IR.Expr {
    // A complex value is not a condition (CS2022), checked before anything else.
    const complex = this.ctx.complex.guardTruthy(e, node);
    if (complex) return complex;
    if (e.type.kind !== "scalar") {
      this.ctx.report(Codes.TypeMismatch, node, `a condition must be a number or boolean, not ${typeToString(e.type)}`);
      return this.ctx.weakConst(false, node);
    }
    if (e.type.dtype === "bool") return e;
    if (e.k === "const") {
      const c: IR.Expr = { k: "const", type: BOOL, value: Boolean(e.value) && !Number.isNaN(e.value), span: e.span };
      if (POISON.has(e)) POISON.add(c); // still the placeholder of a reported mistake (rules stay quiet on it)
      return c;
    }
    return { k: "truthy", type: BOOL, value: e, span: e.span };
  }

  /** Converts `e` to `dtype`, retyping weak constants instead of adding a conversion. */
  convertTo(e: IR.Expr, dtype: DType, node?: ts.Node): IR.Expr {
    // Complex values never convert implicitly (CS2022): every conversion of the lowerer passes here.
    const complex = this.ctx.complex.guardConversion(e, dtype, node);
    if (complex) return complex;
    if (e.type.kind !== "scalar") return e;
    if (e.type.dtype === dtype) return e;
    // An implicit conversion between bigint and number (`let n: i64 = i`, `out[i] = x` with x an
    // i64 into an Int32Array): TypeScript refuses it, so it needs BigInt(…) / Number(…).
    if (node && dtype !== "bool" && isInt64(e.type.dtype) !== isInt64(dtype) && !POISON.has(e)) {
      const from = e.type.dtype;
      const fix = isInt64(dtype) ? (e.k === "const" && WEAK.has(e) && typeof e.value === "number" && Number.isInteger(e.value) ? `${e.value}n` : "BigInt(…) of the number") : "Number(…) of the bigint";
      this.ctx.report(Codes.Int64Mixing, node, `${/^[if]/.test(from) ? "an" : "a"} ${from} value cannot be stored as ${dtype} (${isInt64(dtype) ? "a bigint" : "a number"}) without a conversion: write ${fix}`);
    }
    if (e.k === "const" && WEAK.has(e)) {
      let value: number | boolean | bigint = e.value;
      if (typeof value === "bigint" || isInt64(dtype)) return this.convertWeak64(e, dtype, node);
      if (dtype === "bool") value = Boolean(value);
      else if (typeof value === "boolean") value = value ? 1 : 0;
      else if (isInt(dtype)) {
        if (!Number.isInteger(value)) value = Math.trunc(value);
        const [lo, hi] = intRange(dtype as IntDType);
        if ((value < lo || value > hi) && node) {
          // Wraps like a typed-array store, but as a constant that is almost always a mistake.
          this.ctx.report(Codes.ConstantOverflow, node, `${value} does not fit in ${dtype} (${lo} … ${hi})`);
        }
      } else if (dtype === "f32") value = Math.fround(value);
      else if (dtype === "f16") value = f16round(value);
      return { k: "const", type: scalar(dtype), value, span: e.span };
    }
    if (dtype === "bool") return { k: "truthy", type: BOOL, value: e, span: e.span };
    // Number(x) of an i64 into an integer: take the integer's low bits directly (exact, well defined
    // in C++), not through a double whose conversion to int is undefined out of range.
    if (e.k === "convert" && isInt(dtype) && e.value.type.kind === "scalar" && isInt64(e.value.type.dtype))
      return e.value.type.dtype === dtype ? e.value : { k: "convert", type: scalar(dtype), value: e.value, span: e.span };
    return { k: "convert", type: scalar(dtype), value: e, span: e.span };
  }

  /** A weak constant to or from a 64-bit type: exact, with the same overflow report as 32-bit ones. */
  private convertWeak64(e: IR.ConstExpr, dtype: DType, node?: ts.Node): IR.Expr {
    const v = e.value;
    let value: number | boolean | bigint;
    if (dtype === "bool") value = Boolean(v);
    else if (isInt64(dtype)) {
      const b = typeof v === "bigint" ? v : BigInt(Math.trunc(Number(v)));
      const [lo, hi] = int64Range(dtype);
      if ((b < lo || b > hi) && node) this.ctx.report(Codes.ConstantOverflow, node, `${b}n does not fit in ${dtype} (${lo}n … ${hi}n)`);
      value = dtype === "i64" ? BigInt.asIntN(64, b) : BigInt.asUintN(64, b);
    } else value = Number(v);
    return { k: "const", type: scalar(dtype), value, span: e.span };
  }

  /**
   * CS2018 when one operand is a bigint (i64/u64) and the other a number: TypeScript refuses the mix
   * (TS2365), and CUDA C++ would convert silently. Returns true when reported.
   */
  reportInt64Mixing(l: IR.Expr, r: IR.Expr, node: ts.Node): boolean {
    if (l.type.kind !== "scalar" || r.type.kind !== "scalar" || POISON.has(l) || POISON.has(r)) return false;
    const a = isInt64(l.type.dtype), b = isInt64(r.type.dtype);
    if (a === b) return false;
    const [big, num] = a ? [l, r] : [r, l];
    const numText = num.k === "const" && WEAK.has(num) && typeof num.value === "number" && Number.isInteger(num.value) ? `${num.value}n` : "BigInt(…) of the number";
    this.ctx.report(Codes.Int64Mixing, node, `a bigint (${(big.type as ScalarType).dtype}) and a number (${(num.type as ScalarType).dtype}) cannot be mixed: write ${numText} to compute in 64 bits, or Number(…) of the bigint to compute with numbers`);
    return true;
  }

  scalarOperand(v: IR.Expr, node: ts.Node): IR.Expr {
    if (v.type.kind === "scalar") return v;
    this.ctx.report(Codes.TypeMismatch, node, `${typeToString(v.type)} is not a number here: index it, e.g. ${node.getText(this.ctx.sf)}[i]`);
    return this.ctx.error(node);
  }

  /** JavaScript's ToInt32 of an operand of a bitwise operator (floats truncate). */
  toInt32Operand(v: IR.Expr, node: ts.Node): IR.Expr {
    v = this.scalarOperand(v, node);
    return this.convertTo(v, "i32");
  }

  /** `node`: where to report f16 mixed with another type (CS2020); omitted where the caller reports it. */
  unifyArith(l: IR.Expr, r: IR.Expr, node?: ts.Node): { dtype: DType; l: IR.Expr; r: IR.Expr } {
    const lt = (l.type as ScalarType).dtype, rt = (r.type as ScalarType).dtype;
    const lw = WEAK.has(l), rw = WEAK.has(r);
    const mix = node && !lw && !rw ? f16MixMessage(lt, rt) : undefined;
    if (mix) this.ctx.report(Codes.F16Mixed, node!, mix);
    let dtype: DType;
    if (lw && rw) dtype = lt === rt ? lt : commonDType(lt, rt);
    else if (lw) dtype = weakMeets(l, rt, this.ctx.defaultFloat);
    else if (rw) dtype = weakMeets(r, lt, this.ctx.defaultFloat);
    else dtype = lt === rt ? lt : commonDType(lt, rt);
    return { dtype, l: this.convertTo(l, dtype), r: this.convertTo(r, dtype) };
  }

  shiftCount(r: IR.Expr): IR.Expr {
    return this.convertTo(r, "i32");
  }

  noteF64(dtype: DType, node: ts.Node): void {
    if (dtype === "f64" && this.ctx.defaultFloat === "f32")
      this.ctx.report(Codes.F64InF32Kernel, node, "this computes in f64 in a kernel that otherwise uses f32; f64 is up to 64× slower on most GPUs: annotate the variable as f32 or wrap the value in Math.fround(…) if f32 is enough");
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
  convertImplicitly(value: IR.Expr, dtype: DType, into: string, at: ts.Node, node: ts.Node | undefined, arrayStore = false): IR.Expr {
    const from = value.type.kind === "scalar" ? value.type.dtype : undefined;
    if (from && isInt(dtype) && !isInt64(dtype) && isFloat(from) && !WEAK.has(value) && !POISON.has(value) && !(value.k === "intrinsic" && ROUNDING_MATH.has(value.name))) {
      const numberOfBigInt = value.k === "convert" && value.value.type.kind === "scalar" && isInt64(value.value.type.dtype);
      if (!numberOfBigInt)
        this.ctx.report(Codes.ImplicitFloatToInt, at, `this stores a ${from} value into ${into}, which truncates it: write Math.trunc(…) (or … | 0) to say so, or Math.round(…)${this.trueDivisionNote(value, from)}`);
      else if (!arrayStore)
        this.ctx.report(Codes.ImplicitFloatToInt, at, `Number(…) of a ${value.value.type.kind === "scalar" ? value.value.type.dtype : "bigint"} is a whole number, but stored into ${into} the kernel keeps only its low 32 bits where TypeScript keeps the whole value: write Number(…) | 0 to say so, or keep it a bigint`);
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
    const text = this.ctx.sf.text.slice(division.start, division.end);
    return `; it is ${from} because ${text} is true division, which gives a float even on integers: write (${text}) | 0 for integer division, and the expression stays an integer`;
  }

  /**
   * `BigInt(x)` (number → i64; a bigint stays itself) and `Number(x)` (bigint → f64; a number stays
   * itself): the explicit conversions between the two worlds, which TypeScript requires too.
   */
  lowerNumericConversion(name: "BigInt" | "Number" | string, call: ts.CallExpression): IR.Expr {
    if (!this.ctx.calls.expectArgs(call, 1, 1, name)) return this.ctx.error(call);
    const v = this.scalarOperand(this.ctx.expr.lowerExpr(call.arguments[0]!), call.arguments[0]!);
    if (v.type.kind !== "scalar" || POISON.has(v)) return this.ctx.error(call);
    const from = v.type.dtype;
    if (name === "Number") {
      if (!isInt64(from)) return v;
      if (v.k === "const" && WEAK.has(v)) return this.ctx.weakConst(Number(v.value), call, true);
      return { k: "convert", type: F64, value: v, span: this.ctx.span(call) };
    }
    if (isInt64(from)) return v;
    if (v.k === "const" && WEAK.has(v) && typeof v.value === "number") {
      if (!Number.isInteger(v.value)) {
        this.ctx.report(Codes.Int64Operation, call, `BigInt(${v.value}) throws a RangeError: a bigint holds whole numbers only; write BigInt(Math.trunc(x))`);
        return this.ctx.error(call);
      }
      return this.ctx.weakConst(BigInt(v.value), call);
    }
    // A float converts truncating, as C++ does (TypeScript throws on a fraction: keep it whole, e.g. Math.trunc).
    return { k: "convert", type: scalar("i64"), value: from === "bool" ? this.convertTo(v, "i32") : v, span: this.ctx.span(call) };
  }

  /** `BigInt.asIntN(64, x)` / `BigInt.asUintN(64, x)`: reinterpret a bigint as i64 / u64 (two's complement). */
  lowerBigIntWrap(method: string, call: ts.CallExpression): IR.Expr {
    const to = method === "asIntN" ? "i64" : method === "asUintN" ? "u64" : undefined;
    if (!to) {
      this.ctx.report(Codes.Int64Operation, call, `BigInt.${method} is not available in kernels: BigInt(x), BigInt.asIntN(64, x) and BigInt.asUintN(64, x) are`);
      return this.ctx.error(call);
    }
    if (!this.ctx.calls.expectArgs(call, 2, 2, `BigInt.${method}`)) return this.ctx.error(call);
    const bits = this.ctx.foldConst(call.arguments[0]!);
    const v = this.scalarOperand(this.ctx.expr.lowerExpr(call.arguments[1]!), call.arguments[1]!);
    if (!bits || bits.value !== 64) {
      this.ctx.report(Codes.Int64Operation, call.arguments[0]!, `BigInt.${method} takes 64 bits in kernels (the width of i64/u64): write BigInt.${method}(64, …); for fewer bits mask with & ((1n << nn) - 1n)`);
      return this.ctx.error(call);
    }
    if (v.type.kind !== "scalar" || POISON.has(v)) return this.ctx.error(call);
    if (!isInt64(v.type.dtype)) {
      this.ctx.report(Codes.Int64Mixing, call.arguments[1]!, `BigInt.${method} takes a bigint, not a ${v.type.dtype}: write BigInt.${method}(64, BigInt(…))`);
      return this.ctx.error(call);
    }
    if (v.type.dtype === to) return v;
    if (v.k === "const" && WEAK.has(v) && typeof v.value === "bigint")
      return { k: "const", type: scalar(to), value: to === "i64" ? BigInt.asIntN(64, v.value) : BigInt.asUintN(64, v.value), span: this.ctx.span(call) };
    return { k: "convert", type: scalar(to), value: v, span: this.ctx.span(call) };
  }
}
