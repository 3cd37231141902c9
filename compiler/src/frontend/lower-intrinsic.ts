/**
 * A call of an intrinsic record (compiler/src/intrinsics/) typed by its signature: the arguments are
 * lowered in order, each by its parameter's rule (record.ts ParamRule), and the result is an
 * `intrinsic` node. This is what the call lowerer's switch arms were, once for every record; calls the
 * front end turns into other IR (cuda.grid, cuda.selp, Math.min/max, the complex functions) stay with
 * their lowerers.
 */
import ts from "typescript";
import { Codes } from "../diagnostics/codes";
import { libdeviceName, type IntrinsicRecord, type IntrinsicSignature } from "../intrinsics";
import type { LibdeviceFunction } from "../intrinsics/libdevice-table";
import type * as IR from "../ir/nodes";
import { isFloat, isInt64, scalar, VOID, type DType, type ScalarType } from "../ir/types";
import { POISON, WEAK } from "./lower-base";
import type { LoweringContext } from "./lower-context";

/** An argument as a scalar operand (a non-scalar is reported). */
function operand(ctx: LoweringContext, node: ts.Expression): IR.Expr {
  return ctx.conv.scalarOperand(ctx.expr.lowerExpr(node), node);
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
export function lowerIntrinsicCall(ctx: LoweringContext, record: IntrinsicRecord, call: ts.CallExpression, what: string, name = record.name): IR.Expr {
  const signature = record.signatures?.[0] as IntrinsicSignature;
  const params = signature.params;
  const required = params.filter((p) => p.default === undefined).length;
  if (!ctx.calls.expectArgs(call, required, params.length, what)) {
    for (const a of call.arguments) operand(ctx, a);
    return ctx.error(call);
  }
  const span = ctx.span(call);
  const raw = params.map((p, i) => (i < call.arguments.length ? operand(ctx, call.arguments[i]!) : ({ k: "const", type: scalar("u32"), value: p.default!, span } as IR.ConstExpr)));
  if (raw.some((a) => POISON.has(a))) return ctx.error(call);
  // Float parameters take numbers: a bigint is refused as TypeScript refuses it.
  for (let i = 0; i < params.length; i++) {
    const a = raw[i]!;
    if (params[i]!.rule === "float" && a.type.kind === "scalar" && isInt64(a.type.dtype)) {
      const text = call.arguments[i]!.getText(ctx.sf);
      ctx.report(Codes.Int64Operation, call.arguments[i]!, `${what} takes numbers, not bigints (TypeScript refuses it): write ${what}(Number(${text})), or compare bigints directly (x < 0n ? -x : x for an absolute value)`);
      return ctx.error(call);
    }
  }
  let T: DType | undefined;
  const floats = raw.filter((_, i) => params[i]!.rule === "float");
  if (floats.length) {
    T = floatType(floats, ctx.defaultFloat);
    if (what.startsWith("Math.")) ctx.conv.noteF64(T, call);
  }
  const args: IR.Expr[] = [];
  for (let i = 0; i < params.length; i++) {
    const rule = params[i]!.rule;
    const a = raw[i]!;
    const node = call.arguments[i] ?? call;
    switch (rule) {
      case "truthy":
        args.push(ctx.conv.truthy(a, node));
        break;
      case "float":
        args.push(ctx.conv.convertTo(a, T!));
        break;
      case "warpValue": {
        const value = ctx.conv.convertTo(a, (T = ctx.calls.warpValueDType(a)));
        if (POISON.has(value)) return ctx.error(call);
        args.push(value);
        break;
      }
      case "bits": {
        // On a bigint: the 64-bit instruction (__popcll, __brevll, __clzll, __ffsll).
        T = a.type.kind === "scalar" && isInt64(a.type.dtype) ? "u64" : "u32";
        args.push(ctx.conv.convertTo(a, T));
        break;
      }
      default:
        args.push(ctx.conv.convertTo(a, rule));
    }
  }
  const result = signature.result;
  const type: IR.Type = result === "void" ? VOID : scalar(result === "T" ? T! : result);
  return { k: "intrinsic", type, name: name as IR.IntrinsicName, args, span };
}

/**
 * `const [a, b] = cuda.libdevice.f(x)` for a function with a tuple result (intrinsics/libdevice.ts):
 * the arguments evaluated once into temporaries, then one element record per name.
 */
export function lowerTupleIntrinsic(ctx: LoweringContext, fn: LibdeviceFunction, call: ts.CallExpression, pattern: ts.ArrayBindingPattern, isConst: boolean): IR.Stmt[] {
  const what = `cuda.libdevice.${fn.name}`;
  if (fn.results.length === 1) {
    ctx.report(Codes.UnsupportedDestructuring, pattern, `${what} returns one ${fn.results[0]}: write const x = ${what}(…)`);
    ctx.poisonNames(pattern);
    return [];
  }
  if (!ctx.calls.expectArgs(call, fn.params.length, fn.params.length, what)) {
    ctx.poisonNames(pattern);
    return [];
  }
  const out: IR.Stmt[] = [];
  const args = fn.params.map((p, i) => {
    const node = call.arguments[i]!;
    const value = ctx.conv.convertTo(operand(ctx, node), p.type, node);
    if (value.k === "const" || value.k === "var" || POISON.has(value)) return value;
    // A temporary, so the arguments are evaluated once for all the elements.
    ctx.pushScope();
    const t = ctx.newVar("libdeviceArg", value.type, false, false, node);
    ctx.popScope();
    out.push({ k: "decl", v: t, init: value, span: value.span });
    return { k: "var", type: value.type, v: t, span: value.span } as IR.Expr;
  });
  const span = ctx.span(call);
  pattern.elements.forEach((el, i) => {
    if (ts.isOmittedExpression(el)) return;
    if (!ts.isIdentifier(el.name) || el.dotDotDotToken || el.initializer) {
      ctx.report(Codes.UnsupportedDestructuring, el, `write plain names: const [${fn.results.map((_, j) => `r${j}`).join(", ")}] = ${what}(…)`);
      return;
    }
    if (i >= fn.results.length) {
      ctx.report(Codes.UnsupportedDestructuring, el, `${what} returns ${fn.results.length} values: [${fn.results.join(", ")}]`);
      return;
    }
    const dtype = fn.results[i]!;
    const v = ctx.newVar(el.name.text, scalar(dtype), false, !isConst, el.name);
    out.push({ k: "decl", span: ctx.span(el), v, init: { k: "intrinsic", type: scalar(dtype), name: libdeviceName(fn.name, i) as IR.IntrinsicName, args, span } });
  });
  return out;
}
