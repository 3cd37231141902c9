/**
 * Calls of device functions (same module or imported): arguments checked and converted against the
 * callee's signature, arrays passed whole or as views; and kernel launches written in device code
 * (dynamic parallelism), which are reported with the rewrites that keep the program's meaning.
 */
import ts from "typescript";
import { Codes } from "../diagnostics/codes";
import type * as IR from "../ir/nodes";
import { typeToString, type RecordType } from "../ir/types";
import { sameRecordFields } from "../dtypes/records";
import type { DeviceSignature } from "./lower-base";
import { stripParensAndNonNull } from "./constants";
import type { FunctionDecl } from "./module-info";
import { POISON } from "./lower-base";
import type { LoweringContext } from "./lower-context";

/** Methods that launch a kernel: CudaScript's `launch`, and Numba's `forall` shorthand people port. */
const KERNEL_LAUNCH_METHODS = new Set<string>(["launch", "forall"]);

export class DeviceCallLowerer {
  constructor(private readonly ctx: LoweringContext) {}

  /**
   * `resultArrays`: for a function with a record result, the caller's one-element arrays (one per
   * field) it returns the record through, passed after the arguments (lower-records.ts callForRecord).
   */
  lowerDeviceCall(fn: FunctionDecl, call: ts.CallExpression, resultArrays?: readonly IR.VarExpr[]): IR.Expr {
    const full = this.ctx.host.deviceSignature(fn);
    const result = typeof full === "object" ? this.ctx.records.recordResultOf(fn) : undefined;
    if (result && !resultArrays) {
      this.ctx.report(Codes.RecordUnsupported, call, `'${fn.name}' returns a ${result.name} record, which kernels only copy: store it in a local first (const q = ${call.getText(this.ctx.sf)}; then q.${result.layout.fields[0]!.name}) or into an element (ps[i] = ${call.getText(this.ctx.sf)})`);
      // The other arguments are still checked; a record argument is what the function takes.
      for (const a of call.arguments) if (!this.ctx.records.isRecordElement(a) && !this.ctx.records.recordLocalOf(a)) this.ctx.expr.lowerExpr(a);
      return this.ctx.error(call);
    }
    const n = result ? result.layout.fields.length : 0;
    const sig = typeof full === "object" && n ? { ...full, params: full.params.slice(0, -n), paramNames: full.paramNames.slice(0, -n) } : full;
    const e = this.lowerDeviceCallWith(fn, sig, call);
    return resultArrays && e.k === "call" ? { ...e, args: [...e.args, ...resultArrays] } : e;
  }

  private lowerDeviceCallWith(fn: FunctionDecl, sig: DeviceSignature | "recursive" | "broken", call: ts.CallExpression): IR.Expr {
    if (sig === "recursive") {
      this.ctx.report(Codes.Recursion, call, `'${fn.name}' is called recursively, so its result type must be written (TypeScript asks the same, TS7023): annotate it, e.g. cuda.device((n: i32): i32 => …)`);
      for (const a of call.arguments) this.ctx.expr.lowerExpr(a);
      return this.ctx.error(call);
    }
    if (sig === "broken") {
      for (const a of call.arguments) this.ctx.expr.lowerExpr(a);
      return this.ctx.error(call);
    }
    this.ctx.calledDevices.set(sig.id, fn);
    this.ctx.callees.add(sig.id);
    const records = this.ctx.records.recordParamsOf(fn);
    if (records) return this.lowerRecordCall(fn, sig, call, records);
    if (call.arguments.length !== sig.params.length) {
      this.ctx.report(Codes.WrongArgumentCount, call, `'${fn.name}' takes ${sig.params.length} argument${sig.params.length === 1 ? "" : "s"} (${sig.paramNames.join(", ")}), got ${call.arguments.length}`);
    }
    const args: IR.Expr[] = [];
    sig.params.forEach((pt, i) => args.push(this.argument(fn, pt, sig.paramNames[i]!, call.arguments[i], call)));
    for (const a of call.arguments.slice(sig.params.length)) this.ctx.expr.lowerExpr(a);
    return { k: "call", type: sig.returnType, fn: sig.id, args, span: this.ctx.span(call) };
  }

