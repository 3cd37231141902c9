/**
 * The lowering context of one function (see lower.ts): the state every lowerer shares — scopes and
 * variables, the diagnostics sink, spans, constant folding and weak literals, the host and the module,
 * the default float type and the widening hints — and the lowerers themselves, which call each other
 * through it (`ctx.expr.lowerExpr(…)`, `ctx.conv.convertTo(…)`) instead of through one class hierarchy.
 * Each lowerer is a small object holding only the context; the concern-specific state (views, array
 * variables' choices) lives in the lowerer that owns it. Where one concern refines another's rule, the
 * general entry point asks it first, in a fixed order: the complex lowerer's guards (conversions,
 * conditions, operators) return a result or undefined; the array-variable and view lowerers take the
 * next step as a `next` callback (names, elements, `.length`, `.shape[d]`, `?:`, device arguments).
 *
 * WEAK, POISON and INTEGER_TRUE_DIVISION (lower-base.ts) stay module-level: they mark IR nodes that
 * outlive one lowering (the checker's rules read POISON on the lowered IR).
 */
import ts from "typescript";
import { Codes, type DiagnosticDefinition } from "../diagnostics/codes";
import { makeDiagnostic, type FixHint, type RelatedLocation } from "../diagnostics/diagnostic";
import type * as IR from "../ir/nodes";
import { BOOL, F64, I32, U32, int64Range, scalar, type DType, type ScalarType, type Type } from "../ir/types";
import { ConstantFolder, stripParensAndNonNull, type ConstValue } from "./constants";
import type { FunctionDecl, ModuleInfo } from "./module-info";
import { DiagnosticSink, INTEGER_TRUE_DIVISION, POISON, WEAK, type Binding, type LowerHost } from "./lower-base";
import { ConversionLowerer } from "./lower-conversions";
import { ExpressionLowerer } from "./lower-expressions";
import { OperatorLowerer } from "./lower-operators";
import { ComplexLowerer } from "./lower-complex";
import { RandomLowerer } from "./lower-random";
import { ViewLowerer } from "./lower-views";
import { ArrayVarLowerer } from "./lower-array-vars";
import { CallLowerer } from "./lower-calls";
import { DeviceCallLowerer } from "./lower-device-calls";
import { AtomicLowerer } from "./lower-atomics";
import { PrintLowerer } from "./lower-print";
import { RaiseLowerer } from "./lower-raise";
import { GridGroupLowerer } from "./lower-grid-group";
import { StatementLowerer } from "./lower-statements";
import { DeclarationLowerer } from "./lower-declarations";
import { AssignmentLowerer } from "./lower-assignments";
import { RecordLowerer } from "./lower-records";

/** State and helpers shared by every lowerer of one function, and the lowerers themselves. */
export class LoweringContext {
  readonly sf: ts.SourceFile;
  readonly diags = new DiagnosticSink();
  readonly scopes: Map<string, Binding>[] = [];
  readonly vars: IR.Var[] = [];
  readonly calledDevices = new Map<string, FunctionDecl>();
  readonly callees = new Set<string>();
  readonly returnTypes: ScalarType[] = [];
  nextVarId = 0;
  loopDepth = 0;
  defaultFloat: "f32" | "f64" = "f32";
  /** Variable widening discovered in this pass; when set, the caller lowers again. */
  widened = false;
  readonly hints: Map<ts.Node, DType>;
  returnHint: DType | undefined;
  /** A device function's annotated scalar result, which its return values convert to. */
  declaredReturn?: ScalarType;

  readonly varDecls = new Map<number, ts.Node>();

  /** Implicit conversions, conditions, operand typing (lower-conversions.ts). */
  readonly conv = new ConversionLowerer(this);
  /** Literals, names, element/shape/property access, `cuda.*` properties (lower-expressions.ts). */
  readonly expr = new ExpressionLowerer(this);
  /** Unary, binary and conditional operators (lower-operators.ts). */
  readonly ops = new OperatorLowerer(this);
  readonly complex = new ComplexLowerer(this);
  readonly random = new RandomLowerer(this);
  readonly views = new ViewLowerer(this);
  readonly arrayVars = new ArrayVarLowerer(this);
  /** Call dispatch, `cuda.*` and `Math.*` intrinsics, `cuda.fp16.*` (lower-calls.ts). */
  readonly calls = new CallLowerer(this);
  readonly devices = new DeviceCallLowerer(this);
  readonly atomics = new AtomicLowerer(this);
  readonly print = new PrintLowerer(this);
  readonly raise = new RaiseLowerer(this);
  readonly gridGroup = new GridGroupLowerer(this);
  readonly stmts = new StatementLowerer(this);
  readonly decls = new DeclarationLowerer(this);
  readonly assign = new AssignmentLowerer(this);
  /** Field accesses, copies and stores of records (lower-records.ts). */
  readonly records = new RecordLowerer(this);

