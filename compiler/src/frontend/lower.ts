/**
 * Lowers one kernel or device function from TypeScript to the typed kernel IR, inferring types as it
 * goes, and reports every kernel-language rule it meets as a coded diagnostic. It never throws on user
 * input: what it cannot lower becomes a diagnostic and a placeholder node, and lowering goes on so that
 * one mistake does not hide the next.
 *
 * Type inference: numeric literals are "weak" and take the type of what they meet (`2.5 * x[i]` on a
 * Float32Array stays f32). A `let` without an annotation takes the type of its initialiser, widened by
 * later assignments (int → float, f32 → f64) — lowering re-runs with the widened types until stable.
 *
 * The lowering is composition around one LoweringContext (lower-context.ts): statements
 * (lower-statements.ts), declarations (lower-declarations.ts), assignments (lower-assignments.ts),
 * expressions and operators (lower-expressions.ts, lower-operators.ts), conversions
 * (lower-conversions.ts), calls (lower-calls.ts and the files it names), views, array variables,
 * complex numbers, random numbers and grid groups each a lowerer of its own, calling the others
 * through the context.
 */
import ts from "typescript";
import { Codes } from "../diagnostics/codes";
import { makeDiagnostic } from "../diagnostics/diagnostic";
import type * as IR from "../ir/nodes";
import { commonDType, I32, scalar, typeToString, VOID, type DType, type Type } from "../ir/types";
import { ConstantFolder } from "./constants";
import type { FunctionDecl, ModuleInfo } from "./module-info";
import { readRecordType, readTypeAnnotation } from "./type-annotations";
import { type LowerHost, type LoweredFunction } from "./lower-base";
import { LoweringContext } from "./lower-context";
import { readKernelOptions } from "./kernel-options";

export type { DeviceSignature, LowerHost, LoweredFunction } from "./lower-base";

/** Lowers `decl` (a kernel or device function) to IR. */
export function lowerFunction(host: LowerHost, module: ModuleInfo, decl: FunctionDecl): LoweredFunction {
  let hints = new Map<ts.Node, DType>();
  let returnHint: DType | undefined;
  for (let attempt = 0; ; attempt++) {
    const l = new LoweringContext(host, module, decl, hints, returnHint);
    const result = new FunctionLowerer(l).run();
    if (!l.widened) return result;
    if (attempt >= 4) {
      // An array variable's candidates were still growing: its earlier uses miss some (never emit that).
      if (l.arrayVars.arrayVarsGrew) return { ...result, diagnostics: [...result.diagnostics, makeDiagnostic(Codes.InvalidArrayVariable, result.fn.span, "too many arrays pass through this function's array variables to resolve: give each buffer its own variable, or alternate two arrays with ?:")] };
      return result;
    }
    hints = l.hints;
    returnHint = l.returnHint;
  }
}

/** Lowers one function: its parameters, its body (through the context's lowerers) and its result type. */
class FunctionLowerer {
  constructor(private readonly ctx: LoweringContext) {}

