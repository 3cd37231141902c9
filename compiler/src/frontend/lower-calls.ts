/**
 * Lowering of calls: device functions (same module or imported), `cuda.*` intrinsics (grid,
 * barriers, warp operations, atomics, bit operations), `Math.*` with f32 staying f32, and `console.log`.
 */
import ts from "typescript";
import { Codes } from "../diagnostics/codes";
import type * as IR from "../ir/nodes";
import { BOOL, F16, F32, F64, I32, U32, VOID, complexPart, isComplex, isFloat, isInt, isInt64, scalar, typeToString, type DType, type ScalarType } from "../ir/types";
import { stripParensAndNonNull } from "./constants";
import { isPure } from "../ir/visit";
import { isCudaReference } from "./module-info";
import type { FunctionDecl } from "./module-info";
import { ARRAY_METHODS } from "./lower-expressions";
import { ArrayVarLowerer } from "./lower-array-vars";
import { indicesThrough } from "../ir/views";
import { mixedSignedness, POISON, ROUNDING_MATH, WEAK } from "./lower-base";
import { FP16_FUNCTIONS } from "./lower-fp16";
import { cudaIntrinsic, mathIntrinsic } from "../intrinsics";
import { lowerIntrinsicCall, type IntrinsicLoweringHost } from "./lower-intrinsic";

/** Methods that launch a kernel: CudaScript's `launch`, and Numba's `forall` shorthand people port. */
const KERNEL_LAUNCH_METHODS = new Set<string>(["launch", "forall"]);

export const ATOMIC_DTYPES: Record<IR.AtomicOp, readonly DType[]> = {
  add: ["i32", "u32", "i64", "u64", "f32", "f64", "f16"],
  sub: ["i32", "u32", "i64", "u64", "f32", "f64", "f16"],
  exch: ["i32", "u32", "i64", "u64", "f32"],
  max: ["i32", "u32", "i64", "u64", "f32", "f64"],
  min: ["i32", "u32", "i64", "u64", "f32", "f64"],
  // Numba's NaN-ignoring max/min; on integers (no NaN) the same as max/min.
  nanmax: ["i32", "u32", "i64", "u64", "f32", "f64"],
  nanmin: ["i32", "u32", "i64", "u64", "f32", "f64"],
  and: ["i32", "u32", "i64", "u64"],
  or: ["i32", "u32", "i64", "u64"],
  xor: ["i32", "u32", "i64", "u64"],
  inc: ["u32"],
  dec: ["u32"],
  compareAndSwap: ["i32", "u32", "i64", "u64"],
};

export function typedArrayNameOf(d: DType): string {
  return typeToString({ kind: "array", dtype: d, rank: 1, space: "global" });
}

export abstract class CallLowerer extends ArrayVarLowerer {

  // ───────────────────────── calls ─────────────────────────

  protected isConsoleLog(call: ts.CallExpression): boolean {
    const c = call.expression;
    return ts.isPropertyAccessExpression(c) && ts.isIdentifier(c.expression) && c.expression.text === "console" && c.name.text === "log" && !this.lookup("console");
  }

  protected lowerPrint(call: ts.CallExpression): IR.Stmt {
    const parts: string[] = [];
    const args: IR.Expr[] = [];
    /** Temporaries of complex values printed part by part (so that each is evaluated once). */
    const temps: IR.Stmt[] = [];
    for (const a of call.arguments) {
      const x = stripParensAndNonNull(a);
      if (ts.isStringLiteral(x) || ts.isNoSubstitutionTemplateLiteral(x)) {
        parts.push(x.text.replace(/%/g, "%%"));
        continue;
      }
      if (ts.isTemplateExpression(x)) {
        let s = x.head.text.replace(/%/g, "%%");
        for (const span of x.templateSpans) {
          const v = this.lowerExpr(span.expression);
          if (v.type.kind === "scalar") {
            const c = this.printable(this.onceForPrint(v, span.expression, temps));
            s += c.fmt;
            args.push(...c.args);
          } else this.report(Codes.TypeMismatch, span.expression, "console.log prints numbers and booleans in kernels");
          s += span.literal.text.replace(/%/g, "%%");
        }
        parts.push(s);
        continue;
      }
      const v = this.lowerExpr(a);
      if (v.type.kind !== "scalar") {
        this.report(Codes.TypeMismatch, a, "console.log prints numbers and booleans in kernels: print one element, e.g. x[i]");
        continue;
      }
      const c = this.printable(this.onceForPrint(v, a, temps));
      parts.push(c.fmt);
      args.push(...c.args);
    }
    const print: IR.PrintStmt = { k: "print", span: this.span(call), format: parts.join(" ") + "\n", args };
    return temps.length ? { k: "block", span: print.span, body: [...temps, print] } : print;
  }

