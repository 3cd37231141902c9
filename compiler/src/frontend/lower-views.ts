/**
 * Array views in kernels (docs/kernel-language.md#views): `a.subarray(begin, end)` of a 1-D array of
 * any memory space and rows `m[i]` of N-D arrays. A view is not a value of its own at run time: the
 * front end keeps, per view, its base array, the rows taken and the [offset, offset + length) part of a
 * row (ir/views.ts), and lowers every use — `v[j]`, `v.length`, `cuda.atomic.add(v, j, x)`, a device
 * function argument — to the base. So the backends index the base's storage (C++: the same pointer
 * arithmetic the base uses; simulator: the base's typed array and its sanitizer shadow, which keeps race
 * detection exact across overlapping views), and the simulator checks each access against the VIEW's
 * length (the `viewIndex` intrinsic).
 *
 * `subarray` clamps as TypedArray.prototype.subarray does (a negative begin/end counts from the end,
 * out-of-range values clamp, end < begin gives an empty view), which is also what Numba's slices do.
 */
import ts from "typescript";
import { Codes } from "../diagnostics/codes";
import type * as IR from "../ir/nodes";
import { BOOL, I32, scalar, type ArrayType } from "../ir/types";
import { composeViews, extentThrough, indicesThrough, viewArgument, viewType, type View } from "../ir/views";
import { isPure } from "../ir/visit";
import { stripParensAndNonNull } from "./constants";
import { POISON } from "./lower-base";
import type { LoweringContext } from "./lower-context";

type ArrayExpr = IR.Expr & { type: ArrayType };

export class ViewLowerer {
  /** The view each view-valued expression stands for (a VarExpr of the base with the view's type). */
  private readonly viewOf = new WeakMap<IR.Expr, View>();
  /**
   * Set while a declaration's initialiser is lowered: the statements that compute its view's rows,
   * offset and length once (a view is fixed when it is made, as a TypedArray's subarray is).
   */
  private viewTemps: IR.Stmt[] | undefined;

  constructor(private readonly ctx: LoweringContext) {}

  viewExpr(view: View, span: IR.Span): ArrayExpr {
    const e: IR.VarExpr & { type: ArrayType } = { k: "var", type: viewType(view), v: view.base.v, span };
    this.viewOf.set(e, view);
    return e;
  }

  /** The view `e` stands for, when it is one. */
  viewOfExpr(e: IR.Expr): View | undefined {
    return this.viewOf.get(e);
  }

  /** A device-function argument: the whole array, or the view as an `arrayView`. */
  arrayArgument(e: IR.Expr): IR.Expr {
    const v = this.viewOf.get(e);
    return v ? viewArgument(v, e.span) : e;
  }

  /** An expression where an array is accepted: a row `m[i]` or a `subarray` is a view here. */
  lowerArrayValue(e: ts.Expression): IR.Expr {
    const x = stripParensAndNonNull(e);
    if (ts.isElementAccessExpression(x)) {
      const shape = this.ctx.expr.lowerShapeAccess(x);
      if (shape) return shape;
      return this.ctx.expr.lowerElementAccess(x) ?? this.ctx.error(x);
    }
    return this.ctx.expr.lowerExpr(e);
  }

  /** A name bound to a view; `next` lowers any other name. */
  lowerIdentifier(id: ts.Identifier, next: () => IR.Expr): IR.Expr {
    const b = this.ctx.lookup(id.text);
    if (b?.k === "var" && b.view) return this.viewExpr(b.view, this.ctx.span(id));
    return next();
  }

  /** Element access through views; a partial index of an N-D array (a row) is a view. */
  lowerElementAccess(e: ts.ElementAccessExpression): IR.Expr | undefined {
    const access = this.ctx.expr.elementAccessArray(e);
    if (!access) return undefined;
    const { arr, indices } = access;
    const at = arr.type;
    const view: View = this.viewOf.get(arr) ?? { base: arr, lead: [], name: arr.v.name };
    const span = this.ctx.span(e);
    if (indices.length < at.rank) {
      // A row: a view of the remaining dimensions (C order, so always contiguous).
      const name = e.getText(this.ctx.sf);
      return this.viewExpr(composeViews(view, { lead: indices.map((i) => this.rowIndex(i, name)), name }, span), span);
    }
    return { k: "index", type: scalar(at.dtype), array: view.base, indices: indicesThrough(view, indices, span), span };
  }

