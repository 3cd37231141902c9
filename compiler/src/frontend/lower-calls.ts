/**
 * Lowering of calls: the dispatch of every call (device functions, views' `subarray`, `cuda.*`,
 * `Math.*`, `BigInt`/`Number`, grid groups), and the intrinsics of `cuda.*` (grid, barriers, warp
 * operations, bit operations), `Math.*` with f32 staying f32, and `cuda.fp16.*`. Device-function calls
 * are lower-device-calls.ts, atomics lower-atomics.ts, `console.log` lower-print.ts.
 */
import ts from "typescript";
import { Codes } from "../diagnostics/codes";
import type * as IR from "../ir/nodes";
import { BOOL, F16, F32, F64, I32, U32, VOID, complexPart, isComplex, isFloat, isInt, isInt64, scalar, type DType, type ScalarType } from "../ir/types";
import { stripParensAndNonNull } from "./constants";
import { isCudaReference } from "./module-info";
import { ARRAY_METHODS } from "./lower-expressions";
import { mixedSignedness, POISON, ROUNDING_MATH, WEAK } from "./lower-base";
import { FP16_FUNCTIONS } from "./lower-fp16";
import { cudaIntrinsic, mathIntrinsic } from "../intrinsics";
import { lowerIntrinsicCall } from "./lower-intrinsic";
import type { LoweringContext } from "./lower-context";

export class CallLowerer {
  constructor(private readonly ctx: LoweringContext) {}

