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
import { ts } from "ts-morph";
import { Codes, type DiagnosticDefinition } from "../diagnostics/codes";
import { makeDiagnostic, type Diagnostic, type FixHint, type RelatedLocation } from "../diagnostics/diagnostic";
import type * as IR from "../ir/nodes";
import {
  BOOL,
  F32,
  F64,
  I32,
  U32,
  VOID,
  commonDType,
  intRange,
  isFloat,
  isInt,
  isSigned,
  scalar,
  typeToString,
  type ArrayType,
  type DType,
  type IntDType,
  type ScalarType,
  type Type,
} from "../ir/types";
import { ConstantFolder, isIntDivisionPattern, isIntegerLiteralText, MATH_CONSTANTS, stripParens, type ConstValue } from "./constants";
import { isCudaReference, type FunctionDecl, type ModuleInfo } from "./module-info";
import { isPure } from "../ir/visit";
import type { FrontEnd } from "./program";
import { readTypeAnnotation } from "./type-annotations";

/** What a caller needs to know about a device function to call it. */
export interface DeviceSignature {
  readonly id: string;
  readonly name: string;
  readonly params: readonly Type[];
  readonly paramNames: readonly string[];
  readonly returnType: Type;
}

/** Services the lowering of one function needs from the program. */
export interface LowerHost {
  readonly front: FrontEnd;
  /** The signature of a device function, lowering it if needed; `recursive` if it is being lowered now. */
  deviceSignature(fn: FunctionDecl): DeviceSignature | "recursive";
  /** Registers a constant array used through `cuda.const.arrayLike`; returns its module-level name. */
  useConstArray(module: ModuleInfo, decl: ts.VariableDeclaration, dtype: DType, values: readonly number[]): string;
}

export interface LoweredFunction {
  readonly fn: IR.IrFunction;
  readonly diagnostics: readonly Diagnostic[];
  /** Device functions called (their FunctionDecls), for the program to lower too. */
  readonly calledDevices: readonly FunctionDecl[];
}

type Binding =
  | { readonly k: "var"; readonly v: IR.Var; readonly isConstDecl: boolean }
  /** A name whose declaration was already reported: uses of it stay quiet (no cascading errors). */
  | { readonly k: "poison" }
  | { readonly k: "const"; readonly value: ConstValue; readonly dtype?: DType; readonly node: ts.Node };

const WEAK = new WeakSet<IR.Expr>();
/** Placeholders standing for code already reported: anything built on them reports nothing more. */
const POISON = new WeakSet<IR.Expr>();