  /** A complex value printed as two parts, held in a temporary unless reading it twice is harmless. */
  private onceForPrint(v: IR.Expr, node: ts.Node, temps: IR.Stmt[]): IR.Expr {
    if (v.type.kind !== "scalar" || !isComplex(v.type.dtype) || v.k === "var" || isPure(v)) return v;
    this.pushScope();
    const t = this.newVar("printed", v.type, false, false, node);
    this.popScope();
    temps.push({ k: "decl", v: t, init: v, span: v.span });
    return { k: "var", type: v.type, v: t, span: v.span };
  }

  protected printable(v: IR.Expr): { fmt: string; args: IR.Expr[] } {
    const d = (v.type as ScalarType).dtype;
    if (d === "u32") return { fmt: "%u", args: [v] };
    if (d === "i64") return { fmt: "%lld", args: [v] };
    if (d === "u64") return { fmt: "%llu", args: [v] };
    if (isInt(d)) return { fmt: "%d", args: [this.convertTo(v, "i32")] };
    // Booleans print as JavaScript prints them: the backends turn a bool argument of %s into "true"/"false".
    if (d === "bool") return { fmt: "%s", args: [v] };
    if (isComplex(d)) {
      // As Python prints a complex number: (1+2j), (1-2j).
      const part = (name: "complexRe" | "complexIm"): IR.Expr => this.convertTo({ k: "intrinsic", type: scalar(complexPart(d)), name, args: [v], span: v.span }, "f64");
      return { fmt: "(%g%+gj)", args: [part("complexRe"), part("complexIm")] };
    }
    return { fmt: "%g", args: [d === "f32" || d === "f16" ? this.convertTo(v, "f64") : v] };
  }