  lowerCall(call: ts.CallExpression): IR.Expr {
    // `g.sync()` and `cuda.cg.thisGrid().sync()` (lower-grid-group.ts).
    const gridGroupMethod = this.ctx.gridGroup.lowerMethodCall(call);
    if (gridGroupMethod) return gridGroupMethod;
    const callee = stripParensAndNonNull(call.expression);
    if (call.questionDotToken) {
      this.ctx.report(Codes.UnsupportedExpression, call, "optional calls (?.) are not supported in kernels");
      return this.ctx.error(call);
    }
    // `child.launch(g, b)(…)`: the outer call's callee is the launch call; `child.launch(g, b)` alone is
    // caught too, so the whole launch gets one diagnostic however far it is written out.
    // `a.subarray(begin, end)`: a view (lower-views.ts).
    if (this.ctx.views.isSubarrayCall(call)) {
      const view = this.ctx.views.lowerSubarray(call);
      if (view) return view;
    }
    const launched = this.ctx.devices.launchedKernel(callee) ?? (ts.isCallExpression(callee) ? this.ctx.devices.launchedKernel(callee.expression) : undefined);
    if (launched) {
      this.ctx.devices.reportKernelLaunch(call, launched.kernel, launched.method);
      return this.ctx.error(call);
    }
    const path = this.ctx.expr.cudaPath(callee);
    if (path) return this.ctx.gridGroup.thisGridAsValue(path, call) ?? this.lowerCudaCall(path, call);
    if (ts.isPropertyAccessExpression(callee)) {
      const obj = stripParensAndNonNull(callee.expression);
      if (ts.isIdentifier(obj) && obj.text === "Math" && !this.ctx.lookup("Math")) return this.lowerMathCall(callee.name.text, call);
      if (ts.isIdentifier(obj) && obj.text === "BigInt" && !this.ctx.lookup("BigInt") && !this.ctx.host.front.resolveName(this.ctx.module, "BigInt")) return this.ctx.conv.lowerBigIntWrap(callee.name.text, call);
      if (ts.isIdentifier(obj) && obj.text === "console" && !this.ctx.lookup("console")) {
        this.ctx.report(Codes.UnsupportedExpression, call, callee.name.text === "log" ? "console.log must be a statement of its own" : `console.${callee.name.text} is not available in kernels: use console.log`);
        return this.ctx.error(call);
      }
      const base = ts.isIdentifier(obj) ? this.ctx.lookup(obj.text) : undefined;
      if (base?.k === "poison") {
        for (const a of call.arguments) this.ctx.expr.lowerExpr(a);
        return this.ctx.error(call);
      }
      if (ts.isIdentifier(obj) && !base && !this.ctx.host.front.resolveName(this.ctx.module, obj.text) && !isCudaReference(obj, this.ctx.module.cudascript)) {
        this.ctx.report(Codes.UnknownIdentifier, obj, `'${obj.text}' is not available in kernels: kernels may use their parameters and locals, module constants, device functions, cuda.* and Math.*`);
        for (const a of call.arguments) if (!ts.isArrowFunction(a) && !ts.isFunctionExpression(a)) this.ctx.expr.lowerExpr(a);
        return this.ctx.error(call);
      }
      if (base?.k === "var" && base.v.type.kind === "array") {
        this.ctx.report(Codes.UnsupportedArrayMethod, callee.name, `array method '${callee.name.text}' is not available in kernels: write a loop over the elements`);
        for (const a of call.arguments) if (!ts.isArrowFunction(a) && !ts.isFunctionExpression(a)) this.ctx.expr.lowerExpr(a);
        return this.ctx.error(call);
      }
      if (ARRAY_METHODS.has(callee.name.text) && base?.k === "var") {
        this.ctx.report(Codes.UnsupportedArrayMethod, callee.name, `'${callee.name.text}' is not available in kernels`);
        return this.ctx.error(call);
      }
      this.ctx.report(Codes.NotADeviceFunction, call, `'${callee.getText(this.ctx.sf)}' cannot be called in a kernel: only cuda.device functions, cuda.* and Math.* functions can be called`);
      return this.ctx.error(call);
    }
    if (ts.isIdentifier(callee) && (callee.text === "BigInt" || callee.text === "Number") && !this.ctx.lookup(callee.text) && !this.ctx.host.front.resolveName(this.ctx.module, callee.text))
      return this.ctx.conv.lowerNumericConversion(callee.text, call);
    if (ts.isIdentifier(callee)) {
      const local = this.ctx.lookup(callee.text);
      if (local?.k === "poison") {
        for (const a of call.arguments) this.ctx.expr.lowerExpr(a);
        return this.ctx.error(call);
      }
      if (local) {
        this.ctx.report(Codes.NotADeviceFunction, callee, `'${callee.text}' is not a function`);
        return this.ctx.error(call);
      }
      const sym = this.ctx.host.front.resolveName(this.ctx.module, callee.text);
      if (sym?.kind === "function") {
        if (sym.fn.kind === "kernel") {
          this.ctx.report(Codes.NotADeviceFunction, callee, `'${callee.text}' is a kernel: kernels cannot be called from kernels; move the shared code into a cuda.device function`);
          return this.ctx.error(call);
        }
        return this.ctx.devices.lowerDeviceCall(sym.fn, call);
      }
      if (sym?.kind === "plainFunction") {
        this.ctx.report(Codes.NotADeviceFunction, callee, `'${callee.text}' is a plain function: wrap it to make it callable from kernels: const ${callee.text} = cuda.device((…) => …)`);
        return this.ctx.error(call);
      }
      if (sym?.kind === "class") {
        this.ctx.report(Codes.UnsupportedClass, callee, "classes are not supported in kernels");
        return this.ctx.error(call);
      }
      if (sym?.kind === "unresolvedImport") {
        this.ctx.report(Codes.NotADeviceFunction, callee, `'${callee.text}' (imported from "${sym.binding.module}") is not a CudaScript device function`);
        return this.ctx.error(call);
      }
      if (sym?.kind === "mutable" || sym?.kind === "const") {
        this.ctx.report(Codes.NotADeviceFunction, callee, `'${callee.text}' is not a device function: declare it as const ${callee.text} = cuda.device((…) => …)`);
        return this.ctx.error(call);
      }
      this.ctx.report(Codes.UnknownIdentifier, callee, `'${callee.text}' is not available in kernels: only cuda.device functions, cuda.* and Math.* functions can be called`);
      return this.ctx.error(call);
    }
    this.ctx.report(Codes.UnsupportedExpression, call, "this call is not supported in kernels");
    return this.ctx.error(call);
  }

  expectArgs(call: ts.CallExpression, min: number, max: number, what: string): boolean {
    const n = call.arguments.length;
    if (n < min || n > max) {
      this.ctx.report(Codes.WrongArgumentCount, call, `${what} takes ${min === max ? min : `${min} to ${max}`} argument${max === 1 ? "" : "s"}, got ${n}`);
      return false;
    }
    return true;
  }

  /**
   * The type a warp shuffle or match moves `v` as: CUDA's __shfl*_sync / __match_*_sync take 32-bit
   * integers, float and double, so booleans and narrow integers go as i32.
   */
  warpValueDType(v: IR.Expr): DType {
    let d = (v.type as ScalarType).dtype;
    if (WEAK.has(v)) d = this.ctx.weakDefault(v);
    // No shuffle moves a float2/double2: a complex value converts to its part type, which is CS2023
    // (shuffle z.re and z.im).
    if (isComplex(d)) return complexPart(d);
    // i64/u64 move as themselves (CUDA has long long / unsigned long long overloads).
    return d === "bool" || (isInt(d) && d !== "i32" && d !== "u32" && !isInt64(d)) ? "i32" : d;
  }

