/**
 * Shared state and helpers of the function lowerer (see lower.ts): scopes and variables, spans and
 * diagnostics, constant folding, weak (literal) typing, implicit conversions and poisoning, so that one
 * reported mistake does not cascade into more diagnostics.
 */
import ts from "typescript";
import { Codes, type DiagnosticDefinition } from "../diagnostics/codes";
import { makeDiagnostic, type Diagnostic, type FixHint, type RelatedLocation } from "../diagnostics/diagnostic";
import type * as IR from "../ir/nodes";
import type { View } from "../ir/views";
import { BOOL, F64, I32, U32, type ArrayType, commonDType, int64Range, intRange, isFloat, isInt, isInt64, isSigned, scalar, typeToString, type DType, type IntDType, type ScalarType, type Type } from "../ir/types";
import { f16round } from "../ir/f16";
import { ConstantFolder, stripParensAndNonNull, type ConstValue } from "./constants";
import type { FunctionDecl, ModuleInfo } from "./module-info";
import type { FrontEnd } from "./program";

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
  /**
   * "recursive": the function is being lowered (the call closes a cycle); "broken": it could not be
   * lowered at all (nested too deeply), which is reported at the function itself.
   */
  deviceSignature(fn: FunctionDecl): DeviceSignature | "recursive" | "broken";
  /** Registers a constant array used through `cuda.const.arrayLike`; returns its module-level name. */
  useConstArray(module: ModuleInfo, decl: ts.VariableDeclaration, dtype: DType, values: readonly (number | bigint)[], shape: readonly number[]): string;
}

export interface LoweredFunction {
  readonly fn: IR.IrFunction;
  readonly diagnostics: readonly Diagnostic[];
  /** Device functions called (their FunctionDecls), for the program to lower too. */
  readonly calledDevices: readonly FunctionDecl[];
}

export type Binding =
  /** `rebindReported`: a `let` alias of an array, already reported (CS3005), so reassigning it stays quiet. */
  /** `view`: the name is a view (`const v = a.subarray(…)`, `const r = m[i]`) of `v`, see lower-views.ts. */
  /** `arrayVar`: an array variable (lower-array-vars.ts); `v` is its selector. */
  | { readonly k: "var"; readonly v: IR.Var; readonly isConstDecl: boolean; readonly rebindReported?: true; readonly view?: View; readonly arrayVar?: { readonly decl: ts.VariableDeclaration; readonly type: ArrayType } }
  /** A name whose declaration was already reported: uses of it stay quiet (no cascading errors). */
  | { readonly k: "poison" }
  | { readonly k: "const"; readonly value: ConstValue; readonly dtype?: DType; readonly node: ts.Node }
  /** `const g = cuda.cg.thisGrid()`: a name only `g.sync()` may use (lower-grid-group.ts). */
  | { readonly k: "gridGroup"; readonly node: ts.Node };

/**
 * What to write instead of rebinding an array's own name (a parameter or a storage declaration): hold
 * the buffers in array variables (lower-array-vars.ts), which can be reassigned.
 */
export const ARRAY_SWAP_ADVICE =
  "to alternate two buffers (ping-pong, Jacobi), hold them in array variables: let src = a, dst = b; then const t = src; src = dst; dst = t (or const src = flag ? a : b)";

export const WEAK = new WeakSet<IR.Expr>();
/** Math functions whose result is a whole number: an integer takes it without CS5004. */
export const ROUNDING_MATH = new Set<string>(["floor", "ceil", "round", "trunc"]);
/**
 * Spans of `/` of two integers (true division, so a float even when the quotient is whole): CS5004
 * names them when an integer expression became a float through one. Keyed on the span, which a weak
 * constant keeps when convertTo retypes it.
 */
export const INTEGER_TRUE_DIVISION = new WeakSet<IR.Span>();
/** Placeholders standing for code already reported: anything built on them reports nothing more. */
export const POISON = new WeakSet<IR.Expr>();