  protected lowerCall(call: ts.CallExpression): IR.Expr {
    const callee = stripParensAndNonNull(call.expression);
    if (call.questionDotToken) {
      this.report(Codes.UnsupportedExpression, call, "optional calls (?.) are not supported in kernels");
      return this.error(call);
    }
    // `child.launch(g, b)(…)`: the outer call's callee is the launch call; `child.launch(g, b)` alone is
    // caught too, so the whole launch gets one diagnostic however far it is written out.
    // `a.subarray(begin, end)`: a view (lower-views.ts).
    if (this.isSubarrayCall(call)) {
      const view = this.lowerSubarray(call);
      if (view) return view;
    }
    const launched = this.launchedKernel(callee) ?? (ts.isCallExpression(callee) ? this.launchedKernel(callee.expression) : undefined);
    if (launched) {
      this.reportKernelLaunch(call, launched.kernel, launched.method);
      return this.error(call);
    }
    const path = this.cudaPath(callee);
    if (path) return this.lowerCudaCall(path, call);
    if (ts.isPropertyAccessExpression(callee)) {
      const obj = stripParensAndNonNull(callee.expression);
      if (ts.isIdentifier(obj) && obj.text === "Math" && !this.lookup("Math")) return this.lowerMathCall(callee.name.text, call);
      if (ts.isIdentifier(obj) && obj.text === "BigInt" && !this.lookup("BigInt") && !this.host.front.resolveName(this.module, "BigInt")) return this.lowerBigIntWrap(callee.name.text, call);
      if (ts.isIdentifier(obj) && obj.text === "console" && !this.lookup("console")) {
        this.report(Codes.UnsupportedExpression, call, callee.name.text === "log" ? "console.log must be a statement of its own" : `console.${callee.name.text} is not available in kernels: use console.log`);
        return this.error(call);
      }
      const base = ts.isIdentifier(obj) ? this.lookup(obj.text) : undefined;
      if (base?.k === "poison") {
        for (const a of call.arguments) this.lowerExpr(a);
        return this.error(call);
      }
      if (ts.isIdentifier(obj) && !base && !this.host.front.resolveName(this.module, obj.text) && !isCudaReference(obj, this.module.cudascript)) {
        this.report(Codes.UnknownIdentifier, obj, `'${obj.text}' is not available in kernels: kernels may use their parameters and locals, module constants, device functions, cuda.* and Math.*`);
        for (const a of call.arguments) if (!ts.isArrowFunction(a) && !ts.isFunctionExpression(a)) this.lowerExpr(a);
        return this.error(call);
      }
      if (base?.k === "var" && base.v.type.kind === "array") {
        this.report(Codes.UnsupportedArrayMethod, callee.name, `array method '${callee.name.text}' is not available in kernels: write a loop over the elements`);
        for (const a of call.arguments) if (!ts.isArrowFunction(a) && !ts.isFunctionExpression(a)) this.lowerExpr(a);
        return this.error(call);
      }
      if (ARRAY_METHODS.has(callee.name.text) && base?.k === "var") {
        this.report(Codes.UnsupportedArrayMethod, callee.name, `'${callee.name.text}' is not available in kernels`);
        return this.error(call);
      }
      this.report(Codes.NotADeviceFunction, call, `'${callee.getText(this.sf)}' cannot be called in a kernel: only cuda.device functions, cuda.* and Math.* functions can be called`);
      return this.error(call);
    }
    if (ts.isIdentifier(callee) && (callee.text === "BigInt" || callee.text === "Number") && !this.lookup(callee.text) && !this.host.front.resolveName(this.module, callee.text))
      return this.lowerNumericConversion(callee.text, call);
    if (ts.isIdentifier(callee)) {
      const local = this.lookup(callee.text);
      if (local?.k === "poison") {
        for (const a of call.arguments) this.lowerExpr(a);
        return this.error(call);
      }
      if (local) {
        this.report(Codes.NotADeviceFunction, callee, `'${callee.text}' is not a function`);
        return this.error(call);
      }
      const sym = this.host.front.resolveName(this.module, callee.text);
      if (sym?.kind === "function") {
        if (sym.fn.kind === "kernel") {
          this.report(Codes.NotADeviceFunction, callee, `'${callee.text}' is a kernel: kernels cannot be called from kernels; move the shared code into a cuda.device function`);
          return this.error(call);
        }
        return this.lowerDeviceCall(sym.fn, call);
      }
      if (sym?.kind === "plainFunction") {
        this.report(Codes.NotADeviceFunction, callee, `'${callee.text}' is a plain function: wrap it to make it callable from kernels: const ${callee.text} = cuda.device((…) => …)`);
        return this.error(call);
      }
      if (sym?.kind === "class") {
        this.report(Codes.UnsupportedClass, callee, "classes are not supported in kernels");
        return this.error(call);
      }
      if (sym?.kind === "unresolvedImport") {
        this.report(Codes.NotADeviceFunction, callee, `'${callee.text}' (imported from "${sym.binding.module}") is not a CudaScript device function`);
        return this.error(call);
      }
      if (sym?.kind === "mutable" || sym?.kind === "const") {
        this.report(Codes.NotADeviceFunction, callee, `'${callee.text}' is not a device function: declare it as const ${callee.text} = cuda.device((…) => …)`);
        return this.error(call);
      }
      this.report(Codes.UnknownIdentifier, callee, `'${callee.text}' is not available in kernels: only cuda.device functions, cuda.* and Math.* functions can be called`);
      return this.error(call);
    }
    this.report(Codes.UnsupportedExpression, call, "this call is not supported in kernels");
    return this.error(call);
  }

  /**
   * `k.launch` or `k.forall` (Numba's launch shorthand) where `k` names a kernel, not a local: a kernel
   * launch written in device code, which CUDA calls dynamic parallelism.
   */
  private launchedKernel(callee: ts.Expression): { kernel: string; method: string } | undefined {
    const c = stripParensAndNonNull(callee);
    if (!ts.isPropertyAccessExpression(c) || !KERNEL_LAUNCH_METHODS.has(c.name.text)) return undefined;
    const obj = stripParensAndNonNull(c.expression);
    if (!ts.isIdentifier(obj) || this.lookup(obj.text)) return undefined;
    const sym = this.host.front.resolveName(this.module, obj.text);
    return sym?.kind === "function" && sym.fn.kind === "kernel" ? { kernel: obj.text, method: c.name.text } : undefined;
  }

  /**
   * Neither CudaScript nor Numba compiles dynamic parallelism (it needs relocatable device code and the
   * device runtime library). The two rewrites that keep the program's meaning: launch the child from the
   * host after the parent (launches on one stream run in order), or call a device function instead.
   */
  private reportKernelLaunch(call: ts.CallExpression, kernel: string, method: string): void {
    const parent = this.decl.kind === "kernel" ? this.decl.name : "parent";
    const where = this.decl.kind === "kernel" ? `after '${parent}' finishes` : `after the kernel that calls '${this.decl.name}' finishes`;
    const forall = method === "forall" ? " (CudaScript has no forall: launches are k.launch(grid, block)(…))" : "";
    this.report(
      Codes.KernelLaunchInKernel,
      call,
      `kernels cannot launch kernels (dynamic parallelism is not supported)${forall}: launch '${kernel}' from the host ${where}, ` +
        `e.g. ${parent}.launch(grid, block)(…); ${kernel}.launch(grid2, block2)(…) (launches on the same stream run in order), ` +
        `or move the shared work into a cuda.device function and call it here`,
    );
  }