  /** `what` names the function in messages: `Math.cbrt`, or `cuda.cbrt` for Numba's spelling of it. */
  lowerMathCall(name: string, call: ts.CallExpression, what = `Math.${name}`): IR.Expr {
    const span = this.ctx.span(call);
    for (const a of call.arguments) {
      const v = this.ctx.expr.lowerExpr(a);
      if (v.type.kind === "scalar" && isInt64(v.type.dtype) && !POISON.has(v)) {
        this.ctx.report(Codes.Int64Operation, a, `${what} takes numbers, not bigints (TypeScript refuses it): write ${what}(Number(${a.getText(this.ctx.sf)})), or compare bigints directly (x < 0n ? -x : x for an absolute value)`);
        return this.ctx.error(call);
      }
    }
    const arg = (i: number) => this.ctx.conv.scalarOperand(this.ctx.expr.lowerExpr(call.arguments[i]!), call.arguments[i]!);
    const floatOf = (e: IR.Expr): DType => {
      const d = (e.type as ScalarType).dtype;
      return isFloat(d) && !WEAK.has(e) ? d : this.ctx.defaultFloat;
    };
    // The Math functions with a signature of their own (intrinsics/math.ts); the rest are typed below.
    const record = mathIntrinsic(name);
    if (record?.signatures) return lowerIntrinsicCall(this.ctx, record, call, what);
    if (ROUNDING_MATH.has(name)) {
      if (!this.expectArgs(call, 1, 1, what)) return this.ctx.error(call);
      if (name === "trunc") {
        const inner = stripParensAndNonNull(call.arguments[0]!);
        if (ts.isBinaryExpression(inner) && inner.operatorToken.kind === ts.SyntaxKind.SlashToken) {
          const q = this.ctx.ops.integerDivision(inner, call);
          if (q && q.type.kind === "scalar" && isInt(q.type.dtype)) return q;
          if (q && q.k === "intrinsic") return q;
          if (q) return { k: "intrinsic", type: q.type, name: "trunc", args: [q], span };
        }
      }
      const a = arg(0);
      const d = (a.type as ScalarType).dtype;
      if (isInt(d) || d === "bool") return a; // already whole
      return { k: "intrinsic", type: scalar(d), name: name as IR.MathFunction, args: [a], span };
    }
    switch (name) {
      case "abs":
      case "sign": {
        if (!this.expectArgs(call, 1, 1, what)) return this.ctx.error(call);
        const a = arg(0);
        let d = (a.type as ScalarType).dtype;
        if (d === "bool" || (isInt(d) && d !== "u32")) d = "i32";
        if (WEAK.has(a)) d = (a.type as ScalarType).dtype;
        if (d === "u32" && name === "abs") return a;
        return { k: "intrinsic", type: scalar(d), name, args: [this.ctx.conv.convertTo(a, d)], span };
      }
      case "min":
      case "max": {
        if (call.arguments.length < 1) {
          this.ctx.report(Codes.WrongArgumentCount, call, `${what} needs at least one argument in kernels`);
          return this.ctx.error(call);
        }
        let acc = arg(0);
        for (let i = 1; i < call.arguments.length; i++) {
          const b = arg(i);
          if (mixedSignedness(acc, b)) {
            // As in JavaScript, Math.max(-1, 5) is 5: compare the values exactly in f64.
            acc = { k: "intrinsic", type: F64, name, args: [this.ctx.conv.convertTo(acc, "f64"), this.ctx.conv.convertTo(b, "f64")], span };
            continue;
          }
          const t = this.ctx.conv.unifyArith(acc, b, call);
          let d = t.dtype;
          if (d === "bool") d = "i32";
          const r: IR.IntrinsicExpr = { k: "intrinsic", type: scalar(d), name, args: [this.ctx.conv.convertTo(t.l, d), this.ctx.conv.convertTo(t.r, d)], span };
          acc = r;
        }
        return acc;
      }
      case "fround": {
        if (!this.expectArgs(call, 1, 1, what)) return this.ctx.error(call);
        const a = arg(0);
        return WEAK.has(a) ? this.ctx.conv.convertTo(a, "f32") : { k: "convert", type: F32, value: a, span };
      }
      case "f16round": {
        // ES2025's conversion to half precision: the f16 spelling of Math.fround.
        if (!this.expectArgs(call, 1, 1, what)) return this.ctx.error(call);
        const a = arg(0);
        return WEAK.has(a) ? this.ctx.conv.convertTo(a, "f16") : { k: "convert", type: F16, value: a, span };
      }
      case "imul": {
        if (!this.expectArgs(call, 2, 2, what)) return this.ctx.error(call);
        return { k: "binary", type: I32, op: "*", left: this.ctx.conv.convertTo(arg(0), "i32"), right: this.ctx.conv.convertTo(arg(1), "i32"), span };
      }
      case "clz32": {
        if (!this.expectArgs(call, 1, 1, what)) return this.ctx.error(call);
        return { k: "intrinsic", type: I32, name: "clz", args: [this.ctx.conv.convertTo(arg(0), "u32")], span };
      }
      case "random":
        this.ctx.report(Codes.UnknownIdentifier, call, "Math.random is not available in kernels: use cuda.random, one generator state per thread — take a states: Xoroshiro128pStates parameter, draw with cuda.random.xoroshiro128pUniformFloat32(states, i), and make the states on the host with cuda.random.createXoroshiro128pStates(n, seed)");
        return this.ctx.error(call);
      default:
        this.ctx.report(Codes.UnknownIdentifier, call, `Math.${name} is not available in kernels`);
        return this.ctx.error(call);
    }
  }