class DiagnosticSink {
  readonly list: Diagnostic[] = [];
  private readonly seen = new Set<string>();
  add(d: Diagnostic): void {
    const key = `${d.code}:${d.span.file}:${d.span.start}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.list.push(d);
  }
}

const ASSIGNMENT_OPS = new Map<ts.SyntaxKind, IR.ArithOp | "=">([
  [ts.SyntaxKind.EqualsToken, "="],
  [ts.SyntaxKind.PlusEqualsToken, "+"],
  [ts.SyntaxKind.MinusEqualsToken, "-"],
  [ts.SyntaxKind.AsteriskEqualsToken, "*"],
  [ts.SyntaxKind.SlashEqualsToken, "/"],
  [ts.SyntaxKind.PercentEqualsToken, "%"],
  [ts.SyntaxKind.AmpersandEqualsToken, "&"],
  [ts.SyntaxKind.BarEqualsToken, "|"],
  [ts.SyntaxKind.CaretEqualsToken, "^"],
  [ts.SyntaxKind.LessThanLessThanEqualsToken, "<<"],
  [ts.SyntaxKind.GreaterThanGreaterThanEqualsToken, ">>"],
  [ts.SyntaxKind.GreaterThanGreaterThanGreaterThanEqualsToken, ">>>"],
]);

const ARITH_OPS = new Map<ts.SyntaxKind, IR.ArithOp>([
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

const COMPARE_OPS = new Map<ts.SyntaxKind, IR.CompareOp>([
  [ts.SyntaxKind.LessThanToken, "<"],
  [ts.SyntaxKind.LessThanEqualsToken, "<="],
  [ts.SyntaxKind.GreaterThanToken, ">"],
  [ts.SyntaxKind.GreaterThanEqualsToken, ">="],
  [ts.SyntaxKind.EqualsEqualsEqualsToken, "=="],
  [ts.SyntaxKind.EqualsEqualsToken, "=="],
  [ts.SyntaxKind.ExclamationEqualsEqualsToken, "!="],
  [ts.SyntaxKind.ExclamationEqualsToken, "!="],
]);

const UNARY_FLOAT_MATH = new Set<string>([
  "sqrt", "cbrt", "exp", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin", "acos", "atan",
  "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
]);
const ROUNDING_MATH = new Set<string>(["floor", "ceil", "round", "trunc"]);
const BINARY_FLOAT_MATH = new Set<string>(["pow", "atan2", "hypot"]);

const ATOMIC_DTYPES: Record<IR.AtomicOp, readonly DType[]> = {
  add: ["i32", "u32", "f32", "f64"],
  sub: ["i32", "u32", "f32", "f64"],
  exch: ["i32", "u32", "f32"],
  max: ["i32", "u32", "f32", "f64"],
  min: ["i32", "u32", "f32", "f64"],
  and: ["i32", "u32"],
  or: ["i32", "u32"],
  xor: ["i32", "u32"],
  inc: ["u32"],
  dec: ["u32"],
  compareAndSwap: ["i32", "u32"],
};

const ARRAY_METHODS = new Set([
  "map", "forEach", "reduce", "filter", "fill", "push", "pop", "shift", "unshift", "slice", "subarray", "splice", "set",
  "indexOf", "includes", "find", "findIndex", "sort", "reverse", "join", "concat", "every", "some", "at", "copyWithin",
  "entries", "keys", "values", "lastIndexOf", "reduceRight", "toString", "findLast", "findLastIndex", "with", "toSorted", "toReversed",
]);

const KERNEL_OPTIONS: Record<string, "boolean" | "registers"> = {
  fastmath: "boolean",
  maxRegisters: "registers",
  lineinfo: "boolean",
  debug: "boolean",
  cache: "boolean",
};

/** Lowers `decl` (a kernel or device function) to IR. */
export function lowerFunction(host: LowerHost, module: ModuleInfo, decl: FunctionDecl): LoweredFunction {
  let hints = new Map<ts.Node, DType>();
  let returnHint: DType | undefined;
  for (let attempt = 0; ; attempt++) {
    const l = new FunctionLowerer(host, module, decl, hints, returnHint);
    const result = l.run();
    if (!l.widened || attempt >= 4) return result;
    hints = l.hints;
    returnHint = l.returnHint;
  }
}

class FunctionLowerer {
  private readonly sf: ts.SourceFile;
  private readonly diags = new DiagnosticSink();
  private readonly scopes: Map<string, Binding>[] = [];
  private readonly vars: IR.Var[] = [];
  private readonly calledDevices = new Map<string, FunctionDecl>();
  private readonly callees = new Set<string>();
  private readonly returnTypes: ScalarType[] = [];
  private nextVarId = 0;
  private loopDepth = 0;
  private defaultFloat: "f32" | "f64" = "f32";
  /** Variable widening discovered in this pass; when set, the caller lowers again. */
  widened = false;
  readonly hints: Map<ts.Node, DType>;
  returnHint: DType | undefined;

  constructor(
    private readonly host: LowerHost,
    private readonly module: ModuleInfo,
    private readonly decl: FunctionDecl,
    hints: Map<ts.Node, DType>,
    returnHint: DType | undefined,
  ) {
    this.sf = module.sourceFile;
    this.hints = new Map(hints);
    this.returnHint = returnHint;
  }

  // ───────────────────────── entry ─────────────────────────

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
    this.defaultFloat = params.some((p) => (p.type.kind === "scalar" || p.type.kind === "array") && p.type.dtype === "f64") ? "f64" : "f32";

    let returnType: Type = VOID;
    if (decl.kind === "device" && fnNode.type) {
      const r = readTypeAnnotation(this.host.front, this.module, fnNode.type);
      if (fnNode.type.kind === ts.SyntaxKind.VoidKeyword) returnType = VOID;
      else if (r.ok && r.type.kind === "scalar") returnType = r.type;
      else this.report(Codes.UnsupportedParameterType, fnNode.type, r.ok ? "device functions return scalars (f32, i32, …) or nothing; write results into an array parameter instead" : r.message);
    }

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

  private finish(fn: IR.IrFunction): LoweredFunction {
    return { fn, diagnostics: this.diags.list, calledDevices: [...this.calledDevices.values()] };
  }

  private inferReturnDType(): DType | undefined {
    let t: DType | undefined;
    for (const r of this.returnTypes) t = t ? (t === r.dtype ? t : t === "bool" || r.dtype === "bool" ? t : commonDType(t, r.dtype)) : r.dtype;
    return t;
  }

  /** Converts device-function return values to the final return type (known only after the body). */
  private convertReturns(body: IR.Stmt[], rt: Type): IR.Stmt[] {
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

  private readOptions(node: ts.Expression | undefined): IR.KernelOptions {
    if (!node) return {};
    const e = stripParens(node);
    if (!ts.isObjectLiteralExpression(e)) {
      this.report(Codes.InvalidKernelOption, node, "kernel options must be an object literal such as { fastmath: true, maxRegisters: 32 }");
      return {};
    }
    const out: Record<string, boolean | number> = {};
    for (const p of e.properties) {
      if (!ts.isPropertyAssignment(p) || !(ts.isIdentifier(p.name) || ts.isStringLiteral(p.name))) {
        this.report(Codes.InvalidKernelOption, p, "write kernel options as `name: value` pairs");
        continue;
      }
      const name = p.name.text;
      const kind = KERNEL_OPTIONS[name];
      if (!kind) {
        this.report(Codes.InvalidKernelOption, p.name, `unknown kernel option '${name}': the options are ${Object.keys(KERNEL_OPTIONS).join(", ")}`);
        continue;
      }
      const v = new ConstantFolder((n) => this.host.front.constOf(this.module, n)).fold(p.initializer);
      if (kind === "boolean") {
        if (v && typeof v.value === "boolean") out[name] = v.value;
        else this.report(Codes.InvalidKernelOption, p.initializer, `option '${name}' takes true or false`);
      } else {
        if (v && typeof v.value === "number" && Number.isInteger(v.value) && v.value >= 16 && v.value <= 255) out[name] = v.value;
        else this.report(Codes.InvalidKernelOption, p.initializer, `option '${name}' takes a constant whole number of registers from 16 to 255`);
      }
    }
    return out as IR.KernelOptions;
  }

  private lowerParam(p: ts.ParameterDeclaration): IR.Var {
    const name = ts.isIdentifier(p.name) ? p.name.text : "_";
    if (!ts.isIdentifier(p.name)) this.report(Codes.UnsupportedDestructuring, p.name, "kernel parameters cannot be destructured: take each value as its own parameter");
    if (p.dotDotDotToken) this.report(Codes.UnsupportedExpression, p, "rest parameters are not supported in kernels: list each parameter");
    if (p.initializer) this.report(Codes.UnsupportedExpression, p.initializer, "parameters cannot have default values in kernels: pass the value at launch");
    let type: Type = I32;
    if (!p.type) {
      this.report(Codes.MissingParameterType, p, `parameter '${name}' needs a type: write ${name}: f32, ${name}: i32, ${name}: Float32Array, …`);
    } else {
      const r = readTypeAnnotation(this.host.front, this.module, p.type);
      if (r.ok) type = r.type;
      else this.report(Codes.UnsupportedParameterType, p.type, r.message);
    }
    const v = this.newVar(name, type, true, true, p.name);
    return v;
  }

  // ───────────────────────── scopes and vars ─────────────────────────

  private pushScope(): void {
    this.scopes.push(new Map());
  }
  private popScope(): void {
    this.scopes.pop();
  }
  private bind(name: string, b: Binding): void {
    this.scopes[this.scopes.length - 1]!.set(name, b);
  }
  private lookup(name: string): Binding | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const b = this.scopes[i]!.get(name);
      if (b) return b;
    }
    return undefined;
  }
  private newVar(name: string, type: Type, isParam: boolean, mutable: boolean, node: ts.Node): IR.Var {
    const v: IR.Var = { id: this.nextVarId++, name, type, isParam, mutable, span: this.span(node) };
    this.vars.push(v);
    this.bind(name, { k: "var", v, isConstDecl: !mutable && !isParam });
    return v;
  }

  // ───────────────────────── spans and diagnostics ─────────────────────────

  private span(node: ts.Node): IR.Span {
    const start = node.getStart(this.sf);
    const lc = this.sf.getLineAndCharacterOfPosition(start);
    return { file: this.module.file, start, end: node.end, line: lc.line + 1, col: lc.character + 1 };
  }

  private report(def: DiagnosticDefinition, node: ts.Node, message: string, extra?: { related?: RelatedLocation[]; fix?: FixHint }): void {
    this.diags.add(makeDiagnostic(def, this.span(node), message, extra));
  }

  // ───────────────────────── statements ─────────────────────────

  private lowerStatements(list: readonly ts.Statement[]): IR.Stmt[] {
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

  private lowerBlockBody(st: ts.Statement): IR.Stmt[] {
    this.pushScope();
    const body = ts.isBlock(st) ? this.lowerStatements(st.statements) : this.lowerStatements([st]);
    this.popScope();
    return body;
  }

  private lowerStatement(st: ts.Statement): IR.Stmt | IR.Stmt[] | undefined {
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

  private lowerReturn(expr: ts.Expression | undefined, node: ts.Node): IR.Stmt {
    const span = this.span(node);
    if (!expr) {
      if (this.decl.kind === "device" && (this.returnHint || this.decl.fn?.type && this.decl.fn.type.kind !== ts.SyntaxKind.VoidKeyword))
        this.report(Codes.MissingReturn, node, "this device function returns a value: write return <value>");
      return { k: "return", span };
    }
    if (this.decl.kind === "kernel") {
      const e = stripParens(expr);
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
    if (WEAK.has(v)) v = this.convertTo(v, this.returnHint ?? this.weakDefault(v));
    this.returnTypes.push(v.type as ScalarType);
    return { k: "return", span, value: v };
  }

  private lowerFor(s: ts.ForStatement): IR.Stmt {
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

  private lowerVariableList(list: ts.VariableDeclarationList, node: ts.Node): IR.Stmt[] {
    const isConst = (list.flags & ts.NodeFlags.Const) !== 0;
    const isLet = (list.flags & ts.NodeFlags.Let) !== 0;
    if (!isConst && !isLet) this.report(Codes.UnsupportedStatement, node, "`var` is not supported in kernels: write `let` (or `const`)");
    const out: IR.Stmt[] = [];
    for (const d of list.declarations) out.push(...this.lowerDeclaration(d, isConst));
    return out;
  }

  private lowerDeclaration(d: ts.VariableDeclaration, isConst: boolean): IR.Stmt[] {
    const span = this.span(d);
    if (ts.isObjectBindingPattern(d.name)) {
      this.report(Codes.UnsupportedDestructuring, d.name, "object destructuring is not supported in kernels: read each field, e.g. const tx = cuda.threadIdx.x");
      this.poisonNames(d.name);
      return [];
    }
    if (ts.isArrayBindingPattern(d.name)) return this.lowerTupleDestructuring(d, d.name, isConst);
    const name = d.name.text;
    const init = d.initializer ? stripParens(d.initializer) : undefined;

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
    const value = this.lowerExpr(init);
    if (POISON.has(value)) {
      // The annotation still says what the variable is: later uses keep being checked.
      if (annotated) return [{ k: "decl", span, v: this.newVar(name, scalar(annotated), false, !isConst, d.name) }];
      this.bind(name, { k: "poison" });
      return [];
    }
    if (value.type.kind === "array") {
      // An alias of an array (`const row = m`): bind the name to the same variable.
      if (value.k === "var") {
        this.bind(name, { k: "var", v: value.v, isConstDecl: true });
        if (!isConst) this.report(Codes.ArrayDeclarationPlacement, d, `array aliases must be const: const ${name} = ${init.getText(this.sf)}`);
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
    return [{ k: "decl", span, v, init: this.convertTo(value, dtype, init) }];
  }

  private lowerTupleDestructuring(d: ts.VariableDeclaration, pattern: ts.ArrayBindingPattern, isConst: boolean): IR.Stmt[] {
    const init = d.initializer ? stripParens(d.initializer) : undefined;
    const tuple = init && ts.isCallExpression(init) ? this.gridCall(init) : undefined;
    if (!tuple) {
      this.report(Codes.UnsupportedDestructuring, d.name, "only cuda.grid(n) and cuda.gridsize(n) can be destructured: const [x, y] = cuda.grid(2)");
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

  private arrayAllocation(call: ts.CallExpression): "shared" | "local" | "const" | undefined {
    const path = this.cudaPath(call.expression);
    if (!path || path.length !== 2) return undefined;
    if (path[0] === "shared" && path[1] === "array") return "shared";
    if (path[0] === "local" && path[1] === "array") return "local";
    if (path[0] === "const" && path[1] === "arrayLike") return "const";
    return undefined;
  }

  private lowerArrayDeclaration(d: ts.VariableDeclaration, name: string, call: ts.CallExpression, space: "shared" | "local" | "const"): IR.Stmt[] {
    const span = this.span(d);
    if (space === "const") {
      const arg = call.arguments[0];
      const sym = arg && ts.isIdentifier(arg) && !this.lookup(arg.text) ? this.host.front.resolveName(this.module, arg.text) : undefined;
      const arr = sym?.kind === "const" ? this.host.front.moduleConst(sym.module, sym.decl).array : undefined;
      if (!arr || call.arguments.length !== 1) {
        this.report(Codes.ConstArrayInvalid, arg ?? call, "cuda.const.arrayLike takes a module-level constant typed array: const FILTER = new Float32Array([0.25, 0.5, 0.25]) at module level, then cuda.const.arrayLike(FILTER)");
        const v = this.newVar(name, { kind: "array", dtype: "f32", rank: 1, space: "const", shape: [1] }, false, false, d.name);
        return [{ k: "constArrayDecl", span, v, constName: name }];
      }
      const constName = this.host.useConstArray(arr.module, arr.decl, arr.dtype, arr.values);
      const v = this.newVar(name, { kind: "array", dtype: arr.dtype, rank: 1, space: "const", shape: [arr.values.length] }, false, false, d.name);
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
      const bytes = shape.reduce((a, b) => a * b, 1) * byteSizeOf(dtype);
      if (bytes > 16 * 1024)
        this.report(Codes.LocalArrayTooLarge, call, `this local array takes ${bytes} bytes per thread; local memory is slow and large arrays spill: use shared memory or tile the work`);
    }
    const v = this.newVar(name, arrayType, false, false, d.name);
    return [{ k: "arrayDecl", span, v, arrayType }];
  }

  private readDTypeArg(e: ts.Expression): DType | undefined {
    const x = stripParens(e);
    if (ts.isIdentifier(x)) {
      const cs = this.module.cudascript.get(x.text);
      if (cs?.kind === "dtype" && !this.lookup(x.text)) return cs.dtype;
    } else if (ts.isPropertyAccessExpression(x) && ts.isIdentifier(x.expression) && this.module.cudascript.get(x.expression.text)?.kind === "namespace") {
      const n = x.name.text;
      if (["f32", "f64", "i8", "u8", "i16", "u16", "i32", "u32", "bool"].includes(n)) return n as DType;
    }
    this.report(Codes.WrongDType, e, `'${e.getText(this.sf)}' is not a dtype: pass one of f32, f64, i32, u32, i16, u16, i8, u8, bool imported from "cudascript"`);
    return undefined;
  }

  private readShape(e: ts.Expression, space: "shared" | "local"): number[] {
    const x = stripParens(e);
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

  private describeNonConstant(e: ts.Expression): string {
    const x = stripParens(e);
    if (ts.isIdentifier(x)) {
      const b = this.lookup(x.text);
      if (b?.k === "var") return `'${x.text}' ${b.v.isParam ? "is a kernel parameter, known only at launch" : "is a variable, known only at run time"}`;
      const sym = this.host.front.resolveName(this.module, x.text);
      if (sym?.kind === "mutable") return `'${x.text}' is a module \`let\`, which can change: use a module const`;
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
  private lowerExpressionStatement(e: ts.Expression, inHeader = false): IR.Stmt | undefined {
    const x = stripParens(e);
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
      return this.lowerAssignmentValue(x.operand, x.operator === ts.SyntaxKind.PlusPlusToken ? "+" : "-", () => this.weakConst(1, x), x);
    }
    if (ts.isCallExpression(x) && this.isConsoleLog(x)) return this.lowerPrint(x);
    const value = this.lowerExpr(x);
    return { k: "expr", span, expr: value };
  }