export class DiagnosticSink {
  readonly list: Diagnostic[] = [];
  private readonly seen = new Set<string>();
  add(d: Diagnostic): void {
    const key = `${d.code}:${d.span.file}:${d.span.start}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.list.push(d);
  }
}

export const ASSIGNMENT_OPS = new Map<ts.SyntaxKind, IR.ArithOp | "=">([
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

export function promoteForArith(d: IntDType): "i32" | "u32" | "i64" | "u64" {
  return d === "u32" || d === "i64" || d === "u64" ? d : "i32";
}

/** The type a weak (literal) operand takes next to an operand of type `other`. */
export function weakMeets(weak: IR.Expr, other: DType, defaultFloat: "f32" | "f64"): DType {
  const wv = weak.k === "const" ? weak.value : 0;
  const weakIsInt = weak.type.kind === "scalar" && (weak.type.dtype === "i32" || weak.type.dtype === "bool") && (typeof wv === "boolean" || Number.isInteger(wv));
  // A bigint literal takes the other side's 64-bit type (`x + 1n` is u64 when x is).
  if (weak.type.kind === "scalar" && isInt64(weak.type.dtype)) return isInt64(other) ? other : weak.type.dtype;
  if (other === "bool") return weakIsInt ? "i32" : defaultFloat;
  if (isFloat(other)) return other;
  if (weakIsInt) {
    // A negative literal next to a u32 is still a u32 operation, as in CUDA C++.
    return other;
  }
  return defaultFloat;
}

/** An i32-family value next to a u32 (neither a literal): C and JavaScript disagree on these. */
export function mixedSignedness(l: IR.Expr, r: IR.Expr): boolean {
  if (WEAK.has(l) || WEAK.has(r) || l.type.kind !== "scalar" || r.type.kind !== "scalar") return false;
  const a = l.type.dtype, b = r.type.dtype;
  return isInt(a) && isInt(b) && (a === "u32") !== (b === "u32") && (a === "u32" ? isSigned(b) : isSigned(a));
}

/**
 * CS2020's message when one operand is f16 and the other another non-literal type, else undefined.
 * C++ has no implicit conversions between half and float (cuda_fp16.h makes `h + f` ambiguous) and
 * Numba computes float16 with float32 in float64 — a silent choice here would surprise either user, so
 * the kernel says which precision it wants. Literals (`h * 2`) take the f16 type, as they take f32's.
 */
export function f16MixMessage(a: DType, b: DType): string | undefined {
  if ((a === "f16") === (b === "f16")) return undefined;
  const other = a === "f16" ? b : a;
  if (other === "bool") return undefined;
  return isFloat(other)
    ? `f16 mixed with ${other} in one operation: convert explicitly, Math.f16round(x) to compute in f16, or ${other === "f32" ? "Math.fround(h)" : "a variable (const d: f64 = h)"} to compute in ${other}`
    : `f16 mixed with ${other} in one operation: convert the ${other} explicitly, Math.f16round(n) to compute in f16 (exact for integers up to 2048) or Math.fround(h) to compute in f32`;
}

export function needsWidening(cur: DType, incoming: DType): boolean {
  if (cur === incoming || incoming === "bool") return false;
  if (isInt(cur) && isFloat(incoming)) return true;
  if (cur === "f32" && incoming === "f64") return true;
  if (cur === "f16" && (incoming === "f32" || incoming === "f64")) return true;
  return false;
}

export function containsAssignment(e: ts.Node): boolean {
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

/** State and helpers shared by every part of the lowerer. */
export abstract class LowererBase {
  protected readonly sf: ts.SourceFile;
  protected readonly diags = new DiagnosticSink();
  protected readonly scopes: Map<string, Binding>[] = [];
  protected readonly vars: IR.Var[] = [];
  protected readonly calledDevices = new Map<string, FunctionDecl>();
  protected readonly callees = new Set<string>();
  protected readonly returnTypes: ScalarType[] = [];
  protected nextVarId = 0;
  protected loopDepth = 0;
  protected defaultFloat: "f32" | "f64" = "f32";
  /** Variable widening discovered in this pass; when set, the caller lowers again. */
  widened = false;
  readonly hints: Map<ts.Node, DType>;
  returnHint: DType | undefined;

  protected readonly varDecls = new Map<number, ts.Node>();

  constructor(
    protected readonly host: LowerHost,
    protected readonly module: ModuleInfo,
    protected readonly decl: FunctionDecl,
    hints: Map<ts.Node, DType>,
    returnHint: DType | undefined,
  ) {
    this.sf = module.sourceFile;
    this.hints = new Map(hints);
    this.returnHint = returnHint;
  }

  // ───────────────────────── scopes and vars ─────────────────────────

  protected pushScope(): void {
    this.scopes.push(new Map());
  }
  protected popScope(): void {
    this.scopes.pop();
  }
  protected bind(name: string, b: Binding): void {
    this.scopes[this.scopes.length - 1]!.set(name, b);
  }
  protected lookup(name: string): Binding | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const b = this.scopes[i]!.get(name);
      if (b) return b;
    }
    return undefined;
  }
  protected newVar(name: string, type: Type, isParam: boolean, mutable: boolean, node: ts.Node): IR.Var {
    const v: IR.Var = { id: this.nextVarId++, name, type, isParam, mutable, span: this.span(node) };
    this.vars.push(v);
    this.bind(name, { k: "var", v, isConstDecl: !mutable && !isParam });
    return v;
  }

  // ───────────────────────── spans and diagnostics ─────────────────────────

  protected span(node: ts.Node): IR.Span {
    const start = node.getStart(this.sf);
    const lc = this.sf.getLineAndCharacterOfPosition(start);
    return { file: this.module.file, start, end: node.end, line: lc.line + 1, col: lc.character + 1 };
  }

  protected report(def: DiagnosticDefinition, node: ts.Node, message: string, extra?: { related?: RelatedLocation[]; fix?: FixHint }): void {
    this.diags.add(makeDiagnostic(def, this.span(node), message, extra));
  }
  protected declNodeOf(v: IR.Var): ts.Node | undefined {
    return this.varDecls.get(v.id);
  }
  protected isAnnotated(n: ts.Node): boolean {
    return ts.isVariableDeclaration(n) && !!n.type;
  }

  // ───────────────────────── expressions ─────────────────────────

  protected foldConst(e: ts.Expression): ConstValue | undefined {
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
  protected moduleConstValue(name: string): ConstValue | undefined {
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

  protected weakConst(value: number | boolean | bigint, node: ts.Node, isInt?: boolean): IR.ConstExpr {
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

  protected constExpr(c: ConstValue, node: ts.Node, dtype?: DType): IR.Expr {
    if (dtype) return { k: "const", type: scalar(dtype), value: typeof c.value === "boolean" || dtype === "bool" ? Boolean(c.value) : c.value, span: this.span(node) };
    if (typeof c.value === "bigint") return this.weakConst(c.value, node);
    const e = this.weakConst(c.value, node, c.isInt && typeof c.value === "number" && Number.isInteger(c.value));
    const x = stripParensAndNonNull(node as ts.Expression);
    // `16 / 2`: whole, yet a float because `/` is true division (CS5004 says so where it truncates).
    if (!c.isInt && Number.isInteger(c.value) && ts.isBinaryExpression(x) && x.operatorToken.kind === ts.SyntaxKind.SlashToken) INTEGER_TRUE_DIVISION.add(e.span);
    return e;
  }

  protected weakDefault(e: IR.Expr): DType {
    return e.type.kind === "scalar" ? e.type.dtype : "i32";
  }

  /** Placeholder after an error so lowering can go on. */
  protected error(node: ts.Node): IR.Expr {
    const e = this.weakConst(0, node);
    POISON.add(e);
    return e;
  }

  protected poisonNames(name: ts.BindingName): void {
    if (ts.isIdentifier(name)) this.bind(name.text, { k: "poison" });
    else for (const el of name.elements) if (!ts.isOmittedExpression(el)) this.poisonNames(el.name);
  }

  protected lowerCondition(e: ts.Expression): IR.Expr {
    return this.truthy(this.lowerExpr(e), e);
  }

  protected truthy(e: IR.Expr, node: ts.Node): IR.Expr {
    if (e.type.kind !== "scalar") {
      this.report(Codes.TypeMismatch, node, `a condition must be a number or boolean, not ${typeToString(e.type)}`);
      return this.weakConst(false, node);
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
  protected convertTo(e: IR.Expr, dtype: DType, node?: ts.Node): IR.Expr {
    if (e.type.kind !== "scalar") return e;
    if (e.type.dtype === dtype) return e;
    // An implicit conversion between bigint and number (`let n: i64 = i`, `out[i] = x` with x an
    // i64 into an Int32Array): TypeScript refuses it, so it needs BigInt(…) / Number(…).
    if (node && dtype !== "bool" && isInt64(e.type.dtype) !== isInt64(dtype) && !POISON.has(e)) {
      const from = e.type.dtype;
      const fix = isInt64(dtype) ? (e.k === "const" && WEAK.has(e) && typeof e.value === "number" && Number.isInteger(e.value) ? `${e.value}n` : "BigInt(…) of the number") : "Number(…) of the bigint";
      this.report(Codes.Int64Mixing, node, `${/^[if]/.test(from) ? "an" : "a"} ${from} value cannot be stored as ${dtype} (${isInt64(dtype) ? "a bigint" : "a number"}) without a conversion: write ${fix}`);
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
          this.report(Codes.ConstantOverflow, node, `${value} does not fit in ${dtype} (${lo} … ${hi})`);
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
      if ((b < lo || b > hi) && node) this.report(Codes.ConstantOverflow, node, `${b}n does not fit in ${dtype} (${lo}n … ${hi}n)`);
      value = dtype === "i64" ? BigInt.asIntN(64, b) : BigInt.asUintN(64, b);
    } else value = Number(v);
    return { k: "const", type: scalar(dtype), value, span: e.span };
  }

  /**
   * CS2018 when one operand is a bigint (i64/u64) and the other a number: TypeScript refuses the mix
   * (TS2365), and CUDA C++ would convert silently. Returns true when reported.
   */
  protected reportInt64Mixing(l: IR.Expr, r: IR.Expr, node: ts.Node): boolean {
    if (l.type.kind !== "scalar" || r.type.kind !== "scalar" || POISON.has(l) || POISON.has(r)) return false;
    const a = isInt64(l.type.dtype), b = isInt64(r.type.dtype);
    if (a === b) return false;
    const [big, num] = a ? [l, r] : [r, l];
    const numText = num.k === "const" && WEAK.has(num) && typeof num.value === "number" && Number.isInteger(num.value) ? `${num.value}n` : "BigInt(…) of the number";
    this.report(Codes.Int64Mixing, node, `a bigint (${(big.type as ScalarType).dtype}) and a number (${(num.type as ScalarType).dtype}) cannot be mixed: write ${numText} to compute in 64 bits, or Number(…) of the bigint to compute with numbers`);
    return true;
  }

  protected scalarOperand(v: IR.Expr, node: ts.Node): IR.Expr {
    if (v.type.kind === "scalar") return v;
    this.report(Codes.TypeMismatch, node, `${typeToString(v.type)} is not a number here: index it, e.g. ${node.getText(this.sf)}[i]`);
    return this.error(node);
  }

  /** JavaScript's ToInt32 of an operand of a bitwise operator (floats truncate). */
  protected toInt32Operand(v: IR.Expr, node: ts.Node): IR.Expr {
    v = this.scalarOperand(v, node);
    return this.convertTo(v, "i32");
  }

  /** `node`: where to report f16 mixed with another type (CS2020); omitted where the caller reports it. */
  protected unifyArith(l: IR.Expr, r: IR.Expr, node?: ts.Node): { dtype: DType; l: IR.Expr; r: IR.Expr } {
    const lt = (l.type as ScalarType).dtype, rt = (r.type as ScalarType).dtype;
    const lw = WEAK.has(l), rw = WEAK.has(r);
    const mix = node && !lw && !rw ? f16MixMessage(lt, rt) : undefined;
    if (mix) this.report(Codes.F16Mixed, node!, mix);
    let dtype: DType;
    if (lw && rw) dtype = lt === rt ? lt : commonDType(lt, rt);
    else if (lw) dtype = weakMeets(l, rt, this.defaultFloat);
    else if (rw) dtype = weakMeets(r, lt, this.defaultFloat);
    else dtype = lt === rt ? lt : commonDType(lt, rt);
    return { dtype, l: this.convertTo(l, dtype), r: this.convertTo(r, dtype) };
  }

  protected shiftCount(r: IR.Expr): IR.Expr {
    return this.convertTo(r, "i32");
  }

  protected noteF64(dtype: DType, node: ts.Node): void {
    if (dtype === "f64" && this.defaultFloat === "f32")
      this.report(Codes.F64InF32Kernel, node, "this computes in f64 in a kernel that otherwise uses f32; f64 is up to 64× slower on most GPUs: annotate the variable as f32 or wrap the value in Math.fround(…) if f32 is enough");
  }

  /** Every expression form; implemented by ExpressionLowerer. */
  abstract lowerExpr(e: ts.Expression): IR.Expr;
}
