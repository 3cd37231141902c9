/**
 * Lowers one kernel or device function from TypeScript to the typed kernel IR, inferring types as it
 * goes, and reports every kernel-language rule it meets as a coded diagnostic. It never throws on user
 * input: what it cannot lower becomes a diagnostic and a placeholder node, and lowering goes on so that
 * one mistake does not hide the next.
 *
 * Type inference: numeric literals are "weak" and take the type of what they meet (`2.5 * x[i]` on a
 * Float32Array stays f32). A `let` without an annotation takes the type of its initialiser, widened by
 * later assignments (int → float, f32 → f64) — lowering re-runs with the widened types until stable.
 */
import ts from "typescript";
import { Codes } from "../diagnostics/codes";
import { makeDiagnostic } from "../diagnostics/diagnostic";
import type * as IR from "../ir/nodes";
import { ALL_DTYPES, byteSize, commonDType, I32, isFloat, isInt, isInt64, scalar, typeToString, VOID, type ArrayType, type DType, type ScalarType, type Type } from "../ir/types";
import { ConstantFolder, stripParensAndNonNull } from "./constants";
import type { FunctionDecl, ModuleInfo } from "./module-info";
import { readTypeAnnotation } from "./type-annotations";
import { ARRAY_SWAP_ADVICE, ASSIGNMENT_OPS, needsWidening, POISON, WEAK, type LowerHost, type LoweredFunction } from "./lower-base";
import { GridGroupLowerer } from "./lower-grid-group";
import { readKernelOptions } from "./kernel-options";
import { LIBDEVICE_BY_NAME } from "../intrinsics";
import { lowerTupleIntrinsic, type TupleLoweringHost } from "./lower-intrinsic";

export type { DeviceSignature, LowerHost, LoweredFunction } from "./lower-base";

/** Lowers `decl` (a kernel or device function) to IR. */
export function lowerFunction(host: LowerHost, module: ModuleInfo, decl: FunctionDecl): LoweredFunction {
  let hints = new Map<ts.Node, DType>();
  let returnHint: DType | undefined;
  for (let attempt = 0; ; attempt++) {
    const l = new FunctionLowerer(host, module, decl, hints, returnHint);
    const result = l.run();
    if (!l.widened) return result;
    if (attempt >= 4) {
      // An array variable's candidates were still growing: its earlier uses miss some (never emit that).
      if (l.arrayVarsGrew) return { ...result, diagnostics: [...result.diagnostics, makeDiagnostic(Codes.InvalidArrayVariable, result.fn.span, "too many arrays pass through this function's array variables to resolve: give each buffer its own variable, or alternate two arrays with ?:")] };
      return result;
    }
    hints = l.hints;
    returnHint = l.returnHint;
  }
}

/** Lowers one function: parameters, statements, declarations and assignments (expressions and calls are inherited). */
class FunctionLowerer extends GridGroupLowerer {
  /** A device function's annotated scalar result, which its return values convert to. */
  private declaredReturn?: ScalarType;