  /** What typing an intrinsic record's call needs (lower-intrinsic.ts). */
  protected intrinsicHost(): IntrinsicLoweringHost {
    return {
      defaultFloat: this.defaultFloat,
      sf: this.sf,
      span: (n) => this.span(n),
      operand: (n) => this.scalarOperand(this.lowerExpr(n), n),
      convertTo: (e, d, n) => this.convertTo(e, d, n),
      truthy: (e, n) => this.truthy(e, n),
      warpValueDType: (e) => this.warpValueDType(e),
      expectArgs: (c, min, max, what) => this.expectArgs(c, min, max, what),
      report: (def, n, message) => this.report(def, n, message),
      error: (n) => this.error(n),
      noteF64: (d, n) => this.noteF64(d, n),
    };
  }

  protected expectArgs(call: ts.CallExpression, min: number, max: number, what: string): boolean {
    const n = call.arguments.length;
    if (n < min || n > max) {
      this.report(Codes.WrongArgumentCount, call, `${what} takes ${min === max ? min : `${min} to ${max}`} argument${max === 1 ? "" : "s"}, got ${n}`);
      return false;
    }
    return true;
  }

  /**
   * The type a warp shuffle or match moves `v` as: CUDA's __shfl*_sync / __match_*_sync take 32-bit
   * integers, float and double, so booleans and narrow integers go as i32.
   */
  private warpValueDType(v: IR.Expr): DType {
    let d = (v.type as ScalarType).dtype;
    if (WEAK.has(v)) d = this.weakDefault(v);
    // No shuffle moves a float2/double2: a complex value converts to its part type, which is CS2023
    // (shuffle z.re and z.im).
    if (isComplex(d)) return complexPart(d);
    // i64/u64 move as themselves (CUDA has long long / unsigned long long overloads).
    return d === "bool" || (isInt(d) && d !== "i32" && d !== "u32" && !isInt64(d)) ? "i32" : d;
  }

  protected lowerDeviceCall(fn: FunctionDecl, call: ts.CallExpression): IR.Expr {
    const sig = this.host.deviceSignature(fn);
    if (sig === "recursive") {
      this.report(Codes.Recursion, call, `'${fn.name}' is called recursively; GPUs have no call stack for recursion here: rewrite it as a loop`);
      for (const a of call.arguments) this.lowerExpr(a);
      return this.error(call);
    }
    if (sig === "broken") {
      for (const a of call.arguments) this.lowerExpr(a);
      return this.error(call);
    }
    this.calledDevices.set(sig.id, fn);
    this.callees.add(sig.id);
    if (call.arguments.length !== sig.params.length) {
      this.report(Codes.WrongArgumentCount, call, `'${fn.name}' takes ${sig.params.length} argument${sig.params.length === 1 ? "" : "s"} (${sig.paramNames.join(", ")}), got ${call.arguments.length}`);
    }
    const args: IR.Expr[] = [];
    sig.params.forEach((pt, i) => {
      const a = call.arguments[i];
      if (!a) {
        args.push(pt.kind === "scalar" ? { k: "const", type: pt, value: 0, span: this.span(call) } : this.error(call));
        return;
      }
      const v = pt.kind === "array" ? this.lowerArrayValue(a) : this.lowerExpr(a);
      if (POISON.has(v)) {
        args.push(v);
        return;
      }
      if (pt.kind === "array") {
        if (v.type.kind !== "array" || v.k !== "var") {
          this.report(Codes.TypeMismatch, a, `parameter '${sig.paramNames[i]}' of '${fn.name}' takes ${typeToString(pt)}`);
        } else if (v.type.dtype !== pt.dtype || v.type.rank !== pt.rank) {
          this.report(Codes.WrongDType, a, `parameter '${sig.paramNames[i]}' of '${fn.name}' takes ${typeToString(pt)}, but this is ${typeToString({ ...v.type, space: "global" })}`);
        }
        args.push(this.arrayArgument(v));
      } else if (pt.kind === "scalar") {
        if (v.type.kind !== "scalar") {
          this.report(Codes.TypeMismatch, a, `parameter '${sig.paramNames[i]}' of '${fn.name}' takes ${pt.dtype}, not ${typeToString(v.type)}`);
          args.push(this.error(a));
        } else args.push(this.convertImplicitly(v, pt.dtype, `parameter '${sig.paramNames[i]}' (${pt.dtype}) of '${fn.name}'`, a, a));
      }
    });
    for (const a of call.arguments.slice(sig.params.length)) this.lowerExpr(a);
    return { k: "call", type: sig.returnType, fn: sig.id, args, span: this.span(call) };
  }

