/**
 * Values: literals, conversions and the expressions of one function (arithmetic on every dtype — i32/u32
 * as int32 operations, f32/f16 rounded after each operation, i64/u64 through int64.ts, complex through
 * the simulator's complex functions). Array accesses go to memory.ts, intrinsics to intrinsic.ts,
 * device-function calls to the emitter's `call` hook.
 */
import { profileBranch, profileFlop } from "./profile";
import type * as IR from "../../ir/nodes";
import { f16round } from "../../ir/f16";
import { DTYPES, wrapNumber, wrapNumberJs } from "../../dtypes/table";
import { isComplex, isInt64, isNarrowInt, type DType, type ScalarType } from "../../ir/types";
import { binary64, convert64, literal64, modular64, truthy64, unary64, wraps64, ZERO64 } from "../int64";
import type { EmitContext } from "./context";

/** The expressions of one function. */
export class ValueEmitter {
  constructor(private readonly cx: EmitContext) {}

  special(e: IR.SpecialExpr): string {
    const ax = e.axis;
    const dev = this.cx.mode === "device";
    switch (e.reg) {
      case "threadIdx":
        return `$t${ax}`;
      case "blockIdx":
        return dev ? `$cb${ax}` : `$b${ax}`;
      case "blockDim":
        return dev ? `$cbd${ax}` : `$bd${ax}`;
      case "gridDim":
        return dev ? `$cgd${ax}` : `$gd${ax}`;
      case "laneid":
        return "($t & 31)";
      case "warpsize":
        return "32";
      case "grid":
        if (this.cx.flatGrid && ax === "x") return "$g";
        return dev ? `(($cb${ax} * $cbd${ax} + $t${ax}) | 0)` : `(($b${ax} * $bd${ax} + $t${ax}) | 0)`;
      case "gridsize":
        return dev ? `(($cgd${ax} * $cbd${ax}) | 0)` : `(($gd${ax} * $bd${ax}) | 0)`;
    }
  }

  ex(e: IR.Expr): string {
    switch (e.k) {
      case "const":
        return literal(e.value, e.type.dtype);
      case "var":
        if (e.type.kind !== "scalar") throw new Error(`CudaScript simulator: array '${e.v.name}' used as a value`);
        this.cx.noteRead(e.v);
        return this.cx.undef.readVar(e.v, this.cx.vn(e.v));
      case "special":
        return this.special(e);
      case "unary": {
        const d = e.type.dtype;
        // unary64 wraps all but an i64's ~, so the operand may be modular (int64.ts modular64).
        if (isInt64(d) && e.op !== "!") return this.cx.i64(unary64(e.op, d, e.op === "~" && d === "i64" ? this.cx.emit.ex(e.operand) : this.exMod64(e.operand)));
        const x = this.cx.emit.ex(e.operand);
        if (e.op === "!") return `(!${x})`;
        if (e.op === "-") return d === "i32" ? `((-${x}) | 0)` : d === "u32" ? `((-${x}) >>> 0)` : `(-${x})`;
        return d === "u32" ? `((~${x}) >>> 0)` : `(~${x})`;
      }
      case "binary":
        return this.binary(e);
      case "compare": {
        const op = e.op === "==" ? "===" : e.op === "!=" ? "!==" : e.op;
        return `(${this.cx.emit.ex(e.left)} ${op} ${this.cx.emit.ex(e.right)})`;
      }
      case "logical": {
        const left = this.cx.emit.ex(e.left);
        // A branch only where the right operand is work to skip (not a variable or constant).
        const skips = e.right.k !== "var" && e.right.k !== "const";
        return `(${skips ? profileBranch(this.cx, left, e.left.span, e.op) : left} ${e.op} ${this.cx.emit.ex(e.right)})`;
      }
      case "select":
        return `(${profileBranch(this.cx, this.cx.emit.ex(e.cond), e.cond.span, "?:")} ? ${this.cx.emit.ex(e.then)} : ${this.cx.emit.ex(e.else)})`;
      case "convert": {
        const from = (e.value.type as ScalarType).dtype;
        // i64 ↔ u64 is a wrap: the value may be modular (int64.ts modular64).
        const js = convertJs(isInt64(from) && isInt64(e.type.dtype) && from !== e.type.dtype ? this.exMod64(e.value) : this.cx.emit.ex(e.value), from, e.type.dtype);
        return isInt64(from) || isInt64(e.type.dtype) ? this.cx.i64(js) : js;
      }
      case "truthy": {
        const from = (e.value.type as ScalarType).dtype;
        const x = this.cx.emit.ex(e.value);
        if (isInt64(from)) return truthy64(x);
        return from === "bool" ? x : `(!!${x})`;
      }
      case "index":
        return this.cx.memory.load(e);
      case "shape": {
        const a = this.cx.arrayInfo(e.array.v);
        this.cx.noteArray(e.array.v);
        return a.dims[e.dim] ?? "1";
      }
      case "call":
        return this.cx.emit.call(e);
      case "intrinsic":
        return this.cx.emit.intrinsic(e);
      case "atomic":
        return this.cx.memory.atomic(e);
      case "random":
        return this.cx.memory.random(e);
    }
  }

