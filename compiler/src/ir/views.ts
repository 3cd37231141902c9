/**
 * Array views (`a.subarray(begin, end)`, rows `m[i]`) as the IR spells them: a base array, the indices
 * of the rows taken (`lead`), and for a 1-D view of part of a row its element offset and length
 * (`sub`). An access through a view is an access of the base — `m[i][j]`, `a[viewIndex(j, len, off)]`
 * — so every backend indexes the base's own storage and the simulator's sanitizer keeps one shadow per
 * base element (two overlapping views of one shared array race on the same shadow entries).
 *
 * The front end (frontend/lower-views.ts) builds views from source; the simulator's normaliser uses
 * the same rules when it inlines a device function whose array parameter received a view.
 */
import type * as IR from "./nodes";
import { I32, type ArrayType } from "./types";

export interface View {
  /** The whole array viewed (its own type). */
  readonly base: IR.VarExpr;
  /** One pure i32 index per leading dimension of `base` taken (the rows). */
  readonly lead: readonly IR.Expr[];
  /** Elements [offset, offset + length) of the 1-D row: pure i32 expressions, already clamped to it. */
  readonly sub?: { readonly offset: IR.Expr; readonly length: IR.Expr };
  /** Source name, for out-of-bounds reports. */
  readonly name: string;
}

/** The type of a view: the base's dtype and memory space, its rank less the rows taken. */
export function viewType(v: View): ArrayType {
  const t = v.base.type as ArrayType;
  // A view of a record array is one too (its uses reach fields of the base: frontend/lower-records.ts).
  return { kind: "array", dtype: t.dtype, space: t.space, rank: (t.rank - v.lead.length) as 1 | 2 | 3, ...(t.record ? { record: t.record } : {}) };
}

/** The base indices of element `indices` (one per dimension of the view). */
export function indicesThrough(v: View, indices: readonly IR.Expr[], span: IR.Span): IR.Expr[] {
  if (!v.sub) return [...v.lead, ...indices];
  const j = indices[0]!;
  const checked: IR.IntrinsicExpr = { k: "intrinsic", type: I32, name: "viewIndex", args: [j, v.sub.length, v.sub.offset], view: { name: v.name }, span };
  return [...v.lead, checked];
}

/** Extent `dim` of the view. */
export function extentThrough(v: View, dim: number, span: IR.Span): IR.Expr {
  if (v.sub) return v.sub.length;
  return { k: "shape", type: I32, array: v.base, dim: v.lead.length + dim, span };
}

/** The view as a device-function argument (the `arrayView` intrinsic). */
export function viewArgument(v: View, span: IR.Span): IR.IntrinsicExpr {
  const args: IR.Expr[] = [v.base, ...v.lead];
  if (v.sub) args.push(v.sub.offset, v.sub.length);
  return { k: "intrinsic", type: viewType(v), name: "arrayView", args, view: { name: v.name, lead: v.lead.length, sub: !!v.sub }, span };
}

/** The view an `arrayView` argument stands for. */
export function viewOfArgument(e: IR.IntrinsicExpr): View {
  const lead = e.view?.lead ?? 0;
  const base = e.args[0] as IR.VarExpr;
  const sub = e.view?.sub ? { offset: e.args[1 + lead]!, length: e.args[2 + lead]! } : undefined;
  return { base, lead: e.args.slice(1, 1 + lead), sub, name: e.view?.name ?? base.v.name };
}

/** `inner` (rows `lead` and a sub-range of an array that is itself the view `outer`) as a view of outer's base. */
export function composeViews(outer: View, inner: { lead: readonly IR.Expr[]; sub?: View["sub"]; name: string }, span: IR.Span): View {
  if (!outer.sub) return { base: outer.base, lead: [...outer.lead, ...inner.lead], sub: inner.sub, name: inner.name };
  // outer is a 1-D part of a row, so inner takes no rows of it: offsets add up.
  if (!inner.sub) return { ...outer, name: inner.name };
  const offset: IR.Expr = isZero(outer.sub.offset) ? inner.sub.offset : { k: "binary", type: I32, op: "+", left: outer.sub.offset, right: inner.sub.offset, span };
  return { base: outer.base, lead: outer.lead, sub: { offset, length: inner.sub.length }, name: inner.name };
}

function isZero(e: IR.Expr): boolean {
  return e.k === "const" && e.value === 0;
}