  private lowerAssignment(target: ts.Expression, op: IR.ArithOp | "=", rhs: ts.Expression, node: ts.Node): IR.Stmt | undefined {
    return this.lowerAssignmentValue(target, op, () => this.lowerExpr(rhs), node, rhs);
  }

  private lowerAssignmentValue(targetNode: ts.Expression, op: IR.ArithOp | "=", rhs: () => IR.Expr, node: ts.Node, rhsNode?: ts.Node): IR.Stmt | undefined {
    const span = this.span(node);
    const t = stripParens(targetNode);
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
      if (b.k === "const" || (b.k === "var" && b.isConstDecl)) {
        this.report(Codes.InvalidAssignmentTarget, t, `'${t.text}' is a constant: declare it with let to change it`);
        rhs();
        return undefined;
      }
      const v = b.v;
      if (v.type.kind === "array") {
        this.report(Codes.InvalidAssignmentTarget, t, `array '${t.text}' cannot be reassigned: assign its elements, e.g. ${t.text}[i] = value`);
        rhs();
        return undefined;
      }
      if (v.type.kind !== "scalar") return undefined;
      const target: IR.VarExpr = { k: "var", type: v.type, v, span: this.span(t) };
      let value = rhs();
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
      return { k: "assign", span, target, value: this.convertTo(value, v.type.dtype, rhsNode) };
    }
    if (ts.isElementAccessExpression(t)) {
      const target = this.lowerElementAccess(t);
      if (!target || target.k !== "index") {
        rhs();
        return undefined;
      }
      if (target.array.type.kind === "array" && target.array.type.space === "const") {
        this.report(Codes.WriteToConstMemory, t, "constant memory is read-only in kernels: copy the values into a local or shared array to change them");
      }
      let value = rhs();
      if (op !== "=") value = this.arith(op, target, value, node);
      if (value.type.kind !== "scalar") {
        this.report(Codes.TypeMismatch, rhsNode ?? node, `cannot store ${typeToString(value.type)} into an element of ${typeToString(target.array.type)}`);
        return undefined;
      }
      const elem = target.type.dtype;
      if (isInt(elem) && isFloat((value.type as ScalarType).dtype) && !WEAK.has(value) && op === "=" && !(value.k === "intrinsic" && ROUNDING_MATH.has(value.name)))
        this.report(Codes.ImplicitFloatToInt, rhsNode ?? node, `this stores a ${(value.type as ScalarType).dtype} value into ${typeToString(target.array.type)}, which truncates it: write Math.trunc(…) (or … | 0) to say so, or Math.round(…)`);
      return { k: "assign", span, target, value: this.convertTo(value, elem, rhsNode) };
    }
    if (ts.isPropertyAccessExpression(t)) {
      this.report(Codes.InvalidAssignmentTarget, t, `'${t.getText(this.sf)}' is read-only in kernels`);
      rhs();
      return undefined;
    }
    this.report(Codes.InvalidAssignmentTarget, t, "only local variables and array elements can be assigned in kernels");
    rhs();
    return undefined;
  }

  private readonly varDecls = new Map<number, ts.Node>();
  private declNodeOf(v: IR.Var): ts.Node | undefined {
    return this.varDecls.get(v.id);
  }
  private isAnnotated(n: ts.Node): boolean {
    return ts.isVariableDeclaration(n) && !!n.type;
  }

  // ───────────────────────── expressions ─────────────────────────

  private foldConst(e: ts.Expression): ConstValue | undefined {
    const folder = new ConstantFolder(
      (name) => {
        const b = this.lookup(name);
        if (b) return b.k === "const" && !b.dtype ? b.value : undefined;
        return this.moduleConstValue(name);
      },
      (id) => id.text === "Math" && !this.lookup("Math"),
    );
    const v = folder.fold(e);
    for (const p of folder.problems) {
      if (p.kind === "overflow")
        this.report(Codes.ConstantOverflow, p.node, `${p.node.getText(p.node.getSourceFile())} = ${p.value} does not fit in a 32-bit integer: reduce it, or write a float literal (e.g. ${p.value}.0) if you mean a float`);
      else this.report(Codes.DivisionByZero, p.node, "integer division by zero in a constant expression");
    }
    return v;
  }

  /** A module constant's value, reporting its own folding problems (overflow) where it is declared. */
  private moduleConstValue(name: string): ConstValue | undefined {
    const sym = this.host.front.resolveName(this.module, name);
    if (sym?.kind !== "const") return undefined;
    const r = this.host.front.moduleConst(sym.module, sym.decl);
    for (const p of r.problems) {
      const sf = p.node.getSourceFile();
      const start = p.node.getStart(sf);
      const lc = sf.getLineAndCharacterOfPosition(start);
      const span: IR.Span = { file: sym.module.file, start, end: p.node.end, line: lc.line + 1, col: lc.character + 1 };
      if (p.kind === "overflow")
        this.diags.add(makeDiagnostic(Codes.ConstantOverflow, span, `${p.node.getText(sf)} = ${p.value} does not fit in a 32-bit integer: reduce it, or write a float literal (e.g. ${p.value}.0) if you mean a float`));
      else this.diags.add(makeDiagnostic(Codes.DivisionByZero, span, "integer division by zero in a constant expression"));
    }
    return r.value;
  }

  private weakConst(value: number | boolean, node: ts.Node, isInt?: boolean): IR.ConstExpr {
    const int = isInt ?? (typeof value === "number" && Number.isInteger(value));
    // An integer literal takes the narrowest 32-bit type holding it: i32, else u32 (`0xffffffff`,
    // `4000000000 >>> 0`); beyond that it can only be a float.
    const type =
      typeof value === "boolean"
        ? BOOL
        : int && value >= -2147483648 && value <= 2147483647
          ? I32
          : int && value >= 0 && value <= 4294967295
            ? U32
            : int
              ? F64
              : scalar(this.defaultFloat);
    const e: IR.ConstExpr = { k: "const", type, value, span: this.span(node) };
    WEAK.add(e);
    return e;
  }

  private constExpr(c: ConstValue, node: ts.Node, dtype?: DType): IR.Expr {
    if (dtype) return { k: "const", type: scalar(dtype), value: typeof c.value === "boolean" || dtype === "bool" ? Boolean(c.value) : c.value, span: this.span(node) };
    return this.weakConst(c.value, node, c.isInt && typeof c.value === "number" && Number.isInteger(c.value));
  }

  private weakDefault(e: IR.Expr): DType {
    return e.type.kind === "scalar" ? e.type.dtype : "i32";
  }

  /** Placeholder after an error so lowering can go on. */
  private error(node: ts.Node): IR.Expr {
    const e = this.weakConst(0, node);
    POISON.add(e);
    return e;
  }

  private poisonNames(name: ts.BindingName): void {
    if (ts.isIdentifier(name)) this.bind(name.text, { k: "poison" });
    else for (const el of name.elements) if (!ts.isOmittedExpression(el)) this.poisonNames(el.name);
  }

  lowerExpr(e: ts.Expression): IR.Expr {
    // Constant expressions fold first (`TPB >> 1`, `2 * Math.PI`), keeping literal weakness.
    if (!ts.isIdentifier(e) || this.lookup(e.text)?.k !== "var") {
      const kind = e.kind;
      if (
        kind === ts.SyntaxKind.NumericLiteral ||
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
        this.report(Codes.UnsupportedExpression, e, "bigint is not supported in kernels: use i32 or u32 values");
        return this.error(e);
      case ts.SyntaxKind.NullKeyword:
      case ts.SyntaxKind.RegularExpressionLiteral:
        this.report(Codes.UnsupportedExpression, e, `'${e.getText(this.sf)}' is not supported in kernels`);
        return this.error(e);
      default:
        this.report(Codes.UnsupportedExpression, e, `this expression is not supported in kernels`);
        return this.error(e);
    }
  }

  private lowerIdentifier(id: ts.Identifier): IR.Expr {
    const b = this.lookup(id.text);
    if (b) {
      if (b.k === "const") return this.constExpr(b.value, id, b.dtype);
      if (b.k === "poison") return this.error(id);
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

  private lowerCondition(e: ts.Expression): IR.Expr {
    return this.truthy(this.lowerExpr(e), e);
  }

  private truthy(e: IR.Expr, node: ts.Node): IR.Expr {
    if (e.type.kind !== "scalar") {
      this.report(Codes.TypeMismatch, node, `a condition must be a number or boolean, not ${typeToString(e.type)}`);
      return this.weakConst(false, node);
    }
    if (e.type.dtype === "bool") return e;
    if (e.k === "const") return { k: "const", type: BOOL, value: Boolean(e.value) && !Number.isNaN(e.value), span: e.span };
    return { k: "truthy", type: BOOL, value: e, span: e.span };
  }

  /** Converts `e` to `dtype`, retyping weak constants instead of adding a conversion. */
  private convertTo(e: IR.Expr, dtype: DType, node?: ts.Node): IR.Expr {
    if (e.type.kind !== "scalar") return e;
    if (e.type.dtype === dtype) return e;
    if (e.k === "const" && WEAK.has(e)) {
      let value: number | boolean = e.value;
      if (dtype === "bool") value = Boolean(value);
      else if (typeof value === "boolean") value = value ? 1 : 0;
      else if (isInt(dtype)) {
        if (!Number.isInteger(value)) value = Math.trunc(value);
        const [lo, hi] = intRange(dtype as IntDType);
        if ((value < lo || value > hi) && node) {
          // Wraps like a typed-array store, but as a constant that is almost always a mistake.
          this.report(Codes.ConstantOverflow, node, `${value} does not fit in ${dtype} (${lo} … ${hi})`);
        }
      } else if (dtype === "f32") value = Math.fround(value);
      return { k: "const", type: scalar(dtype), value, span: e.span };
    }
    if (dtype === "bool") return { k: "truthy", type: BOOL, value: e, span: e.span };
    return { k: "convert", type: scalar(dtype), value: e, span: e.span };
  }

  private lowerPrefix(e: ts.PrefixUnaryExpression): IR.Expr {
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
      case ts.SyntaxKind.PlusToken:
        return this.lowerExpr(e.operand);
      case ts.SyntaxKind.MinusToken: {
        const v = this.scalarOperand(this.lowerExpr(e.operand), e.operand);
        const t = v.type as ScalarType;
        const dtype = t.dtype === "bool" ? "i32" : isInt(t.dtype) ? promoteForArith(t.dtype) : t.dtype;
        return { k: "unary", type: scalar(dtype), op: "-", operand: this.convertTo(v, dtype), span };
      }
      case ts.SyntaxKind.TildeToken: {
        const v = this.toInt32Operand(this.lowerExpr(e.operand), e.operand);
        return { k: "unary", type: I32, op: "~", operand: v, span };
      }
    }
    return this.error(e);
  }

  private scalarOperand(v: IR.Expr, node: ts.Node): IR.Expr {
    if (v.type.kind === "scalar") return v;
    this.report(Codes.TypeMismatch, node, `${typeToString(v.type)} is not a number here: index it, e.g. ${node.getText(this.sf)}[i]`);
    return this.error(node);
  }

  /** JavaScript's ToInt32 of an operand of a bitwise operator (floats truncate). */
  private toInt32Operand(v: IR.Expr, node: ts.Node): IR.Expr {
    v = this.scalarOperand(v, node);
    return this.convertTo(v, "i32");
  }

  private lowerBinary(e: ts.BinaryExpression): IR.Expr {
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
        const div = stripParens(e.left) as ts.BinaryExpression;
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
  private integerDivision(div: ts.BinaryExpression, node: ts.Node): IR.Expr | undefined {
    const l = this.lowerExpr(div.left), r = this.lowerExpr(div.right);
    if (l.type.kind !== "scalar" || r.type.kind !== "scalar") return undefined;
    const ld = l.type.dtype, rd = r.type.dtype;
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

  private unifyArith(l: IR.Expr, r: IR.Expr): { dtype: DType; l: IR.Expr; r: IR.Expr } {
    const lt = (l.type as ScalarType).dtype, rt = (r.type as ScalarType).dtype;
    const lw = WEAK.has(l), rw = WEAK.has(r);
    let dtype: DType;
    if (lw && rw) dtype = lt === rt ? lt : commonDType(lt, rt);
    else if (lw) dtype = weakMeets(l, rt, this.defaultFloat);
    else if (rw) dtype = weakMeets(r, lt, this.defaultFloat);
    else dtype = lt === rt ? lt : commonDType(lt, rt);
    return { dtype, l: this.convertTo(l, dtype), r: this.convertTo(r, dtype) };
  }

  private arith(op: IR.ArithOp, l0: IR.Expr, r0: IR.Expr, node: ts.Node): IR.Expr {
    const span = this.span(node);
    const l = this.scalarOperand(l0, node), r = this.scalarOperand(r0, node);
    if (l.k === "const" && r.k === "const" && WEAK.has(l) && WEAK.has(r)) {
      // Both constant (e.g. after inlining a const): fold like JavaScript.
      const v = foldArith(op, Number(l.value), Number(r.value));
      if (v !== undefined) return this.weakConst(v, node, (l.type as ScalarType).dtype !== "f32" && (l.type as ScalarType).dtype !== "f64" && Number.isInteger(v) && op !== "/");
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
        let { dtype, l: a, r: b } = this.unifyArith(l, r);
        if (!isFloat(dtype)) {
          dtype = this.defaultFloat;
          a = this.convertTo(a, dtype);
          b = this.convertTo(b, dtype);
        }
        this.noteF64(dtype, node);
        return { k: "binary", type: scalar(dtype), op, left: a, right: b, span };
      }
      default: {
        let { dtype, l: a, r: b } = this.unifyArith(l, r);
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

  private shiftCount(r: IR.Expr): IR.Expr {
    return this.convertTo(r, "i32");
  }

  private noteF64(dtype: DType, node: ts.Node): void {
    if (dtype === "f64" && this.defaultFloat === "f32")
      this.report(Codes.F64InF32Kernel, node, "this computes in f64 in a kernel that otherwise uses f32; f64 is up to 64× slower on most GPUs: annotate the variable as f32 or wrap the value in Math.fround(…) if f32 is enough");
  }

  private compare(op: IR.CompareOp, l: IR.Expr, r: IR.Expr, node: ts.Node): IR.Expr {
    const span = this.span(node);
    const lt = (l.type as ScalarType).dtype, rt = (r.type as ScalarType).dtype;
    if (lt === "bool" && rt === "bool") return { k: "compare", type: BOOL, op, operandType: BOOL, left: l, right: r, span };
    if (mixedSignedness(l, r)) {
      // i32 vs u32: compare the mathematical values, as JavaScript does (C would convert the i32 to
      // u32). f64 holds both exactly; the original operands are widened, never converted to u32 first.
      return { k: "compare", type: BOOL, op, operandType: F64, left: this.convertTo(l, "f64"), right: this.convertTo(r, "f64"), span };
    }
    let { dtype, l: a, r: b } = this.unifyArith(l, r);
    if (dtype === "bool") dtype = "i32";
    a = this.convertTo(a, dtype);
    b = this.convertTo(b, dtype);
    return { k: "compare", type: BOOL, op, operandType: scalar(dtype), left: a, right: b, span };
  }

  private lowerConditional(e: ts.ConditionalExpression): IR.Expr {
    const cond = this.lowerCondition(e.condition);
    const a = this.lowerExpr(e.whenTrue), b = this.lowerExpr(e.whenFalse);
    if (a.type.kind !== "scalar" || b.type.kind !== "scalar") {
      this.report(Codes.TypeMismatch, e, "both branches of ?: must be numbers or booleans in kernels");
      return this.error(e);
    }
    const span = this.span(e);
    if (a.type.dtype === "bool" && b.type.dtype === "bool") return { k: "select", type: BOOL, cond, then: a, else: b, span };
    const t = this.unifyArith(a, b);
    const r: IR.SelectExpr = { k: "select", type: scalar(t.dtype), cond, then: t.l, else: t.r, span };
    if (WEAK.has(a) && WEAK.has(b)) WEAK.add(r);
    return r;
  }

  private lowerElementAccess(e: ts.ElementAccessExpression): IR.IndexExpr | (IR.Expr & { type: ArrayType }) | undefined {
    // Collect a[i][j][k] into the base and its indices.
    const indexNodes: ts.Expression[] = [];
    let base: ts.Expression = e;
    while (ts.isElementAccessExpression(base)) {
      indexNodes.unshift(base.argumentExpression);
      base = stripParens(base.expression);
    }
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
    const indices = indexNodes.map((n) => this.lowerIndex(n));
    if (indexNodes.length < at.rank) {
      // A partial index (a row): only valid as the base of a further index, which the caller handles.
      return { ...(arr as IR.VarExpr), type: { ...at, rank: (at.rank - indexNodes.length) as 1 | 2 } } as IR.Expr & { type: ArrayType };
    }
    return { k: "index", type: scalar(at.dtype), array: arr, indices, span: this.span(e) };
  }

  /** `a.shape[d]` with a constant d → the extent of dimension d. */
  private lowerShapeAccess(e: ts.ElementAccessExpression): IR.Expr | undefined {
    const base = stripParens(e.expression);
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

  private lowerIndex(n: ts.Expression): IR.Expr {
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
    const div = stripParens(n);
    const hint = ts.isBinaryExpression(div) && div.operatorToken.kind === ts.SyntaxKind.SlashToken ? `(${text}) | 0 for integer division` : `Math.floor(${text}) | 0, or keep the index in an i32 variable`;
    this.report(Codes.NonIntegerIndex, n, `this index is ${d}, not an integer: write ${hint}`, { fix: { kind: "wrapIndexInt" } });
    return this.convertTo(v, "i32");
  }

  private lowerPropertyAccess(e: ts.PropertyAccessExpression): IR.Expr {
    if (e.questionDotToken) {
      this.report(Codes.UnsupportedExpression, e, "optional chaining (?.) is not supported in kernels");
      return this.error(e);
    }
    const path = this.cudaPath(e);
    if (path) return this.lowerCudaProperty(path, e);
    const obj = stripParens(e.expression);
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
    if (base && base.type.kind === "scalar") {
      this.report(Codes.UnsupportedExpression, e, `numbers have no properties in kernels ('${name}')`);
      return this.error(e);
    }
    if (base) this.report(Codes.UnsupportedExpression, e, `'${e.getText(this.sf)}' is not supported in kernels`);
    return this.error(e);
  }

  /** `cuda.a.b` → ["a", "b"]; undefined when the expression is not rooted at the `cuda` import. */
  private cudaPath(e: ts.Expression): string[] | undefined {
    const parts: string[] = [];
    let x: ts.Expression = stripParens(e);
    while (ts.isPropertyAccessExpression(x)) {
      if (isCudaReference(x, this.module.cudascript) && !this.shadowsCuda(x)) return parts;
      parts.unshift(x.name.text);
      x = stripParens(x.expression);
    }
    if (ts.isIdentifier(x) && isCudaReference(x, this.module.cudascript) && !this.lookup(x.text)) return parts;
    return undefined;
  }

  private shadowsCuda(x: ts.PropertyAccessExpression): boolean {
    return ts.isIdentifier(x.expression) && !!this.lookup(x.expression.text);
  }

  private lowerCudaProperty(path: string[], node: ts.Node): IR.Expr {
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
    this.report(Codes.UnknownCudaApi, node, `cuda.${path.join(".")} does not exist${suggestCuda(path.join("."))}`);
    return this.error(node);
  }

  // ───────────────────────── calls ─────────────────────────

  private isConsoleLog(call: ts.CallExpression): boolean {
    const c = call.expression;
    return ts.isPropertyAccessExpression(c) && ts.isIdentifier(c.expression) && c.expression.text === "console" && c.name.text === "log" && !this.lookup("console");
  }

  private lowerPrint(call: ts.CallExpression): IR.Stmt {
    const parts: string[] = [];
    const args: IR.Expr[] = [];
    for (const a of call.arguments) {
      const x = stripParens(a);
      if (ts.isStringLiteral(x) || ts.isNoSubstitutionTemplateLiteral(x)) {
        parts.push(x.text.replace(/%/g, "%%"));
        continue;
      }
      if (ts.isTemplateExpression(x)) {
        let s = x.head.text.replace(/%/g, "%%");
        for (const span of x.templateSpans) {
          const v = this.lowerExpr(span.expression);
          if (v.type.kind === "scalar") {
            const c = this.printable(v);
            s += c.fmt;
            args.push(c.e);
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
      const c = this.printable(v);
      parts.push(c.fmt);
      args.push(c.e);
    }
    return { k: "print", span: this.span(call), format: parts.join(" ") + "\n", args };
  }

  private printable(v: IR.Expr): { fmt: string; e: IR.Expr } {
    const d = (v.type as ScalarType).dtype;
    if (d === "u32") return { fmt: "%u", e: v };
    if (isInt(d)) return { fmt: "%d", e: this.convertTo(v, "i32") };
    if (d === "bool") return { fmt: "%d", e: this.convertTo(v, "i32") };
    return { fmt: "%g", e: d === "f32" ? this.convertTo(v, "f64") : v };
  }

  private lowerCall(call: ts.CallExpression): IR.Expr {
    const callee = stripParens(call.expression);
    if (call.questionDotToken) {
      this.report(Codes.UnsupportedExpression, call, "optional calls (?.) are not supported in kernels");
      return this.error(call);
    }
    const path = this.cudaPath(callee);
    if (path) return this.lowerCudaCall(path, call);
    if (ts.isPropertyAccessExpression(callee)) {
      const obj = stripParens(callee.expression);
      if (ts.isIdentifier(obj) && obj.text === "Math" && !this.lookup("Math")) return this.lowerMathCall(callee.name.text, call);
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
      if (ts.isIdentifier(obj) && !base) {
        const sym = this.host.front.resolveName(this.module, obj.text);
        if (sym?.kind === "function" && sym.fn.kind === "kernel" && callee.name.text === "launch") {
          this.report(Codes.NotADeviceFunction, call, "kernels cannot launch kernels (dynamic parallelism is not supported): launch from the host");
          return this.error(call);
        }
      }
      this.report(Codes.NotADeviceFunction, call, `'${callee.getText(this.sf)}' cannot be called in a kernel: only cuda.device functions, cuda.* and Math.* functions can be called`);
      return this.error(call);
    }
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

  private expectArgs(call: ts.CallExpression, min: number, max: number, what: string): boolean {
    const n = call.arguments.length;
    if (n < min || n > max) {
      this.report(Codes.WrongArgumentCount, call, `${what} takes ${min === max ? min : `${min} to ${max}`} argument${max === 1 ? "" : "s"}, got ${n}`);
      return false;
    }
    return true;
  }

  private lowerDeviceCall(fn: FunctionDecl, call: ts.CallExpression): IR.Expr {
    const sig = this.host.deviceSignature(fn);
    if (sig === "recursive") {
      this.report(Codes.Recursion, call, `'${fn.name}' is called recursively; GPUs have no call stack for recursion here: rewrite it as a loop`);
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
      const v = this.lowerExpr(a);
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
        args.push(v);
      } else if (pt.kind === "scalar") {
        if (v.type.kind !== "scalar") {
          this.report(Codes.TypeMismatch, a, `parameter '${sig.paramNames[i]}' of '${fn.name}' takes ${pt.dtype}, not ${typeToString(v.type)}`);
          args.push(this.error(a));
        } else args.push(this.convertTo(v, pt.dtype, a));
      }
    });
    for (const a of call.arguments.slice(sig.params.length)) this.lowerExpr(a);
    return { k: "call", type: sig.returnType, fn: sig.id, args, span: this.span(call) };
  }

  private lowerMathCall(name: string, call: ts.CallExpression): IR.Expr {
    const span = this.span(call);
    const what = `Math.${name}`;
    const arg = (i: number) => this.scalarOperand(this.lowerExpr(call.arguments[i]!), call.arguments[i]!);
    const floatOf = (e: IR.Expr): DType => {
      const d = (e.type as ScalarType).dtype;
      return isFloat(d) && !WEAK.has(e) ? d : this.defaultFloat;
    };
    if (UNARY_FLOAT_MATH.has(name)) {
      if (!this.expectArgs(call, 1, 1, what)) return this.error(call);
      const a = arg(0);
      const d = floatOf(a);
      this.noteF64(d, call);
      return { k: "intrinsic", type: scalar(d), name: name as IR.MathFunction, args: [this.convertTo(a, d)], span };
    }
    if (BINARY_FLOAT_MATH.has(name)) {
      if (!this.expectArgs(call, 2, 2, what)) return this.error(call);
      const a = arg(0), b = arg(1);
      const da = floatOf(a), db = floatOf(b);
      const d = WEAK.has(a) ? db : WEAK.has(b) ? da : da === "f64" || db === "f64" ? "f64" : da;
      this.noteF64(d, call);
      return { k: "intrinsic", type: scalar(d), name: name as IR.MathFunction, args: [this.convertTo(a, d), this.convertTo(b, d)], span };
    }
    if (ROUNDING_MATH.has(name)) {
      if (!this.expectArgs(call, 1, 1, what)) return this.error(call);
      if (name === "trunc") {
        const inner = stripParens(call.arguments[0]!);
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
          const t = this.unifyArith(acc, b);
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
      case "imul": {
        if (!this.expectArgs(call, 2, 2, what)) return this.error(call);
        return { k: "binary", type: I32, op: "*", left: this.convertTo(arg(0), "i32"), right: this.convertTo(arg(1), "i32"), span };
      }
      case "clz32": {
        if (!this.expectArgs(call, 1, 1, what)) return this.error(call);
        return { k: "intrinsic", type: I32, name: "clz", args: [this.convertTo(arg(0), "u32")], span };
      }
      case "random":
        this.report(Codes.UnknownIdentifier, call, "Math.random is not available in kernels: hash the thread index (e.g. a xorshift of cuda.grid(1) and a seed parameter) or pass random numbers in an array");
        return this.error(call);
      default:
        this.report(Codes.UnknownIdentifier, call, `Math.${name} is not available in kernels`);
        return this.error(call);
    }
  }

  private gridCall(call: ts.CallExpression): { reg: "grid" | "gridsize"; ndim: 1 | 2 | 3 } | undefined {
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

  private lowerCudaCall(path: string[], call: ts.CallExpression): IR.Expr {
    const span = this.span(call);
    const name = path.join(".");
    const arg = (i: number) => this.scalarOperand(this.lowerExpr(call.arguments[i]!), call.arguments[i]!);
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
      case "syncthreads":
      case "threadfence":
      case "threadfenceBlock":
      case "threadfenceSystem":
        this.expectArgs(call, 0, 0, `cuda.${name}`);
        return { k: "intrinsic", type: VOID, name: name as IR.IntrinsicName, args: [], span };
      case "syncthreadsCount":
      case "syncthreadsAnd":
      case "syncthreadsOr": {
        if (!this.expectArgs(call, 1, 1, `cuda.${name}`)) return this.error(call);
        return { k: "intrinsic", type: I32, name: name as IR.IntrinsicName, args: [this.truthy(arg(0), call.arguments[0]!)], span };
      }
      case "syncwarp": {
        if (!this.expectArgs(call, 0, 1, `cuda.${name}`)) return this.error(call);
        const mask = call.arguments.length ? this.convertTo(arg(0), "u32") : ({ k: "const", type: U32, value: 0xffffffff, span } as IR.ConstExpr);
        return { k: "intrinsic", type: VOID, name: "syncwarp", args: [mask], span };
      }
      case "activemask":
        this.expectArgs(call, 0, 0, `cuda.${name}`);
        return { k: "intrinsic", type: U32, name: "activemask", args: [], span };
      case "shflSync":
      case "shflUpSync":
      case "shflDownSync":
      case "shflXorSync": {
        if (!this.expectArgs(call, 3, 3, `cuda.${name}`)) return this.error(call);
        const mask = this.convertTo(arg(0), "u32");
        const v = arg(1);
        let d = (v.type as ScalarType).dtype;
        if (WEAK.has(v)) d = this.weakDefault(v);
        if (d === "bool" || (isInt(d) && d !== "i32" && d !== "u32")) d = "i32";
        return { k: "intrinsic", type: scalar(d), name: name as IR.IntrinsicName, args: [mask, this.convertTo(v, d), this.convertTo(arg(2), "i32")], span };
      }
      case "allSync":
      case "anySync":
      case "ballotSync": {
        if (!this.expectArgs(call, 2, 2, `cuda.${name}`)) return this.error(call);
        return { k: "intrinsic", type: name === "ballotSync" ? U32 : BOOL, name: name as IR.IntrinsicName, args: [this.convertTo(arg(0), "u32"), this.truthy(arg(1), call.arguments[1]!)], span };
      }
      case "popc":
      case "clz":
      case "ffs":
      case "brev": {
        if (!this.expectArgs(call, 1, 1, `cuda.${name}`)) return this.error(call);
        return { k: "intrinsic", type: name === "brev" ? U32 : I32, name: name as IR.IntrinsicName, args: [this.convertTo(arg(0), "u32")], span };
      }
      case "fma": {
        if (!this.expectArgs(call, 3, 3, `cuda.${name}`)) return this.error(call);
        const a = arg(0), b = arg(1), c = arg(2);
        const ds = [a, b, c].filter((x) => !WEAK.has(x)).map((x) => (x.type as ScalarType).dtype);
        const d: DType = ds.includes("f64") ? "f64" : ds.includes("f32") ? "f32" : this.defaultFloat;
        return { k: "intrinsic", type: scalar(d), name: "fma", args: [this.convertTo(a, d), this.convertTo(b, d), this.convertTo(c, d)], span };
      }
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
    this.report(Codes.UnknownCudaApi, call.expression, `cuda.${name} does not exist${suggestCuda(name)}`);
    for (const a of call.arguments) this.lowerExpr(a);
    return this.error(call);
  }

  private lowerAtomic(opName: string, call: ts.CallExpression): IR.Expr {
    const span = this.span(call);
    if (!(opName in ATOMIC_DTYPES)) {
      this.report(Codes.UnknownCudaApi, call.expression, `cuda.atomic.${opName} does not exist: the atomics are ${Object.keys(ATOMIC_DTYPES).join(", ")}`);
      return this.error(call);
    }
    const op = opName as IR.AtomicOp;
    const nargs = op === "compareAndSwap" ? 4 : 3;
    if (!this.expectArgs(call, nargs, nargs, `cuda.atomic.${op}`)) return this.error(call);
    const arrNode = call.arguments[0]!;
    const arr = this.lowerExpr(arrNode);
    if (arr.type.kind !== "array" || arr.k !== "var") {
      this.report(Codes.NotAnArray, arrNode, `the first argument of cuda.atomic.${op} is the array to update`);
      return this.error(call);
    }
    const at = arr.type;
    if (at.space === "const" || at.space === "local") {
      this.report(Codes.WrongDType, arrNode, `atomics work on global and shared arrays, not ${at.space} arrays`);
    }
    if (!ATOMIC_DTYPES[op].includes(at.dtype)) {
      this.report(Codes.WrongDType, arrNode, `cuda.atomic.${op} works on ${ATOMIC_DTYPES[op].map(typedArrayNameOf).join(", ")}, not ${typeToString(at)}`);
    }
    const idxNode = stripParens(call.arguments[1]!);
    let indices: IR.Expr[];
    if (ts.isArrayLiteralExpression(idxNode)) indices = idxNode.elements.map((n) => this.lowerIndex(n));
    else indices = [this.lowerIndex(idxNode)];
    if (indices.length !== at.rank) {
      this.report(Codes.WrongIndexCount, idxNode, at.rank === 1 ? "index a 1-D array with one index" : `index a ${at.rank}-D array with [${"i, j, k".slice(0, at.rank * 3 - 2)}]`);
      return this.error(call);
    }
    const d = at.dtype;
    const valueIdx = op === "compareAndSwap" ? 3 : 2;
    const value = this.convertTo(this.scalarOperand(this.lowerExpr(call.arguments[valueIdx]!), call.arguments[valueIdx]!), d);
    const expected = op === "compareAndSwap" ? this.convertTo(this.scalarOperand(this.lowerExpr(call.arguments[2]!), call.arguments[2]!), d) : undefined;
    return { k: "atomic", type: scalar(d), op, array: arr, indices, value, expected, span };
  }
}

// ───────────────────────── helpers ─────────────────────────

const KNOWN_CUDA_FUNCTIONS = new Set([
  "grid", "gridsize", "syncthreads", "syncthreadsCount", "syncthreadsAnd", "syncthreadsOr", "threadfence", "threadfenceBlock",
  "threadfenceSystem", "syncwarp", "shflSync", "shflUpSync", "shflDownSync", "shflXorSync", "allSync", "anySync", "ballotSync",
  "activemask", "popc", "brev", "clz", "ffs", "fma", "shared.array", "local.array", "const.arrayLike",
]);

const CUDA_NAMES = [...KNOWN_CUDA_FUNCTIONS, "threadIdx", "blockIdx", "blockDim", "gridDim", "laneid", "warpsize", "atomic.add"];

function suggestCuda(name: string): string {
  const snake = name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
  const lower = name.toLowerCase();
  const hit = CUDA_NAMES.find((n) => n === snake || n.toLowerCase() === lower || n.toLowerCase() === lower.replace(/_/g, ""));
  return hit ? `: did you mean cuda.${hit}?` : "";
}

function typedArrayNameOf(d: DType): string {
  return typeToString({ kind: "array", dtype: d, rank: 1, space: "global" });
}

function byteSizeOf(d: DType): number {
  return d === "f64" ? 8 : d === "i16" || d === "u16" ? 2 : d === "i8" || d === "u8" || d === "bool" ? 1 : 4;
}

function promoteForArith(d: IntDType): "i32" | "u32" {
  return d === "u32" ? "u32" : "i32";
}

/** The type a weak (literal) operand takes next to an operand of type `other`. */
function weakMeets(weak: IR.Expr, other: DType, defaultFloat: "f32" | "f64"): DType {
  const wv = weak.k === "const" ? weak.value : 0;
  const weakIsInt = weak.type.kind === "scalar" && (weak.type.dtype === "i32" || weak.type.dtype === "bool") && (typeof wv === "boolean" || Number.isInteger(wv));
  if (other === "bool") return weakIsInt ? "i32" : defaultFloat;
  if (isFloat(other)) return other;
  if (weakIsInt) {
    // A negative literal next to a u32 is still a u32 operation, as in CUDA C++.
    return other;
  }
  return defaultFloat;
}

/** An i32-family value next to a u32 (neither a literal): C and JavaScript disagree on these. */
function mixedSignedness(l: IR.Expr, r: IR.Expr): boolean {
  if (WEAK.has(l) || WEAK.has(r) || l.type.kind !== "scalar" || r.type.kind !== "scalar") return false;
  const a = l.type.dtype, b = r.type.dtype;
  return isInt(a) && isInt(b) && (a === "u32") !== (b === "u32") && (a === "u32" ? isSigned(b) : isSigned(a));
}

function needsWidening(cur: DType, incoming: DType): boolean {
  if (cur === incoming || incoming === "bool") return false;
  if (isInt(cur) && isFloat(incoming)) return true;
  if (cur === "f32" && incoming === "f64") return true;
  return false;
}

function isBoolish(e: IR.Expr): boolean {
  return e.type.kind === "scalar" && e.type.dtype === "bool";
}

function isTrueConst(e: IR.Expr): boolean {
  return e.k === "const" && e.value === true;
}


function foldArith(op: IR.ArithOp, a: number, b: number): number | undefined {
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

function containsAssignment(e: ts.Node): boolean {
  let found = false;
  const visit = (n: ts.Node): void => {
    if (found) return;
    if (ts.isBinaryExpression(n) && ASSIGNMENT_OPS.has(n.operatorToken.kind)) found = true;
    else if ((ts.isPrefixUnaryExpression(n) || ts.isPostfixUnaryExpression(n)) && (n.operator === ts.SyntaxKind.PlusPlusToken || n.operator === ts.SyntaxKind.MinusMinusToken)) found = true;
    else ts.forEachChild(n, visit);
  };
  visit(e);
  return found;
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
  const x = stripParens(e);
  const base = ts.isIdentifier(x) ? x.text : ts.isPropertyAccessExpression(x) ? x.name.text : "SIZE";
  const up = base.replace(/([a-z0-9])([A-Z])/g, "$1_$2").replace(/[^A-Za-z0-9_]/g, "_").toUpperCase();
  return up === "LENGTH" ? "SIZE" : up;
}