  /** `what` names the function in messages: `Math.cbrt`, or `cuda.cbrt` for Numba's spelling of it. */
  /**
   * `BigInt(x)` (number → i64; a bigint stays itself) and `Number(x)` (bigint → f64; a number stays
   * itself): the explicit conversions between the two worlds, which TypeScript requires too.
   */
  protected lowerNumericConversion(name: "BigInt" | "Number" | string, call: ts.CallExpression): IR.Expr {
    if (!this.expectArgs(call, 1, 1, name)) return this.error(call);
    const v = this.scalarOperand(this.lowerExpr(call.arguments[0]!), call.arguments[0]!);
    if (v.type.kind !== "scalar" || POISON.has(v)) return this.error(call);
    const from = v.type.dtype;
    if (name === "Number") {
      if (!isInt64(from)) return v;
      if (v.k === "const" && WEAK.has(v)) return this.weakConst(Number(v.value), call, true);
      return { k: "convert", type: F64, value: v, span: this.span(call) };
    }
    if (isInt64(from)) return v;
    if (v.k === "const" && WEAK.has(v) && typeof v.value === "number") {
      if (!Number.isInteger(v.value)) {
        this.report(Codes.Int64Operation, call, `BigInt(${v.value}) throws a RangeError: a bigint holds whole numbers only; write BigInt(Math.trunc(x))`);
        return this.error(call);
      }
      return this.weakConst(BigInt(v.value), call);
    }
    // A float converts truncating, as C++ does (TypeScript throws on a fraction: keep it whole, e.g. Math.trunc).
    return { k: "convert", type: scalar("i64"), value: from === "bool" ? this.convertTo(v, "i32") : v, span: this.span(call) };
  }

  /** `BigInt.asIntN(64, x)` / `BigInt.asUintN(64, x)`: reinterpret a bigint as i64 / u64 (two's complement). */
  protected lowerBigIntWrap(method: string, call: ts.CallExpression): IR.Expr {
    const to = method === "asIntN" ? "i64" : method === "asUintN" ? "u64" : undefined;
    if (!to) {
      this.report(Codes.Int64Operation, call, `BigInt.${method} is not available in kernels: BigInt(x), BigInt.asIntN(64, x) and BigInt.asUintN(64, x) are`);
      return this.error(call);
    }
    if (!this.expectArgs(call, 2, 2, `BigInt.${method}`)) return this.error(call);
    const bits = this.foldConst(call.arguments[0]!);
    const v = this.scalarOperand(this.lowerExpr(call.arguments[1]!), call.arguments[1]!);
    if (!bits || bits.value !== 64) {
      this.report(Codes.Int64Operation, call.arguments[0]!, `BigInt.${method} takes 64 bits in kernels (the width of i64/u64): write BigInt.${method}(64, …); for fewer bits mask with & ((1n << nn) - 1n)`);
      return this.error(call);
    }
    if (v.type.kind !== "scalar" || POISON.has(v)) return this.error(call);
    if (!isInt64(v.type.dtype)) {
      this.report(Codes.Int64Mixing, call.arguments[1]!, `BigInt.${method} takes a bigint, not a ${v.type.dtype}: write BigInt.${method}(64, BigInt(…))`);
      return this.error(call);
    }
    if (v.type.dtype === to) return v;
    if (v.k === "const" && WEAK.has(v) && typeof v.value === "bigint")
      return { k: "const", type: scalar(to), value: to === "i64" ? BigInt.asIntN(64, v.value) : BigInt.asUintN(64, v.value), span: this.span(call) };
    return { k: "convert", type: scalar(to), value: v, span: this.span(call) };
  }

