/**
 * Pure intrinsics (math, bit operations, fma/rint, complex functions, fences, `viewIndex`) as JavaScript.
 * `intrinsic` is moved here whole from the former single-file emitter: the intrinsic registry replaces
 * its switch, so its body is kept as it was (the members it reads are the small forwarders below).
 * Synchronising intrinsics never reach it: normalize.ts lifts them into statements (sync.ts).
 */
import type * as IR from "../../ir/nodes";
import { isFloat, type ScalarType } from "../../ir/types";
import type { EmitContext } from "./context";
import type { ModuleEmitter } from "./module";

/** Pure intrinsic calls of one function. */
export class IntrinsicEmitter {
  constructor(private readonly cx: EmitContext) {}

  private get me(): ModuleEmitter {
    return this.cx.me;
  }
  private ex(e: IR.Expr): string {
    return this.cx.emit.ex(e);
  }
  private i64(code: string): string {
    return this.cx.i64(code);
  }
  private special(e: IR.SpecialExpr): string {
    return this.cx.values.special(e);
  }
  private viewIndex(e: IR.IntrinsicExpr): string {
    return this.cx.memory.viewIndex(e);
  }

  intrinsic(e: IR.IntrinsicExpr): string {
    if (e.name === "viewIndex") return this.viewIndex(e);
    if (e.name === "arrayView") throw new Error(`CudaScript simulator: the view '${e.view?.name}' is only a device-function argument`);
    const name = e.name;
    const d = e.type.kind === "scalar" ? e.type.dtype : "f64";
    const args = e.args.map((a) => this.ex(a));
    switch (name) {
      case "popc":
      case "brev":
      case "clz":
      case "ffs":
        // A u64 argument: the 64-bit versions (int64.ts).
        if (e.args[0]!.type.kind === "scalar" && e.args[0]!.type.dtype === "u64") return this.i64(`$L.${e.name}64(${args[0]})`);
        return e.name === "clz" ? `Math.clz32(${args[0]})` : `rt.${e.name}(${args[0]})`;
      case "lanemaskLt":
        // %lanemask_lt: the bits of the lanes below this one (lane 31: 0x7fffffff).
        return `(((1 << ${this.special({ k: "special", type: e.type as ScalarType, reg: "laneid", axis: "x", span: e.span })}) - 1) >>> 0)`;
      case "fma":
        if (d === "f16") return `rt.f16round(rt.fma64(${args[0]}, ${args[1]}, ${args[2]}))`;
        return d === "f32" ? `Math.fround(${args[0]} * ${args[1]} + ${args[2]})` : `rt.fma64(${args[0]}, ${args[1]}, ${args[2]})`;
      case "rint":
        // Round half to even. Math.round rounds halves up, so an odd result exactly 0.5 above x steps
        // back to the even one. Exact for any |x| < 2^52 (x and r are exact in f64, so r - x is too),
        // f16 and f32 values included; keeps -0 and x's sign for -0.5 → -0; NaN and ±Infinity pass.
        return `${this.me.helper("$rint", "function $rint(x) { const r = Math.round(x); return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r; }")}(${args[0]})`;
      case "threadfence":
      case "threadfenceBlock":
      case "threadfenceSystem":
        return "undefined";
      // C's semantics where JavaScript's differ, as the GPU computes (docs/kernel-language.md#semantics):
      // min/max of a NaN give the other operand (-0 stays below +0); pow(1, y) and pow(-1, ±Infinity) are 1.
      case "min":
      case "max":
        if (!isFloat(d)) break;
        return `${this.me.helper(`$f${name}`, `function $f${name}(a, b) { return a !== a ? b : b !== b ? a : Math.${name}(a, b); }`)}(${args.join(", ")})`;
      case "pow": {
        const pow = this.me.helper("$pow", "function $pow(x, y) { return x === 1 || (x === -1 && (y === Infinity || y === -Infinity)) ? 1 : Math.pow(x, y); }");
        return d === "f64" ? `${pow}(${args.join(", ")})` : `${d === "f32" ? "Math.fround" : "rt.f16round"}(${pow}(${args.join(", ")}))`;
      }
      default:
        if (name.startsWith("complex")) return complexJs(e, args);
        break;
    }
    const js = MATH_JS[name];
    if (!js) throw new Error(`CudaScript simulator: '${name}' cannot be used here (synchronisation inside an expression was not lifted)`);
    const call = `${js}(${args.join(", ")})`;
    if (d === "f32" && !EXACT_F32.has(name)) return `Math.fround(${call})`;
    if (d === "f16" && !EXACT_F32.has(name)) return `rt.f16round(${call})`;
    if (d === "i32" && name === "abs") return `(${call} | 0)`;
    return call;
  }
}

/** A complex intrinsic as a call of the simulator's complex functions (runtime/src/simulator/complex-math.ts). */
function complexJs(e: IR.IntrinsicExpr, args: readonly string[]): string {
  const name = e.name as IR.ComplexFunction;
  const result = e.type.kind === "scalar" ? e.type.dtype : "c64";
  const operand = e.args[0]?.type.kind === "scalar" ? e.args[0].type.dtype : result;
  switch (name) {
    case "complex":
      return `rt.${result}.make(${args[0]}, ${args[1]})`;
    case "complexRect":
      return `rt.${result}.rect(${args[0]}, ${args[1]})`;
    case "complexConvert":
      return `rt.${result}.from(${args[0]})`;
    case "complexRe":
      return `${args[0]}.re`;
    case "complexIm":
      return `${args[0]}.im`;
    default: {
      const fn = name.slice("complex".length).toLowerCase();
      return `rt.${operand}.${fn}(${args.join(", ")})`;
    }
  }
}

const MATH_JS: Record<string, string> = {
  sqrt: "Math.sqrt", cbrt: "Math.cbrt", exp: "Math.exp", expm1: "Math.expm1", log: "Math.log", log2: "Math.log2", log10: "Math.log10", log1p: "Math.log1p",
  sin: "Math.sin", cos: "Math.cos", tan: "Math.tan", asin: "Math.asin", acos: "Math.acos", atan: "Math.atan", atan2: "Math.atan2", sinh: "Math.sinh",
  cosh: "Math.cosh", tanh: "Math.tanh", asinh: "Math.asinh", acosh: "Math.acosh", atanh: "Math.atanh", pow: "Math.pow", hypot: "Math.hypot",
  floor: "Math.floor", ceil: "Math.ceil", round: "Math.round", trunc: "Math.trunc", abs: "Math.abs", min: "Math.min", max: "Math.max", sign: "Math.sign",
};
/** Math functions whose result of an f32 argument is exactly representable in f32. */
const EXACT_F32 = new Set(["floor", "ceil", "round", "trunc", "abs", "min", "max", "sign"]);
