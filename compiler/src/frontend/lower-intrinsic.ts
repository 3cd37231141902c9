/**
 * A call of an intrinsic record (compiler/src/intrinsics/) typed by its signature: the arguments are
 * lowered in order, each by its parameter's rule (record.ts ParamRule), and the result is an
 * `intrinsic` node. This is what the call lowerer's switch arms were, once for every record; calls the
 * front end turns into other IR (cuda.grid, cuda.selp, Math.min/max, the complex functions) stay with
 * their lowerers.
 */
import ts from "typescript";
import { Codes } from "../diagnostics/codes";
import type { DiagnosticDefinition } from "../diagnostics/codes";
import { libdeviceName, type IntrinsicRecord, type IntrinsicSignature } from "../intrinsics";
import type { LibdeviceFunction } from "../intrinsics/libdevice-table";
import type * as IR from "../ir/nodes";
import { isFloat, isInt64, scalar, VOID, type DType, type ScalarType } from "../ir/types";
import { POISON, WEAK } from "./lower-base";

/** What the typing of a record's call needs from the lowerer. */
export interface IntrinsicLoweringHost {
  readonly defaultFloat: "f32" | "f64";
  readonly sf: ts.SourceFile;
  span(node: ts.Node): IR.Span;
  /** The argument as a scalar operand (reports a non-scalar). */
  operand(node: ts.Expression): IR.Expr;
  convertTo(e: IR.Expr, dtype: DType, node?: ts.Node): IR.Expr;
  truthy(e: IR.Expr, node: ts.Node): IR.Expr;
  /** The type a warp operation moves a value as (narrow integers and bools as i32, complex as its part). */
  warpValueDType(e: IR.Expr): DType;
  expectArgs(call: ts.CallExpression, min: number, max: number, what: string): boolean;
  report(def: DiagnosticDefinition, node: ts.Node, message: string): void;
  error(node: ts.Node): IR.Expr;
  /** Notes an f64 computation in a kernel whose default float is f32. */
  noteF64(dtype: DType, node: ts.Node): void;
}

/** The widest float of the arguments a `float` rule types: an integer argument is the kernel's float, a literal adapts. */
function floatType(args: readonly IR.Expr[], defaultFloat: "f32" | "f64"): DType {
  let widest: DType | undefined;
  const rank = (d: DType) => (d === "f64" ? 3 : d === "f32" ? 2 : d === "f16" ? 1 : 0);
  for (const a of args) {
    if (WEAK.has(a)) continue;
    const d = (a.type as ScalarType).dtype;
    const f = isFloat(d) ? d : defaultFloat;
    if (!widest || rank(f) > rank(widest)) widest = f;
  }
  return widest ?? defaultFloat;
}