  protected lowerMathCall(name: string, call: ts.CallExpression, what = `Math.${name}`): IR.Expr {
    const span = this.span(call);
    for (const a of call.arguments) {
      const v = this.lowerExpr(a);
      if (v.type.kind === "scalar" && isInt64(v.type.dtype) && !POISON.has(v)) {
        this.report(Codes.Int64Operation, a, `${what} takes numbers, not bigints (TypeScript refuses it): write ${what}(Number(${a.getText(this.sf)})), or compare bigints directly (x < 0n ? -x : x for an absolute value)`);
        return this.error(call);
      }
    }
    const arg = (i: number) => this.scalarOperand(this.lowerExpr(call.arguments[i]!), call.arguments[i]!);
    const floatOf = (e: IR.Expr): DType => {
      const d = (e.type as ScalarType).dtype;
      return isFloat(d) && !WEAK.has(e) ? d : this.defaultFloat;
    };
    // The Math functions with a signature of their own (intrinsics/math.ts); the rest are typed below.
    const record = mathIntrinsic(name);
    if (record?.signatures) return lowerIntrinsicCall(this.intrinsicHost(), record, call, what);
    if (ROUNDING_MATH.has(name)) {
      if (!this.expectArgs(call, 1, 1, what)) return this.error(call);
      if (name === "trunc") {
        const inner = stripParensAndNonNull(call.arguments[0]!);
        if (ts.isBinaryExpression(inner) && inner.operatorToken.kind === ts.SyntaxKind.SlashToken) {
          const q = this.integerDivision(inner, call);
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
        if (!this.expectArgs(call, 1, 1, what)) return this.error(call);
        const a = arg(0);
        let d = (a.type as ScalarType).dtype;
        if (d === "bool" || (isInt(d) && d !== "u32")) d = "i32";
        if (WEAK.has(a)) d = (a.type as ScalarType).dtype;
        if (d === "u32" && name === "abs") return a;
        return { k: "intrinsic", type: scalar(d), name, args: [this.convertTo(a, d)], span };
      }
      case "min":
      case "max": {
        if (call.arguments.length < 1) {
          this.report(Codes.WrongArgumentCount, call, `${what} needs at least one argument in kernels`);
          return this.error(call);
        }
        let acc = arg(0);
        for (let i = 1; i < call.arguments.length; i++) {
          const b = arg(i);
          if (mixedSignedness(acc, b)) {
            // As in JavaScript, Math.max(-1, 5) is 5: compare the values exactly in f64.
            acc = { k: "intrinsic", type: F64, name, args: [this.convertTo(acc, "f64"), this.convertTo(b, "f64")], span };
            continue;
          }
          const t = this.unifyArith(acc, b, call);
          let d = t.dtype;
          if (d === "bool") d = "i32";
          const r: IR.IntrinsicExpr = { k: "intrinsic", type: scalar(d), name, args: [this.convertTo(t.l, d), this.convertTo(t.r, d)], span };
          acc = r;
        }
        return acc;
      }
      case "fround": {
        if (!this.expectArgs(call, 1, 1, what)) return this.error(call);
        const a = arg(0);
        return WEAK.has(a) ? this.convertTo(a, "f32") : { k: "convert", type: F32, value: a, span };
      }
      case "f16round": {
        // ES2025's conversion to half precision: the f16 spelling of Math.fround.
        if (!this.expectArgs(call, 1, 1, what)) return this.error(call);
        const a = arg(0);
        return WEAK.has(a) ? this.convertTo(a, "f16") : { k: "convert", type: F16, value: a, span };
      }
      case "imul": {
        if (!this.expectArgs(call, 2, 2, what)) return this.error(call);
        return { k: "binary", type: I32, op: "*", left: this.convertTo(arg(0), "i32"), right: this.convertTo(arg(1), "i32"), span };
      }
      case "clz32": {
        if (!this.expectArgs(call, 1, 1, what)) return this.error(call);
        return { k: "intrinsic", type: I32, name: "clz", args: [this.convertTo(arg(0), "u32")], span };
      }
      case "random":
        this.report(Codes.UnknownIdentifier, call, "Math.random is not available in kernels: use cuda.random, one generator state per thread — take a states: Xoroshiro128pStates parameter, draw with cuda.random.xoroshiro128pUniformFloat32(states, i), and make the states on the host with cuda.random.createXoroshiro128pStates(n, seed)");
        return this.error(call);
      default:
        this.report(Codes.UnknownIdentifier, call, `Math.${name} is not available in kernels`);
        return this.error(call);
    }
  }

  protected gridCall(call: ts.CallExpression): { reg: "grid" | "gridsize"; ndim: 1 | 2 | 3 } | undefined {
    const path = this.cudaPath(call.expression);
    if (!path || path.length !== 1 || (path[0] !== "grid" && path[0] !== "gridsize")) return undefined;
    const reg = path[0];
    if (!this.expectArgs(call, 1, 1, `cuda.${reg}`)) return { reg, ndim: 1 };
    const c = this.foldConst(call.arguments[0]!);
    if (!c || (c.value !== 1 && c.value !== 2 && c.value !== 3)) {
      this.report(Codes.NotConstant, call.arguments[0]!, `cuda.${reg} takes the number of dimensions as a constant 1, 2 or 3`);
      return { reg, ndim: 1 };
    }
    return { reg, ndim: c.value as 1 | 2 | 3 };
  }

  /**
   * `cuda.grid64(1)`: the global thread index as an i64 (Numba's cuda.grid, whose ints are 64-bit), for
   * arrays past 2^31 elements: blockIdx.x * blockDim.x + threadIdx.x computed in 64 bits.
   */
  private lowerGrid64(call: ts.CallExpression): IR.Expr {
    const span = this.span(call);
    if (!this.expectArgs(call, 1, 1, "cuda.grid64")) return this.error(call);
    const c = this.foldConst(call.arguments[0]!);
    if (!c || c.value !== 1) {
      this.report(Codes.NotConstant, call.arguments[0]!, "cuda.grid64 takes 1 (one dimension): for y write BigInt(cuda.blockIdx.y) * BigInt(cuda.blockDim.y) + BigInt(cuda.threadIdx.y)");
      return this.error(call);
    }
    const I64 = scalar("i64");
    const wide = (reg: "blockIdx" | "blockDim" | "threadIdx"): IR.Expr => ({ k: "convert", type: I64, value: { k: "special", type: I32, reg, axis: "x", span }, span });
    const product: IR.Expr = { k: "binary", type: I64, op: "*", left: wide("blockIdx"), right: wide("blockDim"), span };
    return { k: "binary", type: I64, op: "+", left: product, right: wide("threadIdx"), span };
  }

  protected lowerCudaCall(path: string[], call: ts.CallExpression): IR.Expr {
    const span = this.span(call);
    const name = path.join(".");
    // Every intrinsic record kernels call as cuda.<name> (intrinsics/); the cases below make other IR.
    const record = cudaIntrinsic(name);
    if (record?.signatures) return lowerIntrinsicCall(this.intrinsicHost(), record, call, `cuda.${name}`);
    if (record && name.startsWith("libdevice.")) {
      // A tuple result (intrinsics/libdevice.ts): only a destructuring declaration takes it.
      this.report(Codes.UnsupportedDestructuring, call, `cuda.${name} returns a tuple: destructure it, e.g. const [a, b] = cuda.${name}(…)`);
      for (const a of call.arguments) this.lowerExpr(a);
      return this.error(call);
    }
    switch (name) {
      case "grid":
      case "gridsize": {
        const g = this.gridCall(call)!;
        if (g.ndim !== 1) {
          this.report(Codes.UnsupportedDestructuring, call, `cuda.${name}(${g.ndim}) returns a tuple: destructure it, e.g. const [x, y] = cuda.${name}(${g.ndim})`);
          return this.error(call);
        }
        return { k: "special", type: I32, reg: g.reg, axis: "x", span };
      }
      case "grid64":
        return this.lowerGrid64(call);
      case "selp":
        // Numba's selp (select without branching) is the ternary: the same typing and the same IR.
        if (!this.expectArgs(call, 3, 3, `cuda.${name}`)) return this.error(call);
        return this.lowerSelect(call, call.arguments[0]!, call.arguments[1]!, call.arguments[2]!, "cuda.selp");
      case "shared.array":
      case "local.array":
      case "const.arrayLike":
        this.report(Codes.ArrayDeclarationPlacement, call, `declare the array on its own: const name = cuda.${name}(…), then use name`);
        return this.error(call);
      case "jit":
      case "device":
        this.report(Codes.NestedFunction, call, `cuda.${name} is used at module level, not inside kernels`);
        return this.error(call);
    }
    if (path[0] === "atomic" && path.length === 2) return this.lowerAtomic(path[1]!, call);
    if (path[0] === "complex" && path.length === 2) return this.lowerComplexCall(path[1]!, call);
    if (path[0] === "fp16" && path.length === 2 && FP16_FUNCTIONS.has(path[1]!)) return this.lowerFp16(path[1]!, call);
    if (path[0] === "random" && path.length === 2) return this.lowerRandom(path[1]!, call);
    this.reportUnknownCuda(name, call.expression);
    for (const a of call.arguments) this.lowerExpr(a);
    return this.error(call);
  }

  /** `cuda.fp16.<name>(…)` (lower-fp16.ts): its arguments must be f16 (literals become f16). */
  protected lowerFp16(name: string, call: ts.CallExpression): IR.Expr {
    const f = FP16_FUNCTIONS.get(name)!;
    const what = `cuda.fp16.${name}`;
    if (!this.expectArgs(call, f.arity, f.arity, what)) return this.error(call);
    const span = this.span(call);
    const args = call.arguments.map((n) => {
      const v = this.scalarOperand(this.lowerExpr(n), n);
      if (POISON.has(v)) return v;
      const d = (v.type as ScalarType).dtype;
      if (d !== "f16" && !WEAK.has(v))
        this.report(Codes.F16Mixed, n, `${what} takes f16 values, not ${d}: convert with Math.f16round(${n.getText(this.sf)})`);
      return this.convertTo(v, "f16", n);
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

  protected lowerAtomic(opName: string, call: ts.CallExpression): IR.Expr {
    const span = this.span(call);
    if (!(opName in ATOMIC_DTYPES)) {
      this.report(Codes.UnknownCudaApi, call.expression, `cuda.atomic.${opName} does not exist: the atomics are ${Object.keys(ATOMIC_DTYPES).join(", ")}`);
      return this.error(call);
    }
    const op = opName as IR.AtomicOp;
    const nargs = op === "compareAndSwap" ? 4 : 3;
    if (!this.expectArgs(call, nargs, nargs, `cuda.atomic.${op}`)) return this.error(call);
    const arrNode = call.arguments[0]!;
    const arr = this.lowerArrayValue(arrNode);
    if (arr.type.kind !== "array" || arr.k !== "var") {
      this.report(Codes.NotAnArray, arrNode, `the first argument of cuda.atomic.${op} is the array to update`);
      return this.error(call);
    }
    const at = arr.type;
    if (at.space === "const" || at.space === "local") {
      this.report(Codes.WrongDType, arrNode, `atomics work on global and shared arrays, not ${at.space} arrays`);
    }
    if (isComplex(at.dtype)) {
      // CUDA has no atomic on float2/double2: a complex element is written whole (CS2024).
      const a = arrNode.getText(this.sf);
      this.report(
        Codes.ComplexPartWrite,
        arrNode,
        `CUDA has no atomic operations on complex numbers (${typeToString(at)}): keep the real and imaginary parts in two real arrays and cuda.atomic.${op} each (e.g. cuda.atomic.${op}(${a}Re, i, z.re)), or reduce per block first`,
      );
      return this.error(call);
    }
    if (at.dtype === "f16" && !ATOMIC_DTYPES[op].includes("f16")) {
      // CUDA's only half atomic is atomicAdd (atom.add.noftz.f16, sm_70+); sub is the add of the negation.
      this.report(Codes.F16AtomicUnsupported, arrNode, `CUDA has no f16 cuda.atomic.${op}: only cuda.atomic.add and cuda.atomic.sub work on f16 arrays; keep this array in f32 (Float32Array) for cuda.atomic.${op}`);
    } else if (!ATOMIC_DTYPES[op].includes(at.dtype)) {
      this.report(Codes.WrongDType, arrNode, `cuda.atomic.${op} works on ${ATOMIC_DTYPES[op].map(typedArrayNameOf).join(", ")}, not ${typeToString(at)}`);
    }
    const idxNode = stripParensAndNonNull(call.arguments[1]!);
    let indices: IR.Expr[];
    if (ts.isArrayLiteralExpression(idxNode)) indices = idxNode.elements.map((n) => this.lowerIndex(n));
    else indices = [this.lowerIndex(idxNode)];
    if (indices.length !== at.rank) {
      this.report(Codes.WrongIndexCount, idxNode, at.rank === 1 ? "index a 1-D array with one index" : `index a ${at.rank}-D array with [${"i, j, k".slice(0, at.rank * 3 - 2)}]`);
      return this.error(call);
    }
    const d = at.dtype;
    const valueIdx = op === "compareAndSwap" ? 3 : 2;
    // A bigint array takes bigint values (CS2018 for a number, as TypeScript's overloads refuse it).
    const operand = (n: ts.Expression) => {
      const v = this.scalarOperand(this.lowerExpr(n), n);
      return this.convertImplicitly(v, d, `${typeToString(at)} (cuda.atomic.${op})`, n, isInt64(d) || (v.type.kind === "scalar" && isInt64(v.type.dtype)) ? n : undefined, true);
    };
    const value = operand(call.arguments[valueIdx]!);
    const expected = op === "compareAndSwap" ? operand(call.arguments[2]!) : undefined;
    // Through an array variable: the chosen array's (lower-array-vars.ts); a view: the base's (lower-views.ts).
    const chosen = this.atomicThroughChoice(arr, (a) => ({ k: "atomic", type: scalar(d), op, array: a, indices, value, expected, span }), span);
    if (chosen) return chosen;
    const view = this.viewOfExpr(arr);
    if (view) return { k: "atomic", type: scalar(d), op, array: view.base, indices: indicesThrough(view, indices, span), value, expected, span };
    return { k: "atomic", type: scalar(d), op, array: arr, indices, value, expected, span };
  }
}