  /** `v.length` / `v.shape[d]` of a view: its own extents. */
  lowerShapeAccess(e: ts.ElementAccessExpression, next: () => IR.Expr | undefined): IR.Expr | undefined {
    const base = stripParensAndNonNull(e.expression);
    if (!ts.isPropertyAccessExpression(base) || base.name.text !== "shape" || !this.mayBeView(base.expression)) return next();
    const arr = this.lowerArrayValue(base.expression);
    const view = this.viewOf.get(arr);
    if (!view) return next();
    const d = this.ctx.foldConst(e.argumentExpression);
    const rank = viewType(view).rank;
    if (!d || typeof d.value !== "number" || !Number.isInteger(d.value) || d.value < 0 || d.value >= rank) {
      this.ctx.report(Codes.NotConstant, e.argumentExpression, `index .shape with a constant dimension from 0 to ${rank - 1}`);
      return this.ctx.error(e);
    }
    return extentThrough(view, d.value, this.ctx.span(e));
  }

  /** `v.length` of a view; `next` lowers every other property access. */
  lowerPropertyAccess(e: ts.PropertyAccessExpression, next: () => IR.Expr): IR.Expr {
    if (e.name.text === "length" && !e.questionDotToken && this.mayBeView(e.expression)) {
      const arr = this.lowerArrayValue(e.expression);
      const view = this.viewOf.get(arr);
      if (view) return extentThrough(view, 0, this.ctx.span(e));
    }
    return next();
  }

  /** Whether `e` is written as something that can be a view (so lowering it twice is avoided otherwise). */
  private mayBeView(e: ts.Expression): boolean {
    const x = stripParensAndNonNull(e);
    if (ts.isIdentifier(x)) {
      const b = this.ctx.lookup(x.text);
      return b?.k === "var" && !!b.view;
    }
    return ts.isElementAccessExpression(x) || (ts.isCallExpression(x) && this.isSubarrayCall(x));
  }

  isSubarrayCall(call: ts.CallExpression): boolean {
    const callee = stripParensAndNonNull(call.expression);
    return ts.isPropertyAccessExpression(callee) && callee.name.text === "subarray" && !call.questionDotToken;
  }

  /**
   * `a.subarray(begin, end?)` of an array (undefined when `a` is not one, for the caller to report).
   * Clamped as TypedArray.prototype.subarray: rel(x) = x < 0 ? max(len + x, 0) : min(x, len);
   * offset = rel(begin), length = max(rel(end) - offset, 0).
   */
  lowerSubarray(call: ts.CallExpression): IR.Expr | undefined {
    const callee = stripParensAndNonNull(call.expression) as ts.PropertyAccessExpression;
    const obj = stripParensAndNonNull(callee.expression);
    if (ts.isIdentifier(obj)) {
      const b = this.ctx.lookup(obj.text);
      if (b?.k !== "var" || b.v.type.kind !== "array") return undefined;
    }
    const arr = this.lowerArrayValue(obj);
    if (POISON.has(arr)) return this.ctx.error(call);
    if (arr.type.kind !== "array" || arr.k !== "var") {
      this.ctx.report(Codes.NotAnArray, obj, `'${obj.getText(this.ctx.sf)}' is not an array: subarray takes a part of a 1-D array`);
      return this.ctx.error(call);
    }
    const name = call.getText(this.ctx.sf);
    const view: View = this.viewOf.get(arr) ?? { base: arr, lead: [], name: arr.v.name };
    const rank = viewType(view).rank;
    if (rank !== 1) {
      const o = obj.getText(this.ctx.sf);
      this.ctx.report(Codes.InvalidArrayView, call, `subarray takes a part of a 1-D array, and '${o}' has ${rank} dimensions: take a row first, ${o}[i].subarray(begin, end)`);
      return this.ctx.error(call);
    }
    if (call.arguments.length < 1 || call.arguments.length > 2) {
      this.ctx.report(Codes.InvalidArrayView, call, `subarray takes a begin index and an optional end index: ${obj.getText(this.ctx.sf)}.subarray(begin, end)`);
      for (const a of call.arguments) this.ctx.expr.lowerExpr(a);
      return this.ctx.error(call);
    }
    const span = this.ctx.span(call);
    const len = this.stable(this.constExtent(view) ?? extentThrough(view, 0, span), `${name}.length`, call);
    const begin = this.stable(this.viewBound(call.arguments[0]!), name, call.arguments[0]!);
    const end = call.arguments[1] ? this.stable(this.viewBound(call.arguments[1]), name, call.arguments[1]) : len;
    if (!begin || !end || !len) return this.ctx.error(call);
    const offset = this.stable(rel(begin, len, span), name, call);
    const length = this.stable(max0(sub(rel(end, len, span), offset!, span), span), name, call);
    if (!offset || !length) return this.ctx.error(call);
    return this.viewExpr(composeViews(view, { lead: [], sub: { offset, length }, name }, span), span);
  }