  run(): LoweredFunction {
    const decl = this.ctx.decl;
    const fnNode = decl.fn;
    const id = `${decl.file}#${decl.name}`;
    const options = decl.kind === "kernel" ? this.readOptions(decl.options) : {};
    const span = this.ctx.span(decl.nameNode);
    if (!fnNode) {
      this.ctx.report(Codes.KernelNotAFunction, decl.call.arguments[0] ?? decl.call, `cuda.${decl.kind === "kernel" ? "jit" : "device"} takes the function itself: write cuda.${decl.kind === "kernel" ? "jit" : "device"}((…) => { … }) with an inline arrow function`);
      return this.finish({ kind: decl.kind, id, name: decl.name, params: [], returnType: VOID, body: [], span, options, callees: [], defaultFloat: "f32" });
    }
    if (fnNode.asteriskToken) this.ctx.report(Codes.UnsupportedAsync, fnNode, "generator functions cannot be kernels: write a plain function and loop inside it");
    if (fnNode.modifiers?.some((m) => m.kind === ts.SyntaxKind.AsyncKeyword))
      this.ctx.report(Codes.UnsupportedAsync, fnNode, "kernels cannot be async: remove `async`; kernels run to completion on the device");

    this.ctx.pushScope();
    const params: IR.Var[] = [];
    for (const p of fnNode.parameters) params.push(...this.lowerParam(p));

    let returnType: Type = VOID;
    if (decl.kind === "device" && fnNode.type) {
      const r = readTypeAnnotation(this.ctx.host.front, this.ctx.module, fnNode.type);
      if (fnNode.type.kind === ts.SyntaxKind.VoidKeyword) returnType = VOID;
      else if (r.ok && r.type.kind === "scalar") returnType = this.ctx.declaredReturn = r.type;
      else if (ts.isTypeReferenceNode(fnNode.type) && readRecordType(this.ctx.host.front, this.ctx.module, fnNode.type)) {
        // A record result: one result array per field after the parameters (lower-records.ts declareResultParams).
        const rec = readRecordType(this.ctx.host.front, this.ctx.module, fnNode.type)!;
        if ("problem" in rec) this.ctx.report(Codes.UnsupportedParameterType, fnNode.type, rec.problem);
        else params.push(...this.ctx.records.declareResultParams(rec, fnNode.type));
      }
      else this.ctx.report(Codes.UnsupportedParameterType, fnNode.type, r.ok ? "device functions return scalars (f32, i32, …) or nothing; write results into an array parameter instead" : r.message);
    }
    // The default float type (for `int / int`, float literals, Math.* on integers) is f64 when the
    // function's declared interface mentions f64 — a parameter or the declared result — so that
    // `(n: i32): f64 => n / 3` divides in f64 as Numba (float64 division) and plain TypeScript do.
    // A c128 is two f64 parts: its kernels compute in f64 as an f64 parameter's do.
    const mentionsF64 = (t: Type) => (t.kind === "scalar" || t.kind === "array") && (t.dtype === "f64" || t.dtype === "c128");
    this.ctx.defaultFloat = params.some((p) => mentionsF64(p.type)) || mentionsF64(returnType) ? "f64" : "f32";

    // Record parameters by value: their fields copied into locals first.
    const recordCopies = this.ctx.records.declareRecordParams(params);
    let body: IR.Stmt[];
    if (ts.isBlock(fnNode.body)) body = [...recordCopies, ...this.ctx.stmts.lowerStatements(fnNode.body.statements)];
    else {
      // Expression-bodied arrow: a device function returns it; a kernel evaluates it.
      const e = fnNode.body;
      if (decl.kind === "device") body = [this.ctx.stmts.lowerReturn(e, e)];
      else {
        const s = this.ctx.stmts.lowerExpressionStatement(e);
        body = s ? [...recordCopies, s] : recordCopies;
      }
    }
    this.ctx.popScope();
    this.ctx.records.checkRecordAccesses(body);
    body = this.ctx.records.dropUnusedFieldCopies(body);

    if (decl.kind === "device") {
      if (!fnNode.type) {
        const inferred = this.ctx.returnHint ?? this.inferReturnDType();
        returnType = inferred ? scalar(inferred) : VOID;
        this.reportAmbiguousResult(inferred, params);
      }
      if ((returnType.kind !== "void" || this.ctx.records.returnsRecord) && ts.isBlock(fnNode.body) && !alwaysReturns(body))
        this.ctx.report(Codes.MissingReturn, decl.nameNode, `device function '${decl.name}' returns ${typeToString(returnType)} but can reach its end without returning: add a return at the end`);
    }
    body = this.convertReturns(body, returnType);
    return this.finish({
      kind: decl.kind,
      id,
      name: decl.name,
      params,
      returnType,
      body,
      span,
      options,
      callees: [...this.ctx.callees],
      defaultFloat: this.ctx.defaultFloat,
    });
  }

  private finish(fn: IR.IrFunction): LoweredFunction {
    return { fn, diagnostics: this.ctx.diags.list, calledDevices: [...this.ctx.calledDevices.values()] };
  }

  /**
   * The result type is inferred from the returns as TypeScript infers it; where TypeScript would infer
   * `number | boolean` there is no one dtype to give it, so the result must be written (CS1026).
   */
  private reportAmbiguousResult(inferred: DType | undefined, params: readonly IR.Var[]): void {
    const kinds = new Set(this.ctx.returnTypes.map((r) => (r.dtype === "bool" ? "bool" : "number")));
    if (kinds.size < 2 || !inferred) return;
    const numeric = this.ctx.returnTypes.map((r) => r.dtype).filter((d) => d !== "bool");
    const suggested = numeric.reduce((a, b) => (a === b ? a : commonDType(a, b)));
    const signature = `(${params.map((p) => `${p.name}: ${typeToString(p.type)}`).join(", ")}): ${suggested}`;
    this.ctx.report(
      Codes.UfuncSignature,
      this.ctx.decl.fn ?? this.ctx.decl.nameNode,
      `the result type of '${this.ctx.decl.name}' is ambiguous: it returns both bool and ${suggested} values (TypeScript infers number | boolean): write the result type, e.g. ${signature} => …, and return numbers only (cond ? 1 : 0)`,
    );
  }