  constructor(
    readonly host: LowerHost,
    readonly module: ModuleInfo,
    readonly decl: FunctionDecl,
    hints: Map<ts.Node, DType>,
    returnHint: DType | undefined,
  ) {
    this.sf = module.sourceFile;
    this.hints = new Map(hints);
    this.returnHint = returnHint;
  }

  // ───────────────────────── scopes and vars ─────────────────────────

  pushScope(): void {
    this.scopes.push(new Map());
  }
  popScope(): void {
    this.scopes.pop();
  }
  bind(name: string, b: Binding): void {
    this.scopes[this.scopes.length - 1]!.set(name, b);
  }
  lookup(name: string): Binding | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const b = this.scopes[i]!.get(name);
      if (b) return b;
    }
    return undefined;
  }
  newVar(name: string, type: Type, isParam: boolean, mutable: boolean, node: ts.Node): IR.Var {
    const v: IR.Var = { id: this.nextVarId++, name, type, isParam, mutable, span: this.span(node) };
    this.vars.push(v);
    this.bind(name, { k: "var", v, isConstDecl: !mutable && !isParam });
    return v;
  }

  // ───────────────────────── spans and diagnostics ─────────────────────────

  span(node: ts.Node): IR.Span {
    const start = node.getStart(this.sf);
    const lc = this.sf.getLineAndCharacterOfPosition(start);
    return { file: this.module.file, start, end: node.end, line: lc.line + 1, col: lc.character + 1 };
  }

  report(def: DiagnosticDefinition, node: ts.Node, message: string, extra?: { related?: RelatedLocation[]; fix?: FixHint }): void {
    this.diags.add(makeDiagnostic(def, this.span(node), message, extra));
  }
  declNodeOf(v: IR.Var): ts.Node | undefined {
    return this.varDecls.get(v.id);
  }
  isAnnotated(n: ts.Node): boolean {
    return ts.isVariableDeclaration(n) && !!n.type;
  }

  // ───────────────────────── expressions ─────────────────────────

  foldConst(e: ts.Expression): ConstValue | undefined {
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
  moduleConstValue(name: string): ConstValue | undefined {
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

  weakConst(value: number | boolean | bigint, node: ts.Node, isInt?: boolean): IR.ConstExpr {
    if (typeof value === "bigint") {
      // `3600n`: i64 unless the context makes it u64 (weakMeets / convertTo); from 2^63 on a u64, as
      // such a literal is an unsigned long long in C++. Past 64 bits it fits nothing: CS2009, not a
      // silent wrap (TypeScript would keep the exact value).
      const [, i64Max] = int64Range("i64"), [, u64Max] = int64Range("u64"), [i64Min] = int64Range("i64");
      if (value > u64Max || value < i64Min)
        this.report(Codes.ConstantOverflow, node, `${value}n does not fit in 64 bits (i64: ${i64Min}n … ${i64Max}n, u64: 0n … ${u64Max}n)`);
      const dtype = value > i64Max && value <= u64Max ? "u64" : "i64";
      const e: IR.ConstExpr = { k: "const", type: scalar(dtype), value: dtype === "u64" ? value : BigInt.asIntN(64, value), span: this.span(node) };
      WEAK.add(e);
      return e;
    }
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

  constExpr(c: ConstValue, node: ts.Node, dtype?: DType): IR.Expr {
    if (dtype) return { k: "const", type: scalar(dtype), value: typeof c.value === "boolean" || dtype === "bool" ? Boolean(c.value) : c.value, span: this.span(node) };
    if (typeof c.value === "bigint") return this.weakConst(c.value, node);
    const e = this.weakConst(c.value, node, c.isInt && typeof c.value === "number" && Number.isInteger(c.value));
    const x = stripParensAndNonNull(node as ts.Expression);
    // `16 / 2`: whole, yet a float because `/` is true division (CS5004 says so where it truncates).
    if (!c.isInt && Number.isInteger(c.value) && ts.isBinaryExpression(x) && x.operatorToken.kind === ts.SyntaxKind.SlashToken) INTEGER_TRUE_DIVISION.add(e.span);
    return e;
  }

  weakDefault(e: IR.Expr): DType {
    return e.type.kind === "scalar" ? e.type.dtype : "i32";
  }

  /** Placeholder after an error so lowering can go on. */
  error(node: ts.Node): IR.Expr {
    const e = this.weakConst(0, node);
    POISON.add(e);
    return e;
  }

  poisonNames(name: ts.BindingName): void {
    if (ts.isIdentifier(name)) this.bind(name.text, { k: "poison" });
    else for (const el of name.elements) if (!ts.isOmittedExpression(el)) this.poisonNames(el.name);
  }
}