  /**
   * An i64/u64 expression whose value only matters modulo 2^64 (its parent wraps): chains of + - * & | ^
   * and << by a constant without wraps of their own (int64.ts modular64); anything else as `ex` emits it.
   */
  exMod64(e: IR.Expr): string {
    if (e.k === "binary" && isInt64(e.type.dtype)) {
      const b = e.op === "<<" ? this.cx.emit.ex(e.right) : this.exMod64(e.right);
      const js = modular64(e.op, this.exMod64(e.left), b);
      if (js !== undefined) return js;
    } else if (e.k === "unary" && isInt64(e.type.dtype) && e.op !== "!") {
      return `(${e.op}${this.exMod64(e.operand)})`;
    } else if (e.k === "convert" && isInt64(e.type.dtype) && isInt64((e.value.type as ScalarType).dtype) && e.type.dtype !== (e.value.type as ScalarType).dtype) {
      return this.exMod64(e.value);
    }
    return this.cx.emit.ex(e);
  }

  binary(e: IR.BinaryExpr): string {
    const d = e.type.dtype;
    const op = e.op;
    if (isInt64(d)) {
      const b = op === "+" || op === "-" || op === "*" ? this.exMod64(e.right) : this.cx.emit.ex(e.right);
      return this.cx.i64(binary64(op, d, wraps64(op, b) ? this.exMod64(e.left) : this.cx.emit.ex(e.left), b));
    }
    const a = this.cx.emit.ex(e.left), b = this.cx.emit.ex(e.right);
    const flop = (js: string) => (op === "%" ? js : profileFlop(this.cx, d, js));
    if (d === "f32") return flop(`Math.fround(${a} ${op} ${b})`);
    // + - * / % of two f16 are exact in f64, so one rounding to f16 is the correctly rounded result.
    if (d === "f16") return flop(`rt.f16round(${a} ${op} ${b})`);
    if (d === "f64") return flop(`(${a} ${op} ${b})`);
    if (d === "u32") {
      switch (op) {
        case "*":
          return `(Math.imul(${a}, ${b}) >>> 0)`;
        case "/":
          return `$udiv(${a}, ${b})`;
        case ">>":
        case ">>>":
          return `(${a} >>> ${b})`;
        default:
          return `((${a} ${op} ${b}) >>> 0)`;
      }
    }
    // i32 (and defensively narrower ints: computed as i32, the store/convert wraps)
    switch (op) {
      case "+":
      case "-":
        return `((${a} ${op} ${b}) | 0)`;
      case "*":
        return `Math.imul(${a}, ${b})`;
      case "/":
        return `$idiv(${a}, ${b})`;
      case "%":
        return `((${a} % ${b}) | 0)`;
      case ">>>":
        return `((${a} >>> ${b}) | 0)`;
      default:
        return `(${a} ${op} ${b})`;
    }
  }
}

export function literal(value: number | boolean | bigint, dtype: DType): string {
  if (dtype === "bool" || typeof value === "boolean") return value ? "true" : "false";
  if (isInt64(dtype)) return literal64(value, dtype);
  const v = dtype === "f32" ? Math.fround(Number(value)) : dtype === "f16" ? f16round(Number(value)) : wrapNumber(dtype, Number(value));
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "Infinity";
  if (v === -Infinity) return "(-Infinity)";
  if (Object.is(v, -0)) return "(-0)";
  return v < 0 ? `(${String(v)})` : String(v);
}

/** JavaScript for converting a value of dtype `from` (already emitted as `x`) to dtype `to`. */
export function convertJs(x: string, from: DType, to: DType): string {
  if (from === to) return x;
  if (isInt64(from) || isInt64(to)) return convert64(x, from, to);
  if (to === "bool") return `(!!${x})`;
  if (from === "bool") return `(${x} ? 1 : 0)`;
  switch (to) {
    case "f64":
      return x;
    case "f32":
      return from === "f64" || from === "i32" || from === "u32" ? `Math.fround(${x})` : x;
    case "f16":
      // i8/u8 are exact in f16; every wider type can round.
      return from === "i8" || from === "u8" ? x : `rt.f16round(${x})`;
    case "i32":
      return isNarrowInt(from) ? x : wrapNumberJs(to, x);
    case "u32":
      return isNarrowInt(from) && !DTYPES[from].signed ? x : wrapNumberJs(to, x);
    case "i8":
    case "u8":
    case "i16":
    case "u16":
      return wrapNumberJs(to, x);
    case "c64":
    case "c128":
      // Complex values never convert through a convert node (the front end makes complexConvert intrinsics).
      throw new Error(`CudaScript simulator: internal error (a ${from} value converted to ${to})`);
  }
}

/** The zero a scalar of this type starts as. */
export function zeroJs(t: IR.Type): string {
  if (t.kind === "scalar" && isComplex(t.dtype)) return `rt.${t.dtype}.make(0, 0)`;
  if (t.kind === "scalar" && isInt64(t.dtype)) return ZERO64;
  return t.kind === "scalar" && t.dtype === "bool" ? "false" : "0";
}
