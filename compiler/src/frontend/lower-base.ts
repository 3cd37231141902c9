/**
 * The lowerer's shared types and rules (see lower.ts): the host interface and results, name bindings,
 * weak (literal) typing, the WEAK and POISON marks (a reported mistake poisons what depends on it, so
 * one mistake gives one diagnostic), and the operand rules every lowerer applies. The state of one
 * function's lowering is lower-context.ts.
 */
import ts from "typescript";
import type { Diagnostic } from "../diagnostics/diagnostic";
import type * as IR from "../ir/nodes";
import type { View } from "../ir/views";
import { type ArrayType, isFloat, isInt, isInt64, isSigned, type DType, type IntDType, type Type } from "../ir/types";
import type { ConstValue } from "./constants";
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