  gridCall(call: ts.CallExpression): { reg: "grid" | "gridsize"; ndim: 1 | 2 | 3 } | undefined {
    const path = this.ctx.expr.cudaPath(call.expression);
    if (!path || path.length !== 1 || (path[0] !== "grid" && path[0] !== "gridsize")) return undefined;
    const reg = path[0];
    if (!this.expectArgs(call, 1, 1, `cuda.${reg}`)) return { reg, ndim: 1 };
    const c = this.ctx.foldConst(call.arguments[0]!);
    if (!c || (c.value !== 1 && c.value !== 2 && c.value !== 3)) {
      this.ctx.report(Codes.NotConstant, call.arguments[0]!, `cuda.${reg} takes the number of dimensions as a constant 1, 2 or 3`);
      return { reg, ndim: 1 };
    }
    return { reg, ndim: c.value as 1 | 2 | 3 };
  }

  /**
   * `cuda.grid64(1)`: the global thread index as an i64 (Numba's cuda.grid, whose ints are 64-bit), for
   * arrays past 2^31 elements: blockIdx.x * blockDim.x + threadIdx.x computed in 64 bits.
   */
  private lowerGrid64(call: ts.CallExpression): IR.Expr {
    const span = this.ctx.span(call);
    if (!this.expectArgs(call, 1, 1, "cuda.grid64")) return this.ctx.error(call);
    const c = this.ctx.foldConst(call.arguments[0]!);
    if (!c || c.value !== 1) {
      this.ctx.report(Codes.NotConstant, call.arguments[0]!, "cuda.grid64 takes 1 (one dimension): for y write BigInt(cuda.blockIdx.y) * BigInt(cuda.blockDim.y) + BigInt(cuda.threadIdx.y)");
      return this.ctx.error(call);
    }
    const I64 = scalar("i64");
    const wide = (reg: "blockIdx" | "blockDim" | "threadIdx"): IR.Expr => ({ k: "convert", type: I64, value: { k: "special", type: I32, reg, axis: "x", span }, span });
    const product: IR.Expr = { k: "binary", type: I64, op: "*", left: wide("blockIdx"), right: wide("blockDim"), span };
    return { k: "binary", type: I64, op: "+", left: product, right: wide("threadIdx"), span };
  }