/** `what(…)`: a call of `record` as `what` ("cuda.shflSync", "Math.sqrt", "cuda.libdevice.sinf"). */
export function lowerIntrinsicCall(h: IntrinsicLoweringHost, record: IntrinsicRecord, call: ts.CallExpression, what: string, name = record.name): IR.Expr {
  const signature = record.signatures?.[0] as IntrinsicSignature;
  const params = signature.params;
  const required = params.filter((p) => p.default === undefined).length;
  if (!h.expectArgs(call, required, params.length, what)) {
    for (const a of call.arguments) h.operand(a);
    return h.error(call);
  }
  const span = h.span(call);
  const raw = params.map((p, i) => (i < call.arguments.length ? h.operand(call.arguments[i]!) : ({ k: "const", type: scalar("u32"), value: p.default!, span } as IR.ConstExpr)));
  if (raw.some((a) => POISON.has(a))) return h.error(call);
  // Float parameters take numbers: a bigint is refused as TypeScript refuses it.
  for (let i = 0; i < params.length; i++) {
    const a = raw[i]!;
    if (params[i]!.rule === "float" && a.type.kind === "scalar" && isInt64(a.type.dtype)) {
      const text = call.arguments[i]!.getText(h.sf);
      h.report(Codes.Int64Operation, call.arguments[i]!, `${what} takes numbers, not bigints (TypeScript refuses it): write ${what}(Number(${text})), or compare bigints directly (x < 0n ? -x : x for an absolute value)`);
      return h.error(call);
    }
  }
  let T: DType | undefined;
  const floats = raw.filter((_, i) => params[i]!.rule === "float");
  if (floats.length) {
    T = floatType(floats, h.defaultFloat);
    if (what.startsWith("Math.")) h.noteF64(T, call);
  }
  const args: IR.Expr[] = [];
  for (let i = 0; i < params.length; i++) {
    const rule = params[i]!.rule;
    const a = raw[i]!;
    const node = call.arguments[i] ?? call;
    switch (rule) {
      case "truthy":
        args.push(h.truthy(a, node));
        break;
      case "float":
        args.push(h.convertTo(a, T!));
        break;
      case "warpValue": {
        const value = h.convertTo(a, (T = h.warpValueDType(a)));
        if (POISON.has(value)) return h.error(call);
        args.push(value);
        break;
      }
      case "bits": {
        // On a bigint: the 64-bit instruction (__popcll, __brevll, __clzll, __ffsll).
        T = a.type.kind === "scalar" && isInt64(a.type.dtype) ? "u64" : "u32";
        args.push(h.convertTo(a, T));
        break;
      }
      default:
        args.push(h.convertTo(a, rule));
    }
  }
  const result = signature.result;
  const type: IR.Type = result === "void" ? VOID : scalar(result === "T" ? T! : result);
  return { k: "intrinsic", type, name: name as IR.IntrinsicName, args, span };
}

/** What destructuring a tuple result needs beyond the typing host. */
export interface TupleLoweringHost extends IntrinsicLoweringHost {
  /** A temporary holding `value` (evaluated once): its declaration and a reference to it. */
  temp(value: IR.Expr, node: ts.Node): { decl: IR.Stmt; ref: IR.Expr };
  /** Declares the pattern's variable `name`. */
  variable(name: ts.Identifier, dtype: DType, isConst: boolean): IR.Var;
  poison(pattern: ts.ArrayBindingPattern): void;
}

/**
 * `const [a, b] = cuda.libdevice.f(x)` for a function with a tuple result (intrinsics/libdevice.ts):
 * the arguments evaluated once into temporaries, then one element record per name.
 */
export function lowerTupleIntrinsic(h: TupleLoweringHost, fn: LibdeviceFunction, call: ts.CallExpression, pattern: ts.ArrayBindingPattern, isConst: boolean): IR.Stmt[] {
  const what = `cuda.libdevice.${fn.name}`;
  if (fn.results.length === 1) {
    h.report(Codes.UnsupportedDestructuring, pattern, `${what} returns one ${fn.results[0]}: write const x = ${what}(…)`);
    h.poison(pattern);
    return [];
  }
  if (!h.expectArgs(call, fn.params.length, fn.params.length, what)) {
    h.poison(pattern);
    return [];
  }
  const out: IR.Stmt[] = [];
  const args = fn.params.map((p, i) => {
    const node = call.arguments[i]!;
    const value = h.convertTo(h.operand(node), p.type, node);
    if (value.k === "const" || value.k === "var" || POISON.has(value)) return value;
    const t = h.temp(value, node);
    out.push(t.decl);
    return t.ref;
  });
  const span = h.span(call);
  pattern.elements.forEach((el, i) => {
    if (ts.isOmittedExpression(el)) return;
    if (!ts.isIdentifier(el.name) || el.dotDotDotToken || el.initializer) {
      h.report(Codes.UnsupportedDestructuring, el, `write plain names: const [${fn.results.map((_, j) => `r${j}`).join(", ")}] = ${what}(…)`);
      return;
    }
    if (i >= fn.results.length) {
      h.report(Codes.UnsupportedDestructuring, el, `${what} returns ${fn.results.length} values: [${fn.results.join(", ")}]`);
      return;
    }
    const dtype = fn.results[i]!;
    const v = h.variable(el.name, dtype, isConst);
    out.push({ k: "decl", span: h.span(el), v, init: { k: "intrinsic", type: scalar(dtype), name: libdeviceName(fn.name, i) as IR.IntrinsicName, args, span } });
  });
  return out;
}