  /** The argument `a` for a parameter of type `pt` (its zero or an error when missing). */
  private argument(fn: FunctionDecl, pt: IR.IrFunction["params"][number]["type"], param: string, a: ts.Expression | undefined, call: ts.CallExpression): IR.Expr {
    if (!a) return pt.kind === "scalar" ? { k: "const", type: pt, value: 0, span: this.ctx.span(call) } : this.ctx.error(call);
    if (this.ctx.records.fieldArrays.of(a)) return this.ctx.records.fieldArrays.reportWhole(a);
    const v = pt.kind === "array" ? this.ctx.views.lowerArrayValue(a) : this.ctx.expr.lowerExpr(a);
    if (POISON.has(v)) return v;
    if (pt.kind === "array") {
      if (v.type.kind !== "array" || v.k !== "var") {
        this.ctx.report(Codes.TypeMismatch, a, `parameter '${param}' of '${fn.name}' takes ${typeToString(pt)}`);
      } else if ((pt.record || v.type.record) && (pt.record?.name !== v.type.record?.name || !pt.record || !v.type.record || !sameRecordFields(pt.record.layout, v.type.record.layout) || v.type.rank !== pt.rank)) {
        // Record arrays travel as bytes: only the same record type (and rank) reads the same fields.
        this.ctx.report(Codes.RecordArgument, a, `parameter '${param}' of '${fn.name}' takes ${typeToString(pt)}, but this is ${typeToString({ ...v.type, space: "global" })}: pass a record array of that record type`);
      } else if (v.type.dtype !== pt.dtype || v.type.rank !== pt.rank) {
        this.ctx.report(Codes.WrongDType, a, `parameter '${param}' of '${fn.name}' takes ${typeToString(pt)}, but this is ${typeToString({ ...v.type, space: "global" })}`);
      }
      return this.ctx.arrayVars.arrayArgument(v, () => this.ctx.views.arrayArgument(v));
    }
    if (pt.kind === "scalar") {
      if (v.type.kind !== "scalar") {
        this.ctx.report(Codes.TypeMismatch, a, `parameter '${param}' of '${fn.name}' takes ${pt.dtype}, not ${typeToString(v.type)}`);
        return this.ctx.error(a);
      }
      return this.ctx.conv.convertImplicitly(v, pt.dtype, `parameter '${param}' (${pt.dtype}) of '${fn.name}'`, a, a);
    }
    return this.ctx.error(a);
  }

  /**
   * A call of a device function with record parameters (`records[k]`: the record parameter k takes):
   * each record argument is its fields, one after the other, as the callee's parameters are
   * (lower-records.ts declareFieldParams); the other arguments are as in any call.
   */
  private lowerRecordCall(fn: FunctionDecl, sig: DeviceSignature, call: ts.CallExpression, records: readonly (RecordType | undefined)[]): IR.Expr {
    const names = fn.fn!.parameters.map((p) => (ts.isIdentifier(p.name) ? p.name.text : "_"));
    if (call.arguments.length !== records.length)
      this.ctx.report(Codes.WrongArgumentCount, call, `'${fn.name}' takes ${records.length} argument${records.length === 1 ? "" : "s"} (${names.join(", ")}), got ${call.arguments.length}`);
    const args: IR.Expr[] = [];
    let j = 0;
    records.forEach((rec, k) => {
      const a = call.arguments[k];
      if (!rec) {
        args.push(this.argument(fn, sig.params[j]!, names[k]!, a, call));
        j++;
        return;
      }
      const n = rec.layout.fields.length;
      const fields = a ? this.ctx.records.recordArgument(a, rec, names[k]!, fn.name) : undefined;
      if (!a) this.ctx.report(Codes.RecordArgument, call, `parameter '${names[k]}' of '${fn.name}' takes a ${rec.name} record: pass an element (ps[i]) or a record local`);
      for (let f = 0; f < n; f++) {
        const pt = sig.params[j + f]!;
        const value = fields?.[f];
        args.push(value && pt.kind === "scalar" ? this.ctx.conv.convertTo(value, pt.dtype) : this.ctx.error(a ?? call));
      }
      j += n;
    });
    for (const a of call.arguments.slice(records.length)) this.ctx.expr.lowerExpr(a);
    return { k: "call", type: sig.returnType, fn: sig.id, args, span: this.ctx.span(call) };
  }

  /**
   * `k.launch` or `k.forall` (Numba's launch shorthand) where `k` names a kernel, not a local: a kernel
   * launch written in device code, which CUDA calls dynamic parallelism.
   */
  launchedKernel(callee: ts.Expression): { kernel: string; method: string } | undefined {
    const c = stripParensAndNonNull(callee);
    if (!ts.isPropertyAccessExpression(c) || !KERNEL_LAUNCH_METHODS.has(c.name.text)) return undefined;
    const obj = stripParensAndNonNull(c.expression);
    if (!ts.isIdentifier(obj) || this.ctx.lookup(obj.text)) return undefined;
    const sym = this.ctx.host.front.resolveName(this.ctx.module, obj.text);
    return sym?.kind === "function" && sym.fn.kind === "kernel" ? { kernel: obj.text, method: c.name.text } : undefined;
  }

  /**
   * Neither CudaScript nor Numba compiles dynamic parallelism (it needs relocatable device code and the
   * device runtime library). The two rewrites that keep the program's meaning: launch the child from the
   * host after the parent (launches on one stream run in order), or call a device function instead.
   */
  reportKernelLaunch(call: ts.CallExpression, kernel: string, method: string): void {
    const parent = this.ctx.decl.kind === "kernel" ? this.ctx.decl.name : "parent";
    const where = this.ctx.decl.kind === "kernel" ? `after '${parent}' finishes` : `after the kernel that calls '${this.ctx.decl.name}' finishes`;
    const forall = method === "forall" ? " (CudaScript has no forall: launches are k.launch(grid, block)(…))" : "";
    this.ctx.report(
      Codes.KernelLaunchInKernel,
      call,
      `kernels cannot launch kernels (dynamic parallelism is not supported)${forall}: launch '${kernel}' from the host ${where}, ` +
        `e.g. ${parent}.launch(grid, block)(…); ${kernel}.launch(grid2, block2)(…) (launches on the same stream run in order), ` +
        `or move the shared work into a cuda.device function and call it here`,
    );
  }
}