  run(): LoweredFunction {
    const decl = this.decl;
    const fnNode = decl.fn;
    const id = `${decl.file}#${decl.name}`;
    const options = decl.kind === "kernel" ? this.readOptions(decl.options) : {};
    const span = this.span(decl.nameNode);
    if (!fnNode) {
      this.report(Codes.KernelNotAFunction, decl.call.arguments[0] ?? decl.call, `cuda.${decl.kind === "kernel" ? "jit" : "device"} takes the function itself: write cuda.${decl.kind === "kernel" ? "jit" : "device"}((…) => { … }) with an inline arrow function`);
      return this.finish({ kind: decl.kind, id, name: decl.name, params: [], returnType: VOID, body: [], span, options, callees: [], defaultFloat: "f32" });
    }
    if (fnNode.asteriskToken) this.report(Codes.UnsupportedAsync, fnNode, "generator functions cannot be kernels: write a plain function and loop inside it");
    if (fnNode.modifiers?.some((m) => m.kind === ts.SyntaxKind.AsyncKeyword))
      this.report(Codes.UnsupportedAsync, fnNode, "kernels cannot be async: remove `async`; kernels run to completion on the device");

    this.pushScope();
    const params: IR.Var[] = [];
    for (const p of fnNode.parameters) params.push(this.lowerParam(p));

    let returnType: Type = VOID;
    if (decl.kind === "device" && fnNode.type) {
      const r = readTypeAnnotation(this.host.front, this.module, fnNode.type);
      if (fnNode.type.kind === ts.SyntaxKind.VoidKeyword) returnType = VOID;
      else if (r.ok && r.type.kind === "scalar") returnType = this.declaredReturn = r.type;
      else this.report(Codes.UnsupportedParameterType, fnNode.type, r.ok ? "device functions return scalars (f32, i32, …) or nothing; write results into an array parameter instead" : r.message);
    }
    // The default float type (for `int / int`, float literals, Math.* on integers) is f64 when the
    // function's declared interface mentions f64 — a parameter or the declared result — so that
    // `(n: i32): f64 => n / 3` divides in f64 as Numba (float64 division) and plain TypeScript do.
    // A c128 is two f64 parts: its kernels compute in f64 as an f64 parameter's do.
    const mentionsF64 = (t: Type) => (t.kind === "scalar" || t.kind === "array") && (t.dtype === "f64" || t.dtype === "c128");
    this.defaultFloat = params.some((p) => mentionsF64(p.type)) || mentionsF64(returnType) ? "f64" : "f32";

    let body: IR.Stmt[];
    if (ts.isBlock(fnNode.body)) body = this.lowerStatements(fnNode.body.statements);
    else {
      // Expression-bodied arrow: a device function returns it; a kernel evaluates it.
      const e = fnNode.body;
      if (decl.kind === "device") body = [this.lowerReturn(e, e)];
      else {
        const s = this.lowerExpressionStatement(e);
        body = s ? [s] : [];
      }
    }
    this.popScope();

    if (decl.kind === "device") {
      if (!fnNode.type) {
        const inferred = this.returnHint ?? this.inferReturnDType();
        returnType = inferred ? scalar(inferred) : VOID;
      }
      if (returnType.kind !== "void" && ts.isBlock(fnNode.body) && !alwaysReturns(body))
        this.report(Codes.MissingReturn, decl.nameNode, `device function '${decl.name}' returns ${typeToString(returnType)} but can reach its end without returning: add a return at the end`);
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
      callees: [...this.callees],
      defaultFloat: this.defaultFloat,
    });
  }

  protected finish(fn: IR.IrFunction): LoweredFunction {
    return { fn, diagnostics: this.diags.list, calledDevices: [...this.calledDevices.values()] };
  }

  protected inferReturnDType(): DType | undefined {
    let t: DType | undefined;
    for (const r of this.returnTypes) t = t ? (t === r.dtype ? t : t === "bool" || r.dtype === "bool" ? t : commonDType(t, r.dtype)) : r.dtype;
    return t;
  }

  /** Converts device-function return values to the final return type (known only after the body). */
  protected convertReturns(body: IR.Stmt[], rt: Type): IR.Stmt[] {
    if (rt.kind !== "scalar") return body;
    const mapStmts = (list: readonly IR.Stmt[]): IR.Stmt[] => list.map(mapStmt);
    const mapStmt = (s: IR.Stmt): IR.Stmt => {
      switch (s.k) {
        case "return":
          return s.value && s.value.type.kind === "scalar" ? { ...s, value: this.convertTo(s.value, rt.dtype) } : s;
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

  protected readOptions(node: ts.Expression | undefined): IR.KernelOptions {
    const folder = new ConstantFolder((n) => this.host.front.constOf(this.module, n));
    return readKernelOptions(node, { fold: (e) => folder.fold(e), report: (def, n, message) => this.report(def, n, message) });
  }

  protected lowerParam(p: ts.ParameterDeclaration): IR.Var {
    const name = ts.isIdentifier(p.name) ? p.name.text : "_";
    if (!ts.isIdentifier(p.name)) this.report(Codes.UnsupportedDestructuring, p.name, "kernel parameters cannot be destructured: take each value as its own parameter");
    if (p.dotDotDotToken) this.report(Codes.UnsupportedExpression, p, "rest parameters are not supported in kernels: list each parameter");
    if (p.initializer) this.report(Codes.UnsupportedExpression, p.initializer, "parameters cannot have default values in kernels: pass the value at launch");
    let type: Type = I32;
    let reported = false;
    if (!p.type) {
      this.report(Codes.MissingParameterType, p, `parameter '${name}' needs a type: write ${name}: f32, ${name}: i32, ${name}: Float32Array, …`);
      reported = true;
    } else {
      const r = readTypeAnnotation(this.host.front, this.module, p.type);
      if (r.ok) type = r.type;
      else {
        this.report(Codes.UnsupportedParameterType, p.type, r.message);
        reported = true;
      }
    }
    const v = this.newVar(name, type, true, true, p.name);
    // The placeholder type (i32) is a guess: uses of a parameter whose type was reported stay quiet.
    if (reported) this.bind(name, { k: "poison" });
    return v;
  }

  // ───────────────────────── statements ─────────────────────────

  protected lowerStatements(list: readonly ts.Statement[]): IR.Stmt[] {
    const out: IR.Stmt[] = [];
    let terminated = false;
    for (const st of list) {
      if (terminated && !ts.isEmptyStatement(st) && !ts.isFunctionDeclaration(st)) {
        this.report(Codes.UnreachableCode, st, "this code never runs: it follows a return, break or continue in the same block");
        terminated = false; // report once per block
      }
      const s = this.lowerStatement(st);
      if (Array.isArray(s)) out.push(...s);
      else if (s) out.push(s);
      if (ts.isReturnStatement(st) || ts.isBreakStatement(st) || ts.isContinueStatement(st)) terminated = true;
    }
    return out;
  }

  protected lowerBlockBody(st: ts.Statement): IR.Stmt[] {
    this.pushScope();
    const body = ts.isBlock(st) ? this.lowerStatements(st.statements) : this.lowerStatements([st]);
    this.popScope();
    return body;
  }

  protected lowerStatement(st: ts.Statement): IR.Stmt | IR.Stmt[] | undefined {
    switch (st.kind) {
      case ts.SyntaxKind.VariableStatement:
        return this.lowerVariableList((st as ts.VariableStatement).declarationList, st);
      case ts.SyntaxKind.ExpressionStatement:
        return this.lowerExpressionStatement((st as ts.ExpressionStatement).expression);
      case ts.SyntaxKind.IfStatement: {
        const s = st as ts.IfStatement;
        const cond = this.lowerCondition(s.expression);
        const then = this.lowerBlockBody(s.thenStatement);
        const els = s.elseStatement ? this.lowerBlockBody(s.elseStatement) : undefined;
        return { k: "if", span: this.span(st), cond, then, else: els };
      }
      case ts.SyntaxKind.ForStatement:
        return this.lowerFor(st as ts.ForStatement);
      case ts.SyntaxKind.WhileStatement: {
        const s = st as ts.WhileStatement;
        const cond = this.lowerCondition(s.expression);
        this.loopDepth++;
        const body = this.lowerBlockBody(s.statement);
        this.loopDepth--;
        return { k: "loop", span: this.span(st), init: [], cond: isTrueConst(cond) ? undefined : cond, update: [], body, testFirst: true };
      }
      case ts.SyntaxKind.DoStatement: {
        const s = st as ts.DoStatement;
        this.loopDepth++;
        const body = this.lowerBlockBody(s.statement);
        this.loopDepth--;
        const cond = this.lowerCondition(s.expression);
        return { k: "loop", span: this.span(st), init: [], cond: isTrueConst(cond) ? undefined : cond, update: [], body, testFirst: false };
      }
      case ts.SyntaxKind.BreakStatement:
      case ts.SyntaxKind.ContinueStatement: {
        const s = st as ts.BreakStatement;
        if (s.label) {
          this.report(Codes.UnsupportedStatement, st, "labelled break/continue is not supported in kernels: use a flag variable, or move the inner loop into a device function");
          return undefined;
        }
        return { k: st.kind === ts.SyntaxKind.BreakStatement ? "break" : "continue", span: this.span(st) };
      }
      case ts.SyntaxKind.ReturnStatement: {
        const s = st as ts.ReturnStatement;
        return this.lowerReturn(s.expression, st);
      }
      case ts.SyntaxKind.Block: {
        const body = this.lowerBlockBody(st);
        return { k: "block", span: this.span(st), body };
      }
      case ts.SyntaxKind.EmptyStatement:
        return undefined;
      case ts.SyntaxKind.TryStatement:
        this.report(Codes.UnsupportedException, st, "try/catch is not supported in kernels: GPU code has no exceptions; check conditions with if and write an error flag to an output array");
        return undefined;
      case ts.SyntaxKind.ThrowStatement:
        this.report(Codes.UnsupportedException, st, "throw is not supported in kernels: write an error code to an output array and return");
        return undefined;
      case ts.SyntaxKind.FunctionDeclaration:
        this.report(Codes.NestedFunction, st, "functions cannot be declared inside kernels: declare it at module level as const f = cuda.device((…) => …)");
        return undefined;
      case ts.SyntaxKind.ClassDeclaration:
        this.report(Codes.UnsupportedClass, st, "classes are not supported in kernels: use scalars and typed arrays");
        return undefined;
      case ts.SyntaxKind.SwitchStatement:
        this.report(Codes.UnsupportedStatement, st, "switch is not supported in kernels yet: write if / else if chains");
        return undefined;
      case ts.SyntaxKind.ForInStatement:
      case ts.SyntaxKind.ForOfStatement:
        this.report(Codes.UnsupportedStatement, st, `${st.kind === ts.SyntaxKind.ForOfStatement ? "for…of" : "for…in"} is not supported in kernels: write for (let i = 0; i < a.length; i++)`);
        return undefined;
      case ts.SyntaxKind.LabeledStatement:
        this.report(Codes.UnsupportedStatement, st, "labelled statements are not supported in kernels: use a flag variable to leave nested loops");
        return undefined;
      case ts.SyntaxKind.WithStatement:
      case ts.SyntaxKind.DebuggerStatement:
        this.report(Codes.UnsupportedStatement, st, `'${st.getText(this.sf).split(/[\s(]/)[0]}' is not supported in kernels`);
        return undefined;
      case ts.SyntaxKind.InterfaceDeclaration:
      case ts.SyntaxKind.TypeAliasDeclaration:
        return undefined; // types only: nothing to run
      default:
        this.report(Codes.UnsupportedStatement, st, `this statement is not supported in kernels`);
        return undefined;
    }
  }

  protected lowerReturn(expr: ts.Expression | undefined, node: ts.Node): IR.Stmt {
    const span = this.span(node);
    if (!expr) {
      if (this.decl.kind === "device" && (this.returnHint || this.decl.fn?.type && this.decl.fn.type.kind !== ts.SyntaxKind.VoidKeyword))
        this.report(Codes.MissingReturn, node, "this device function returns a value: write return <value>");
      return { k: "return", span };
    }
    if (this.decl.kind === "kernel") {
      const e = stripParensAndNonNull(expr);
      // `return void x` / `return undefined` are still returns of nothing, but say what to write.
      this.report(Codes.KernelReturnsValue, node, "a kernel cannot return a value: write the result into an output array (out[i] = value) and use a plain `return;`", { fix: { kind: "dropReturnValue" } });
      if (ts.isCallExpression(e)) {
        const s = this.lowerExpressionStatement(e);
        return s ? { k: "block", span, body: [s, { k: "return", span }] } : { k: "return", span };
      }
      return { k: "return", span };
    }
    const value = this.lowerExpr(expr);
    if (value.type.kind !== "scalar") {
      if (value.type.kind !== "void") this.report(Codes.TypeMismatch, expr, "device functions return scalars (f32, i32, …); to produce an array, write into an array parameter");
      return { k: "return", span };
    }
    let v = value;
    // Weak constants keep their path (typed by the hint, then convertReturns): only values are checked here.
    if (this.declaredReturn && !WEAK.has(v)) v = this.convertImplicitly(v, this.declaredReturn.dtype, `the ${this.declaredReturn.dtype} result of '${this.decl.name}'`, expr, undefined);
    if (WEAK.has(v)) v = this.convertTo(v, this.returnHint ?? this.weakDefault(v));
    this.returnTypes.push(v.type as ScalarType);
    return { k: "return", span, value: v };
  }

  protected lowerFor(s: ts.ForStatement): IR.Stmt {
    this.pushScope();
    const init: IR.Stmt[] = [];
    if (s.initializer) {
      if (ts.isVariableDeclarationList(s.initializer)) {
        const r = this.lowerVariableList(s.initializer, s.initializer);
        if (Array.isArray(r)) init.push(...r);
        else if (r) init.push(r);
      } else {
        const r = this.lowerExpressionStatement(s.initializer, true);
        if (r) init.push(...(r.k === "block" ? r.body : [r]));
      }
    }
    const cond = s.condition ? this.lowerCondition(s.condition) : undefined;
    const update: IR.Stmt[] = [];
    if (s.incrementor) {
      const r = this.lowerExpressionStatement(s.incrementor, true);
      if (r) update.push(...(r.k === "block" ? r.body : [r]));
    }
    this.loopDepth++;
    const body = this.lowerBlockBody(s.statement);
    this.loopDepth--;
    this.popScope();
    return { k: "loop", span: this.span(s), init, cond: cond && isTrueConst(cond) ? undefined : cond, update, body, testFirst: true };
  }

  protected lowerVariableList(list: ts.VariableDeclarationList, node: ts.Node): IR.Stmt[] {
    const isConst = (list.flags & ts.NodeFlags.Const) !== 0;
    const isLet = (list.flags & ts.NodeFlags.Let) !== 0;
    if (!isConst && !isLet) this.report(Codes.UnsupportedStatement, node, "`var` is not supported in kernels: write `let` (or `const`)");
    const out: IR.Stmt[] = [];
    for (const d of list.declarations) out.push(...this.lowerDeclaration(d, isConst));
    return out;
  }

  protected lowerDeclaration(d: ts.VariableDeclaration, isConst: boolean): IR.Stmt[] {
    const span = this.span(d);
    if (ts.isObjectBindingPattern(d.name)) {
      this.report(Codes.UnsupportedDestructuring, d.name, "object destructuring is not supported in kernels: read each field, e.g. const tx = cuda.threadIdx.x");
      this.poisonNames(d.name);
      return [];
    }
    if (ts.isArrayBindingPattern(d.name)) return this.lowerTupleDestructuring(d, d.name, isConst);
    const name = d.name.text;
    const init = d.initializer ? stripParensAndNonNull(d.initializer) : undefined;

    if (init && this.isThisGridCall(init)) return this.declareGridGroup(d, name, isConst, init);
    // Arrays in shared / local / constant memory
    if (init && ts.isCallExpression(init)) {
      const alloc = this.arrayAllocation(init);
      if (alloc) {
        if (!isConst) this.report(Codes.ArrayDeclarationPlacement, d, `declare arrays with const: const ${name} = ${init.getText(this.sf)}`);
        return this.lowerArrayDeclaration(d, name, init, alloc);
      }
    }

    // Compile-time constants: `const half = 0.5` folds, and stays weak unless annotated.
    let annotated: DType | undefined;
    if (d.type) {
      const r = readTypeAnnotation(this.host.front, this.module, d.type);
      if (r.ok && r.type.kind === "scalar") annotated = r.type.dtype;
      else if (r.ok) {
        /* array annotations on aliases are fine: the initialiser decides */
      } else this.report(Codes.UnsupportedParameterType, d.type, r.message);
    }
    if (isConst && init) {
      const before = this.diags.list.length;
      const c = this.foldConst(init);
      if (c && this.diags.list.slice(before).some((x) => x.code === Codes.ConstantOverflow.code)) {
        this.bind(name, { k: "poison" });
        return [];
      }
      if (c) {
        this.bind(name, { k: "const", value: c, dtype: annotated, node: d });
        return [];
      }
    }

    if (!init) {
      const dtype = annotated ?? this.hints.get(d) ?? "i32";
      const v = this.newVar(name, scalar(dtype), false, !isConst, d.name);
      this.varDecls.set(v.id, d);
      return [{ k: "decl", span, v }];
    }
    if (ts.isFunctionExpression(init) || ts.isArrowFunction(init)) {
      this.report(Codes.NestedFunction, init, "functions cannot be declared inside kernels: declare it at module level as const f = cuda.device((…) => …)");
      this.bind(name, { k: "poison" });
      return [];
    }
    const viewTemps: IR.Stmt[] = [];
    const value = this.lowerViewInitializer(init, viewTemps);
    if (POISON.has(value)) {
      // The annotation still says what the variable is: later uses keep being checked.
      if (annotated) return [{ k: "decl", span, v: this.newVar(name, scalar(annotated), false, !isConst, d.name) }];
      this.bind(name, { k: "poison" });
      return [];
    }
    if (value.type.kind === "array") {
      // `let src = a`, `const src = flag ? a : b`: an array variable (lower-array-vars.ts).
      const arrayVariable = this.declareArrayVariable(d, name, value, isConst);
      if (arrayVariable) return [...viewTemps, ...arrayVariable];
      // An alias of an array (`const row = m`): bind the name to the same variable; a view
      // (`const part = a.subarray(…)`, `const row = m[i]`) keeps its rows/offset/length computed once.
      if (value.k === "var") {
        const view = this.viewOfExpr(value);
        if (isConst && view) {
          this.bind(name, { k: "var", v: value.v, isConstDecl: true, view: { ...view, name } });
          return viewTemps;
        }
        if (isConst) this.bind(name, { k: "var", v: value.v, isConstDecl: true });
        else {
          this.bind(name, { k: "var", v: value.v, isConstDecl: true, rebindReported: true });
          this.report(Codes.ArrayDeclarationPlacement, d, `array names cannot be reassigned in kernels, so an alias must be const: const ${name} = ${init.getText(this.sf)}; ${ARRAY_SWAP_ADVICE}`);
        }
      } else this.report(Codes.TypeMismatch, init, "only whole arrays can be named; index the array where you use it");
      return [];
    }
    if (value.type.kind !== "scalar") {
      if (value.type.kind === "tuple")
        this.report(Codes.UnsupportedDestructuring, init, `${init.getText(this.sf)} returns a tuple: destructure it, e.g. const [x, y] = cuda.grid(2)`);
      else if (value.type.kind === "void") this.report(Codes.TypeMismatch, init, "this call returns nothing");
      const v = this.newVar(name, I32, false, !isConst, d.name);
      return [{ k: "decl", span, v }];
    }
    const dtype = annotated ?? this.hints.get(d) ?? (WEAK.has(value) ? this.weakDefault(value) : (value.type as ScalarType).dtype);
    const v = this.newVar(name, scalar(dtype), false, !isConst, d.name);
    this.varDecls.set(v.id, d);
    if (!WEAK.has(value) && !annotated && needsWidening(dtype, (value.type as ScalarType).dtype)) {
      this.hints.set(d, commonDType(dtype, (value.type as ScalarType).dtype));
      this.widened = true;
    }
    return [...viewTemps, { k: "decl", span, v, init: this.convertImplicitly(value, dtype, `the ${dtype} '${name}'`, init, init) }];
  }

  /** What destructuring a libdevice tuple needs (lower-intrinsic.ts). */
  private tupleHost(): TupleLoweringHost {
    return {
      ...this.intrinsicHost(),
      temp: (value, node) => {
        this.pushScope();
        const t = this.newVar("libdeviceArg", value.type, false, false, node);
        this.popScope();
        return { decl: { k: "decl", v: t, init: value, span: value.span }, ref: { k: "var", type: value.type, v: t, span: value.span } };
      },
      variable: (name, dtype, isConst) => this.newVar(name.text, scalar(dtype), false, !isConst, name),
      poison: (pattern) => this.poisonNames(pattern),
    };
  }

  protected lowerTupleDestructuring(d: ts.VariableDeclaration, pattern: ts.ArrayBindingPattern, isConst: boolean): IR.Stmt[] {
    const init = d.initializer ? stripParensAndNonNull(d.initializer) : undefined;
    // `const [s, c] = cuda.libdevice.sincos(x)`: Numba's tuple results (lower-intrinsic.ts).
    const path = init && ts.isCallExpression(init) ? this.cudaPath(init.expression) : undefined;
    const libdevice = path?.length === 2 && path[0] === "libdevice" ? LIBDEVICE_BY_NAME.get(path[1]!) : undefined;
    if (libdevice) return lowerTupleIntrinsic(this.tupleHost(), libdevice, init as ts.CallExpression, pattern, isConst);
    const tuple = init && ts.isCallExpression(init) ? this.gridCall(init) : undefined;
    if (!tuple) {
      this.report(Codes.UnsupportedDestructuring, d.name, "only cuda.grid(n), cuda.gridsize(n) and the cuda.libdevice functions with several results can be destructured: const [x, y] = cuda.grid(2)");
      this.poisonNames(pattern);
      return [];
    }
    if (tuple.ndim === 1) {
      this.report(Codes.UnsupportedDestructuring, d.name, `cuda.${tuple.reg}(1) returns a number: write const i = cuda.${tuple.reg}(1)`);
      this.poisonNames(pattern);
      return [];
    }
    const out: IR.Stmt[] = [];
    const axes: IR.Axis[] = ["x", "y", "z"];
    pattern.elements.forEach((el, i) => {
      if (ts.isOmittedExpression(el)) return;
      if (!ts.isIdentifier(el.name) || el.dotDotDotToken || el.initializer) {
        this.report(Codes.UnsupportedDestructuring, el, "write plain names: const [x, y] = cuda.grid(2)");
        return;
      }
      if (i >= tuple.ndim) {
        this.report(Codes.UnsupportedDestructuring, el, `cuda.${tuple.reg}(${tuple.ndim}) has only ${tuple.ndim} elements`);
        return;
      }
      const v = this.newVar(el.name.text, I32, false, !isConst, el.name);
      out.push({ k: "decl", span: this.span(el), v, init: { k: "special", type: I32, reg: tuple.reg, axis: axes[i]!, span: this.span(init!) } });
    });
    return out;
  }

  protected arrayAllocation(call: ts.CallExpression): "shared" | "local" | "const" | undefined {
    const path = this.cudaPath(call.expression);
    if (!path || path.length !== 2) return undefined;
    if (path[0] === "shared" && path[1] === "array") return "shared";
    if (path[0] === "local" && path[1] === "array") return "local";
    if (path[0] === "const" && path[1] === "arrayLike") return "const";
    return undefined;
  }

  protected lowerArrayDeclaration(d: ts.VariableDeclaration, name: string, call: ts.CallExpression, space: "shared" | "local" | "const"): IR.Stmt[] {
    const span = this.span(d);
    if (space === "const") {
      const arg = call.arguments[0];
      const sym = arg && ts.isIdentifier(arg) && !this.lookup(arg.text) ? this.host.front.resolveName(this.module, arg.text) : undefined;
      const folded = sym?.kind === "const" ? this.host.front.moduleConst(sym.module, sym.decl) : undefined;
      const arr = folded?.array;
      if (!arr || call.arguments.length !== 1) {
        this.report(
          Codes.ConstArrayInvalid,
          arg ?? call,
          folded?.arrayProblem && call.arguments.length === 1
            ? `'${arg!.getText(this.sf)}' cannot go to constant memory: ${folded.arrayProblem}`
            : "cuda.const.arrayLike takes a module-level constant typed array: const FILTER = new Float32Array([0.25, 0.5, 0.25]) at module level, then cuda.const.arrayLike(FILTER) (or a 2-D/3-D one: cuda.ndarray(new Float32Array([…]), [rows, cols]))",
        );
        // Its rank and dtype are unknown: uses of it stay quiet rather than guess (m[i][j] on a 1-D guess).
        this.bind(name, { k: "poison" });
        return [];
      }
      // Elements that do not fit the dtype are errors where they are written (possibly another module).
      for (const p of arr.elementProblems) {
        const sf = p.node.getSourceFile();
        const start = p.node.getStart(sf);
        const lc = sf.getLineAndCharacterOfPosition(start);
        this.diags.add(makeDiagnostic(Codes.ConstArrayElementRange, { file: arr.module.file, start, end: p.node.end, line: lc.line + 1, col: lc.character + 1 }, p.message));
      }
      const constName = this.host.useConstArray(arr.module, arr.decl, arr.dtype, arr.values, arr.shape);
      const rank = arr.shape.length as 1 | 2 | 3;
      const v = this.newVar(name, { kind: "array", dtype: arr.dtype, rank, space: "const", shape: arr.shape }, false, false, d.name);
      return [{ k: "constArrayDecl", span, v, constName }];
    }
    const [shapeArg, dtypeArg] = call.arguments;
    if (call.arguments.length !== 2) this.report(Codes.WrongArgumentCount, call, `cuda.${space}.array takes a shape and a dtype: cuda.${space}.array(128, f32)`);
    const dtypeOrBad = dtypeArg ? this.readDTypeArg(dtypeArg) : undefined;
    const shape = shapeArg ? this.readShape(shapeArg, space) : [1];
    if (!dtypeOrBad) {
      this.bind(name, { k: "poison" });
      return [];
    }
    const dtype = dtypeOrBad;
    const rank = Math.min(Math.max(shape.length, 1), 3) as 1 | 2 | 3;
    const arrayType: ArrayType = { kind: "array", dtype, rank, space, shape };
    if (space === "local") {
      const bytes = shape.reduce((a, b) => a * b, 1) * byteSize(dtype);
      if (bytes > 16 * 1024)
        this.report(Codes.LocalArrayTooLarge, call, `this local array takes ${bytes} bytes per thread; local memory is slow and large arrays spill: use shared memory or tile the work`);
    }
    const v = this.newVar(name, arrayType, false, false, d.name);
    return [{ k: "arrayDecl", span, v, arrayType }];
  }

  protected readDTypeArg(e: ts.Expression): DType | undefined {
    const x = stripParensAndNonNull(e);
    if (ts.isIdentifier(x)) {
      const cs = this.module.cudascript.get(x.text);
      if (cs?.kind === "dtype" && !this.lookup(x.text)) return cs.dtype;
    } else if (ts.isPropertyAccessExpression(x) && ts.isIdentifier(x.expression) && this.module.cudascript.get(x.expression.text)?.kind === "namespace") {
      const n = x.name.text;
      if ((ALL_DTYPES as readonly string[]).includes(n)) return n as DType;
    }
    this.report(Codes.WrongDType, e, `'${e.getText(this.sf)}' is not a dtype: pass one of f32, f64, f16, i32, u32, i16, u16, i8, u8, i64, u64, bool, c64, c128 imported from "cudascript"`);
    return undefined;
  }

  protected readShape(e: ts.Expression, space: "shared" | "local"): number[] {
    const x = stripParensAndNonNull(e);
    const elements = ts.isArrayLiteralExpression(x) ? x.elements : [x];
    if (elements.length < 1 || elements.length > 3) {
      this.report(Codes.InvalidArrayShape, e, "array shapes have 1 to 3 dimensions");
      return [1];
    }
    const shape: number[] = [];
    for (const el of elements) {
      const c = this.foldConst(el);
      if (!c || typeof c.value !== "number") {
        const what = this.describeNonConstant(el);
        if (space === "local")
          this.report(Codes.LocalArraySizeNotConstant, el, `local array size must be a compile-time constant, but ${what}: declare a module constant (const MAX_${upperName(el)} = 64) and use it, checking at run time that the data fits`, {
            fix: { kind: "hoistToModuleConst", suggestedName: `MAX_${upperName(el)}` },
          });
        else
          this.report(Codes.SharedArrayShapeNotConstant, el, `shared array shape must be a compile-time constant, but ${what}: use a module constant (const TPB = 128), or cuda.shared.array(0, dtype) for dynamic shared memory sized at launch with { sharedMem: bytes }`, {
            fix: { kind: "hoistToModuleConst", suggestedName: `${upperName(el)}` },
          });
        shape.push(1);
        continue;
      }
      const n = c.value;
      const dynamicOk = space === "shared" && elements.length === 1 && n === 0;
      if (!Number.isInteger(n) || n < 0 || (n === 0 && !dynamicOk)) {
        this.report(Codes.InvalidArrayShape, el, `array dimensions must be positive whole numbers, got ${n}${space === "shared" ? " (0 alone declares dynamic shared memory)" : ""}`);
        shape.push(1);
        continue;
      }
      shape.push(n);
    }
    return shape;
  }

  protected describeNonConstant(e: ts.Expression): string {
    const x = stripParensAndNonNull(e);
    if (ts.isIdentifier(x)) {
      const b = this.lookup(x.text);
      if (b?.k === "var") return `'${x.text}' ${b.v.isParam ? "is a kernel parameter, known only at launch" : "is a variable, known only at run time"}`;
      const sym = this.host.front.resolveName(this.module, x.text);
      if (sym?.kind === "mutable") return `'${x.text}' is a module \`let\`, which can change`;
      if (sym?.kind === "const") return `'${x.text}' is a module const whose value is not a compile-time constant`;
      return `'${x.text}' is not a constant`;
    }
    if (ts.isElementAccessExpression(x)) return `'${x.getText(this.sf)}' is an array element, known only at run time`;
    if (ts.isPropertyAccessExpression(x) && x.name.text === "length") return `'${x.getText(this.sf)}' is an array length, known only at launch`;
    if (ts.isPropertyAccessExpression(x)) return `'${x.getText(this.sf)}' is known only at run time`;
    return `'${x.getText(this.sf)}' is not made of literals and module constants`;
  }

  // ───────────────────────── expression statements and assignment ─────────────────────────

  /** `inHeader`: inside a for header, where a comma list of updates is allowed. */
  protected lowerExpressionStatement(e: ts.Expression, inHeader = false): IR.Stmt | undefined {
    const x = stripParensAndNonNull(e);
    const span = this.span(e);
    if (ts.isBinaryExpression(x)) {
      const op = x.operatorToken.kind;
      if (ASSIGNMENT_OPS.has(op)) return this.lowerAssignment(x.left, ASSIGNMENT_OPS.get(op)!, x.right, x);
      if (op === ts.SyntaxKind.CommaToken && inHeader) {
        const a = this.lowerExpressionStatement(x.left, true), b = this.lowerExpressionStatement(x.right, true);
        const body = [a, b].flatMap((s) => (s ? (s.k === "block" ? s.body : [s]) : []));
        return { k: "block", span, body };
      }
      if (op === ts.SyntaxKind.AmpersandAmpersandEqualsToken || op === ts.SyntaxKind.BarBarEqualsToken || op === ts.SyntaxKind.QuestionQuestionEqualsToken) {
        this.report(Codes.UnsupportedOperator, x.operatorToken, `'${x.operatorToken.getText(this.sf)}' is not supported in kernels: write an if statement`);
        return undefined;
      }
    }
    if ((ts.isPrefixUnaryExpression(x) || ts.isPostfixUnaryExpression(x)) && (x.operator === ts.SyntaxKind.PlusPlusToken || x.operator === ts.SyntaxKind.MinusMinusToken)) {
      // The 1 of an i64/u64 is a bigint (1n), as JavaScript's ++ of a bigint.
      const one = (target?: IR.Expr) => this.weakConst(target?.type.kind === "scalar" && isInt64(target.type.dtype) ? 1n : 1, x);
      return this.lowerAssignmentValue(x.operand, x.operator === ts.SyntaxKind.PlusPlusToken ? "+" : "-", one, x);
    }
    if (ts.isCallExpression(x) && this.isConsoleLog(x)) return this.lowerPrint(x);
    const value = this.lowerExpr(x);
    return { k: "expr", span, expr: value };
  }

  protected lowerAssignment(target: ts.Expression, op: IR.ArithOp | "=", rhs: ts.Expression, node: ts.Node): IR.Stmt | undefined {
    return this.lowerAssignmentValue(target, op, () => this.lowerExpr(rhs), node, rhs);
  }

  /** `target = value` (or `target op= value`) of an element. */
  protected storeElement(target: IR.IndexExpr, op: IR.ArithOp | "=", rhsValue: IR.Expr, node: ts.Node, rhsNode?: ts.Node): IR.Stmt | undefined {
    let value = rhsValue;
    if (op !== "=") value = this.arith(op, target, value, node);
    if (value.type.kind !== "scalar") {
      this.report(Codes.TypeMismatch, rhsNode ?? node, `cannot store ${typeToString(value.type)} into an element of ${typeToString(target.array.type)}`);
      return undefined;
    }
    return { k: "assign", span: this.span(node), target, value: this.convertImplicitly(value, target.type.dtype, typeToString(target.array.type), rhsNode ?? node, rhsNode, true) };
  }

  /** `rhs` lowers the value; it is given the target once that is known. */
  protected lowerAssignmentValue(targetNode: ts.Expression, op: IR.ArithOp | "=", rhs: (target?: IR.Expr) => IR.Expr, node: ts.Node, rhsNode?: ts.Node): IR.Stmt | undefined {
    const span = this.span(node);
    const t = stripParensAndNonNull(targetNode);
    if (ts.isIdentifier(t)) {
      const b = this.lookup(t.text);
      if (!b) {
        const sym = this.host.front.resolveName(this.module, t.text);
        if (sym?.kind === "mutable")
          this.report(Codes.MutableCapture, t, `kernels cannot change host variables such as '${t.text}': write results into an output array parameter`);
        else this.report(Codes.InvalidAssignmentTarget, t, `'${t.text}' cannot be assigned in a kernel: declare a local with let, or write into an array`);
        rhs();
        return undefined;
      }
      if (b.k === "poison") {
        rhs();
        return undefined;
      }
      if (b.k === "gridGroup") {
        this.report(Codes.GridGroupMisuse, t, `'${t.text}' is a grid group and cannot be reassigned: keep the one const ${t.text} = cuda.cg.thisGrid() and call ${t.text}.sync()`);
        rhs();
        return undefined;
      }
      // An array variable takes another array (lower-array-vars.ts).
      if (b.k === "var" && b.arrayVar) {
        if (b.isConstDecl) {
          this.report(Codes.InvalidAssignmentTarget, t, `'${t.text}' is a constant: declare it with let to change it`);
          rhs();
          return undefined;
        }
        if (op !== "=") {
          this.report(Codes.InvalidAssignmentTarget, t, `'${t.text}' holds an array: assign another array to it, or assign its elements`);
          rhs();
          return undefined;
        }
        return this.assignArrayVariable({ v: b.v, arrayVar: b.arrayVar }, t.text, rhs(), rhsNode ?? node, node);
      }
      // Arrays first: for an array, "declare it with let" would be wrong advice (CS3005 refuses that).
      if (b.k === "var" && b.v.type.kind === "array") {
        if (!b.rebindReported)
          this.report(Codes.InvalidAssignmentTarget, t, `array '${t.text}' cannot be reassigned: assign its elements, e.g. ${t.text}[i] = value; ${ARRAY_SWAP_ADVICE}`);
        rhs();
        return undefined;
      }
      if (b.k === "const" || (b.k === "var" && b.isConstDecl)) {
        this.report(Codes.InvalidAssignmentTarget, t, `'${t.text}' is a constant: declare it with let to change it`);
        rhs();
        return undefined;
      }
      const v = b.v;
      if (v.type.kind !== "scalar") return undefined;
      const target: IR.VarExpr = { k: "var", type: v.type, v, span: this.span(t) };
      let value = rhs(target);
      if (op !== "=") value = this.arith(op, target, value, node);
      if (value.type.kind !== "scalar") {
        this.report(Codes.TypeMismatch, rhsNode ?? node, `cannot assign ${typeToString(value.type)} to a ${typeToString(v.type)} variable`);
        return undefined;
      }
      // Widen un-annotated lets: an int that receives floats becomes a float, f32 receiving f64 becomes f64.
      if (!WEAK.has(value)) {
        const cur = v.type.dtype, incoming = (value.type as ScalarType).dtype;
        const declNode = this.declNodeOf(v);
        if (declNode && !this.isAnnotated(declNode) && needsWidening(cur, incoming)) {
          this.hints.set(declNode, commonDType(cur, incoming));
          this.widened = true;
        }
      }
      return { k: "assign", span, target, value: this.convertImplicitly(value, v.type.dtype, `the ${v.type.dtype} '${v.name}'`, rhsNode ?? node, rhsNode) };
    }
    if (ts.isElementAccessExpression(t)) {
      // Through an array variable: one store per array it may hold, the value computed once.
      let once: IR.Expr | undefined;
      const viaVariable = this.lowerArrayVariableStore(t, (target) => this.storeElement(target, op, (once ??= rhs(target)), node, rhsNode), node);
      if (viaVariable) {
        if (!once) rhs();
        return viaVariable.stmt;
      }
      const target = this.lowerElementAccess(t);
      if (!target || target.k !== "index") {
        if (target && !POISON.has(target)) this.report(Codes.InvalidAssignmentTarget, t, `'${t.getText(this.sf)}' is not an element: index every dimension of the array`);
        rhs();
        return undefined;
      }
      if (target.array.type.kind === "array" && target.array.type.space === "const") {
        this.report(Codes.WriteToConstMemory, t, "constant memory is read-only in kernels: copy the values into a local or shared array to change them");
      }
      return this.storeElement(target, op, rhs(target), node, rhsNode);
    }
    if (ts.isPropertyAccessExpression(t)) {
      if (this.complexPartAssignment(t)) {
        rhs();
        return undefined;
      }
      this.report(Codes.InvalidAssignmentTarget, t, `'${t.getText(this.sf)}' is read-only in kernels`);
      rhs();
      return undefined;
    }
    this.report(Codes.InvalidAssignmentTarget, t, "only local variables and array elements can be assigned in kernels");
    rhs();
    return undefined;
  }
}

function isTrueConst(e: IR.Expr): boolean {
  return e.k === "const" && e.value === true;
}

/** Whether every path through `body` ends in a return. */
function alwaysReturns(body: readonly IR.Stmt[]): boolean {
  for (const s of body) {
    if (s.k === "return") return true;
    if (s.k === "if" && s.else && alwaysReturns(s.then) && alwaysReturns(s.else)) return true;
    if (s.k === "block" && alwaysReturns(s.body)) return true;
    if (s.k === "loop" && !s.cond && !containsBreak(s.body)) return true;
  }
  return false;
}

function containsBreak(body: readonly IR.Stmt[]): boolean {
  return body.some((s) => s.k === "break" || (s.k === "if" && (containsBreak(s.then) || (s.else ? containsBreak(s.else) : false))) || (s.k === "block" && containsBreak(s.body)));
}

function upperName(e: ts.Expression): string {
  const x = stripParensAndNonNull(e);
  const base = ts.isIdentifier(x) ? x.text : ts.isPropertyAccessExpression(x) ? x.name.text : "SIZE";
  const up = base.replace(/([a-z0-9])([A-Z])/g, "$1_$2").replace(/[^A-Za-z0-9_]/g, "_").toUpperCase();
  return up === "LENGTH" ? "SIZE" : up;
}