  private inferReturnDType(): DType | undefined {
    let t: DType | undefined;
    for (const r of this.ctx.returnTypes) t = t ? (t === r.dtype ? t : t === "bool" || r.dtype === "bool" ? t : commonDType(t, r.dtype)) : r.dtype;
    return t;
  }

  /** Converts device-function return values to the final return type (known only after the body). */
  private convertReturns(body: IR.Stmt[], rt: Type): IR.Stmt[] {
    if (rt.kind !== "scalar") return body;
    const mapStmts = (list: readonly IR.Stmt[]): IR.Stmt[] => list.map(mapStmt);
    const mapStmt = (s: IR.Stmt): IR.Stmt => {
      switch (s.k) {
        case "return":
          return s.value && s.value.type.kind === "scalar" ? { ...s, value: this.ctx.conv.convertTo(s.value, rt.dtype) } : s;
        case "if":
          return { ...s, then: mapStmts(s.then), else: s.else && mapStmts(s.else) };
        case "loop":
          return { ...s, body: mapStmts(s.body) };
        case "block":
          return { ...s, body: mapStmts(s.body) };
        default:
          return s;
      }
    };
    return mapStmts(body);
  }

  private readOptions(node: ts.Expression | undefined): IR.KernelOptions {
    const folder = new ConstantFolder((n) => this.ctx.host.front.constOf(this.ctx.module, n));
    return readKernelOptions(node, { fold: (e) => folder.fold(e), report: (def, n, message) => this.ctx.report(def, n, message) });
  }

  /** One parameter's variables: one, or one per field of a device function's record parameter. */
  private lowerParam(p: ts.ParameterDeclaration): IR.Var[] {
    const name = ts.isIdentifier(p.name) ? p.name.text : "_";
    if (!ts.isIdentifier(p.name)) this.ctx.report(Codes.UnsupportedDestructuring, p.name, "kernel parameters cannot be destructured: take each value as its own parameter");
    if (p.dotDotDotToken) this.ctx.report(Codes.UnsupportedExpression, p, "rest parameters are not supported in kernels: list each parameter");
    if (p.initializer) this.ctx.report(Codes.UnsupportedExpression, p.initializer, "parameters cannot have default values in kernels: pass the value at launch");
    let type: Type = I32;
    let reported = false;
    if (!p.type) {
      this.ctx.report(Codes.MissingParameterType, p, `parameter '${name}' needs a type: write ${name}: f32, ${name}: i32, ${name}: Float32Array, …`);
      reported = true;
    } else if (ts.isTypeReferenceNode(p.type) && readRecordType(this.ctx.host.front, this.ctx.module, p.type)) {
      // `p: Particle`: a record by value (lower-records.ts declareRecordParams).
      const rec = readRecordType(this.ctx.host.front, this.ctx.module, p.type)!;
      if ("problem" in rec) {
        this.ctx.report(Codes.UnsupportedParameterType, p.type, rec.problem);
        reported = true;
      } else if (this.ctx.decl.kind !== "kernel") {
        // By value, one scalar parameter per field (lower-records.ts declareFieldParams).
        return this.ctx.records.declareFieldParams(name, rec, p);
      } else type = { kind: "array", dtype: "u8", rank: 1, space: "global", record: rec, byValue: true };
    } else {
      const r = readTypeAnnotation(this.ctx.host.front, this.ctx.module, p.type);
      if (r.ok) type = r.type;
      else {
        this.ctx.report(Codes.UnsupportedParameterType, p.type, r.message);
        reported = true;
      }
    }
    const v = this.ctx.newVar(name, type, true, true, p.name);
    // The placeholder type (i32) is a guess: uses of a parameter whose type was reported stay quiet.
    if (reported) this.ctx.bind(name, { k: "poison" });
    return [v];
  }
}

/** Whether every path through `body` ends in a return. */
function alwaysReturns(body: readonly IR.Stmt[]): boolean {
  for (const s of body) {
    if (s.k === "return" || s.k === "raise") return true; // a thread that raises stops there
    if (s.k === "if" && s.else && alwaysReturns(s.then) && alwaysReturns(s.else)) return true;
    if (s.k === "block" && alwaysReturns(s.body)) return true;
    if (s.k === "loop" && !s.cond && !containsBreak(s.body)) return true;
  }
  return false;
}

function containsBreak(body: readonly IR.Stmt[]): boolean {
  return body.some((s) => s.k === "break" || (s.k === "if" && (containsBreak(s.then) || (s.else ? containsBreak(s.else) : false))) || (s.k === "block" && containsBreak(s.body)));
}