  /** A begin/end argument as an i32. */
  private viewBound(n: ts.Expression): IR.Expr {
    const v = this.ctx.expr.lowerIndex(n);
    return v.type.kind === "scalar" && v.type.dtype === "i32" ? v : this.ctx.conv.convertTo(v, "i32");
  }

  /** The constant length of a view or static array, for folding `sm.subarray(32, 64)` to constants. */
  private constExtent(view: View): IR.Expr | undefined {
    if (view.sub) return view.sub.length.k === "const" ? view.sub.length : undefined;
    const t = view.base.type as ArrayType;
    const n = t.space !== "global" ? t.shape?.[view.lead.length] : undefined;
    return n !== undefined && n > 0 ? { k: "const", type: I32, value: n, span: view.base.span } : undefined;
  }

  /** A row index of a view: evaluated once (in a declaration, into a const local). */
  private rowIndex(i: IR.Expr, name: string): IR.Expr {
    return this.stable(i, name, undefined) ?? i;
  }

  /**
   * `e` as an expression that can be evaluated again at every use of the view: constants and pure
   * expressions; in a declaration anything else is computed once into a const local. Elsewhere an
   * expression with effects (a call, an atomic) is reported (CS2029): naming the view computes it once.
   */
  private stable(e: IR.Expr, name: string, node: ts.Node | undefined): IR.Expr | undefined {
    if (e.k === "const") return e;
    if (this.viewTemps) {
      if (e.k === "var" && !e.v.mutable) return e;
      const t = this.ctx.newVar(`${name.replace(/\W+/g, "_")}$v`, I32, false, false, this.ctx.decl.nameNode);
      this.ctx.scopes[this.ctx.scopes.length - 1]!.delete(t.name);
      this.viewTemps.push({ k: "decl", v: t, init: e, span: e.span });
      return { k: "var", type: I32, v: t, span: e.span };
    }
    if (isPure(e)) return e;
    if (node) this.ctx.report(Codes.InvalidArrayView, node, `this view's bounds call a function: name the view first, const part = ${name}, so they are computed once`);
    return undefined;
  }

  /**
   * Lowers a declaration's initialiser that may be a view; `temps` receives the statements computing
   * its rows/offset/length once.
   */
  lowerViewInitializer(init: ts.Expression, temps: IR.Stmt[]): IR.Expr {
    const saved = this.viewTemps;
    this.viewTemps = temps;
    try {
      return this.lowerArrayValue(init);
    } finally {
      this.viewTemps = saved;
    }
  }
}

function cmpLt0(x: IR.Expr, span: IR.Span): IR.Expr {
  return { k: "compare", type: BOOL, op: "<", operandType: I32, left: x, right: { k: "const", type: I32, value: 0, span }, span };
}
function select(cond: IR.Expr, a: IR.Expr, b: IR.Expr, span: IR.Span): IR.Expr {
  return { k: "select", type: I32, cond, then: a, else: b, span };
}
function add(a: IR.Expr, b: IR.Expr, span: IR.Span): IR.Expr {
  if (a.k === "const" && b.k === "const") return { k: "const", type: I32, value: (Number(a.value) + Number(b.value)) | 0, span };
  return { k: "binary", type: I32, op: "+", left: a, right: b, span };
}
function sub(a: IR.Expr, b: IR.Expr, span: IR.Span): IR.Expr {
  if (a.k === "const" && b.k === "const") return { k: "const", type: I32, value: (Number(a.value) - Number(b.value)) | 0, span };
  return { k: "binary", type: I32, op: "-", left: a, right: b, span };
}
function max0(x: IR.Expr, span: IR.Span): IR.Expr {
  if (x.k === "const") return { k: "const", type: I32, value: Math.max(Number(x.value), 0), span };
  return select(cmpLt0(x, span), { k: "const", type: I32, value: 0, span }, x, span);
}
/** TypedArray.prototype.subarray's relative index: from the end when negative, clamped to [0, len]. */
function rel(x: IR.Expr, len: IR.Expr, span: IR.Span): IR.Expr {
  if (x.k === "const" && len.k === "const") {
    const v = Number(x.value), n = Number(len.value);
    return { k: "const", type: I32, value: v < 0 ? Math.max(n + v, 0) : Math.min(v, n), span };
  }
  if (x.k === "const" && Number(x.value) >= 0) {
    // min(x, len): len is never negative
    if (Number(x.value) === 0) return x;
    return select({ k: "compare", type: BOOL, op: "<", operandType: I32, left: len, right: x, span }, len, x, span);
  }
  const fromEnd = max0(add(len, x, span), span);
  const clamped = select({ k: "compare", type: BOOL, op: "<", operandType: I32, left: len, right: x, span }, len, x, span);
  if (x.k === "const") return fromEnd; // a negative constant
  return select(cmpLt0(x, span), fromEnd, clamped, span);
}