  lowerCudaCall(path: string[], call: ts.CallExpression): IR.Expr {
    const span = this.ctx.span(call);
    const name = path.join(".");
    // Every intrinsic record kernels call as cuda.<name> (intrinsics/); the cases below make other IR.
    const record = cudaIntrinsic(name);
    if (record?.signatures) return lowerIntrinsicCall(this.ctx, record, call, `cuda.${name}`);
    if (record && name.startsWith("libdevice.")) {
      // A tuple result (intrinsics/libdevice.ts): only a destructuring declaration takes it.
      this.ctx.report(Codes.UnsupportedDestructuring, call, `cuda.${name} returns a tuple: destructure it, e.g. const [a, b] = cuda.${name}(…)`);
      for (const a of call.arguments) this.ctx.expr.lowerExpr(a);
      return this.ctx.error(call);
    }
    switch (name) {
      case "grid":
      case "gridsize": {
        const g = this.gridCall(call)!;
        if (g.ndim !== 1) {
          this.ctx.report(Codes.UnsupportedDestructuring, call, `cuda.${name}(${g.ndim}) returns a tuple: destructure it, e.g. const [x, y] = cuda.${name}(${g.ndim})`);
          return this.ctx.error(call);
        }
        return { k: "special", type: I32, reg: g.reg, axis: "x", span };
      }
      case "grid64":
        return this.lowerGrid64(call);
      case "selp":
        // Numba's selp (select without branching) is the ternary: the same typing and the same IR.
        if (!this.expectArgs(call, 3, 3, `cuda.${name}`)) return this.ctx.error(call);
        return this.ctx.ops.lowerSelect(call, call.arguments[0]!, call.arguments[1]!, call.arguments[2]!, "cuda.selp");
      case "shared.array":
      case "local.array":
      case "const.arrayLike":
        this.ctx.report(Codes.ArrayDeclarationPlacement, call, `declare the array on its own: const name = cuda.${name}(…), then use name`);
        return this.ctx.error(call);
      case "jit":
      case "device":
        this.ctx.report(Codes.NestedFunction, call, `cuda.${name} is used at module level, not inside kernels`);
        return this.ctx.error(call);
    }
    if (path[0] === "atomic" && path.length === 2) return this.ctx.atomics.lowerAtomic(path[1]!, call);
    if (path[0] === "complex" && path.length === 2) return this.ctx.complex.lowerComplexCall(path[1]!, call);
    if (path[0] === "fp16" && path.length === 2 && FP16_FUNCTIONS.has(path[1]!)) return this.lowerFp16(path[1]!, call);
    if (path[0] === "random" && path.length === 2) return this.ctx.random.lowerRandom(path[1]!, call);
    this.ctx.expr.reportUnknownCuda(name, call.expression);
    for (const a of call.arguments) this.ctx.expr.lowerExpr(a);
    return this.ctx.error(call);
  }

  /** `cuda.fp16.<name>(…)` (lower-fp16.ts): its arguments must be f16 (literals become f16). */
  lowerFp16(name: string, call: ts.CallExpression): IR.Expr {
    const f = FP16_FUNCTIONS.get(name)!;
    const what = `cuda.fp16.${name}`;
    if (!this.expectArgs(call, f.arity, f.arity, what)) return this.ctx.error(call);
    const span = this.ctx.span(call);
    const args = call.arguments.map((n) => {
      const v = this.ctx.conv.scalarOperand(this.ctx.expr.lowerExpr(n), n);
      if (POISON.has(v)) return v;
      const d = (v.type as ScalarType).dtype;
      if (d !== "f16" && !WEAK.has(v))
        this.ctx.report(Codes.F16Mixed, n, `${what} takes f16 values, not ${d}: convert with Math.f16round(${n.getText(this.ctx.sf)})`);
      return this.ctx.conv.convertTo(v, "f16", n);
    });
    switch (f.kind) {
      case "arith":
        return { k: "binary", type: F16, op: f.op, left: args[0]!, right: args[1]!, span };
      case "compare":
        return { k: "compare", type: BOOL, op: f.op, operandType: F16, left: args[0]!, right: args[1]!, span };
      case "neg":
        return { k: "unary", type: F16, op: "-", operand: args[0]!, span };
      case "intrinsic":
        return { k: "intrinsic", type: F16, name: f.name, args, span };
      case "powOf":
        return { k: "intrinsic", type: F16, name: "pow", args: [{ k: "const", type: F16, value: f.base, span }, args[0]!], span };
      case "reciprocal": {
        // hrcp: an f16 division, one rounding (the f32 quotient of two halves rounds to the correct f16).
        if (!f.of) return { k: "binary", type: F16, op: "/", left: { k: "const", type: F16, value: 1, span }, right: args[0]!, span };
        // hrsqrt: one rounding, as Numba's (cuda_fp16.hpp: the f32 rsqrt of the f16 value, cvt.rn.f16.f32 once):
        // 1 / sqrt in f32 of the exact f32 value, then converted to f16. Rounding sqrt to f16 first was off
        // by an f16 ulp on about a quarter of the inputs (test/emulation/fp16-hrsqrt.test.ts).
        const x32: IR.Expr = { k: "convert", type: F32, value: args[0]!, span };
        const root: IR.Expr = { k: "intrinsic", type: F32, name: f.of, args: [x32], span };
        const reciprocal: IR.Expr = { k: "binary", type: F32, op: "/", left: { k: "const", type: F32, value: 1, span }, right: root, span };
        return { k: "convert", type: F16, value: reciprocal, span };
      }
    }
  }

}
