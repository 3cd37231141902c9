/**
 * Normalisation of a kernel that synchronises (barriers or warp operations) before the simulator's
 * loop-fission code generator sees it:
 *
 * - every device function that (transitively) contains a synchronisation is inlined, with fresh
 *   variables, so that all synchronisation points are in the kernel's own statement tree;
 * - every synchronisation operation is lifted out of expressions into its own `sync` statement whose
 *   arguments are constants or variables and whose result (if any) goes to a fresh variable. Operands
 *   evaluated before the operation in JavaScript order are evaluated into temporaries first, so the
 *   observable order is unchanged. Short-circuit operands that synchronise become `if` statements;
 *   a loop condition that synchronises moves into the loop body.
 *
 * Kernels without synchronisation are not normalised: the fast path emits the IR as is.
 */
import type * as IR from "../ir/nodes";
import { BOOL, type ScalarType, type Type } from "../ir/types";
import { composeViews, extentThrough, indicesThrough, viewArgument, viewOfArgument, type View } from "../ir/views";

// `gridSync` (g.sync()) splits the kernel like a barrier; its simulator form is js/cooperative.ts.
import { BARRIER_INTRINSICS, SYNC_INTRINSICS, WARP_INTRINSICS } from "../intrinsics";

export interface SyncStmt {
  readonly k: "sync";
  readonly name: IR.IntrinsicName;
  /** Constants or variables only. */
  readonly args: readonly IR.Expr[];
  readonly result?: IR.Var;
  readonly span: IR.Span;
}
/** An inlined device function with early returns: `fnReturn` leaves it. */
export interface FnScopeStmt {
  readonly k: "fnScope";
  readonly id: number;
  readonly name: string;
  readonly body: readonly NStmt[];
  readonly span: IR.Span;
}
export interface FnReturnStmt {
  readonly k: "fnReturn";
  readonly scope: number;
  readonly span: IR.Span;
}
export interface NIf {
  readonly k: "if";
  readonly cond: IR.Expr;
  readonly then: readonly NStmt[];
  readonly else?: readonly NStmt[];
  readonly span: IR.Span;
}
export interface NLoop {
  readonly k: "loop";
  readonly init: readonly NStmt[];
  readonly cond?: IR.Expr;
  readonly update: readonly NStmt[];
  readonly body: readonly NStmt[];
  readonly testFirst: boolean;
  readonly span: IR.Span;
}
export interface NBlock {
  readonly k: "block";
  readonly body: readonly NStmt[];
  readonly span: IR.Span;
}

export type NStmt =
  | IR.DeclStmt
  | IR.ArrayDeclStmt
  | IR.ConstArrayDeclStmt
  | IR.AssignStmt
  | IR.BreakStmt
  | IR.ContinueStmt
  | IR.ReturnStmt
  | IR.ExprStmt
  | IR.PrintStmt
  | IR.RaiseStmt
  | NIf
  | NLoop
  | NBlock
  | SyncStmt
  | FnScopeStmt
  | FnReturnStmt;

export interface NormalizedKernel {
  readonly body: readonly NStmt[];
  /** Storage key of every shared/local array variable (inlined copies share their original's key). */
  readonly arrayKeys: ReadonlyMap<IR.Var, string>;
  readonly hasSync: boolean;
}

/** Device functions (by id) that contain a synchronisation operation, directly or through calls. */
export function syncFunctions(fns: readonly IR.IrFunction[]): Set<string> {
  const out = new Set<string>();
  // Callees come first in IrModule.deviceFunctions, but iterate to a fixed point to be safe.
  for (let round = 0; round < fns.length + 1; round++) {
    let changed = false;
    for (const f of fns) {
      if (out.has(f.id)) continue;
      if (stmtsHaveSync(f.body, out)) {
        out.add(f.id);
        changed = true;
      }
    }
    if (!changed) break;
  }
  return out;
}

export function exprHasSync(e: IR.Expr, syncFns: ReadonlySet<string>): boolean {
  switch (e.k) {
    case "const":
    case "var":
    case "special":
    case "shape":
      return false;
    case "unary":
      return exprHasSync(e.operand, syncFns);
    case "binary":
    case "compare":
    case "logical":
      return exprHasSync(e.left, syncFns) || exprHasSync(e.right, syncFns);
    case "select":
      return exprHasSync(e.cond, syncFns) || exprHasSync(e.then, syncFns) || exprHasSync(e.else, syncFns);
    case "convert":
    case "truthy":
      return exprHasSync(e.value, syncFns);
    case "index":
      return e.indices.some((i) => exprHasSync(i, syncFns));
    case "call":
      return syncFns.has(e.fn) || e.args.some((a) => exprHasSync(a, syncFns));
    case "intrinsic":
      return SYNC_INTRINSICS.has(e.name) || e.args.some((a) => exprHasSync(a, syncFns));
    case "atomic":
      return e.indices.some((i) => exprHasSync(i, syncFns)) || exprHasSync(e.value, syncFns) || (!!e.expected && exprHasSync(e.expected, syncFns));
    case "random":
      return exprHasSync(e.index, syncFns);
  }
}

export function stmtsHaveSync(stmts: readonly (IR.Stmt | NStmt)[], syncFns: ReadonlySet<string>): boolean {
  return stmts.some((s) => stmtHasSync(s, syncFns));
}

export function stmtHasSync(s: IR.Stmt | NStmt, syncFns: ReadonlySet<string>): boolean {
  switch (s.k) {
    case "sync":
      return true;
    case "fnScope":
      return true;
    case "fnReturn":
      return false;
    case "decl":
      return !!s.init && exprHasSync(s.init, syncFns);
    case "arrayDecl":
    case "constArrayDecl":
    case "break":
    case "continue":
      return false;
    case "return":
      return !!s.value && exprHasSync(s.value, syncFns);
    case "assign":
      return exprHasSync(s.value, syncFns) || (s.target.k === "index" && s.target.indices.some((i) => exprHasSync(i, syncFns)));
    case "expr":
      return exprHasSync(s.expr, syncFns);
    case "print":
    case "raise":
      return s.args.some((a) => exprHasSync(a, syncFns));
    case "if":
      return exprHasSync(s.cond, syncFns) || stmtsHaveSync(s.then, syncFns) || (!!s.else && stmtsHaveSync(s.else, syncFns));
    case "loop":
      return (!!s.cond && exprHasSync(s.cond, syncFns)) || stmtsHaveSync(s.init, syncFns) || stmtsHaveSync(s.update, syncFns) || stmtsHaveSync(s.body, syncFns);
    case "block":
      return stmtsHaveSync(s.body, syncFns);
  }
}

interface Env {
  readonly vars: Map<IR.Var, IR.Var>;
  readonly arrays: Map<IR.Var, IR.VarExpr>;
  /** Array parameters of an inlined device function that received a view (ir/views.ts). */
  readonly views?: Map<IR.Var, View>;
  /** Inside an inlined device function. */
  readonly fn?: { readonly retVar?: IR.Var; readonly scope?: number; readonly tail?: IR.Stmt };
  /** Identity renaming (the kernel's own body). */
  readonly identity: boolean;
}

export class Normalizer {
  private nextId: number;
  private nextScope = 1;
  readonly arrayKeys = new Map<IR.Var, string>();

  constructor(
    private readonly kernel: IR.IrFunction,
    private readonly fns: ReadonlyMap<string, IR.IrFunction>,
    private readonly syncFns: ReadonlySet<string>,
  ) {
    let max = 0;
    const visit = (v: IR.Var) => (max = Math.max(max, v.id));
    kernel.params.forEach(visit);
    forEachVar(kernel.body, visit);
    this.nextId = max + 1;
  }

  run(): NormalizedKernel {
    const env: Env = { vars: new Map(), arrays: new Map(), identity: true };
    const body = this.stmts(this.kernel.body, env, this.kernel.id);
    return { body, arrayKeys: this.arrayKeys, hasSync: stmtsHaveSync(body, this.syncFns) };
  }

  private fresh(name: string, type: Type, span: IR.Span): IR.Var {
    return { id: this.nextId++, name, type, isParam: false, mutable: true, span };
  }

  private rv(v: IR.Var, env: Env): IR.Var {
    return env.vars.get(v) ?? v;
  }

  private varExpr(v: IR.Var, span: IR.Span): IR.VarExpr {
    return { k: "var", type: v.type, v, span };
  }

  private stmts(list: readonly (IR.Stmt | NStmt)[], env: Env, fnId: string): NStmt[] {
    const out: NStmt[] = [];
    for (const s of list) this.stmt(s, env, out, fnId);
    return out;
  }

  private stmt(s: IR.Stmt | NStmt, env: Env, out: NStmt[], fnId: string): void {
    switch (s.k) {
      case "decl": {
        const v = this.declare(s.v, env);
        if (!s.init) {
          out.push({ ...s, v });
          return;
        }
        const direct = this.directSync(s.init, env, out, fnId, v);
        if (direct) return;
        const init = this.lin(s.init, env, out, fnId);
        out.push({ k: "decl", v, init, span: s.span });
        return;
      }
      case "arrayDecl": {
        const v = this.declare(s.v, env);
        this.arrayKeys.set(v, this.arrayKeys.get(s.v) ?? `${fnId}#${s.v.id}`);
        out.push({ ...s, v });
        return;
      }
      case "constArrayDecl": {
        const v = this.declare(s.v, env);
        out.push({ ...s, v });
        return;
      }
      case "assign": {
        if (s.target.k === "var") {
          const tv = this.rv(s.target.v, env);
          if (this.directSync(s.value, env, out, fnId, tv)) return;
          const value = this.lin(s.value, env, out, fnId);
          out.push({ k: "assign", target: this.varExpr(tv, s.target.span), value, span: s.span });
          return;
        }
        const t = s.target;
        const all = this.linList([...t.indices, s.value], env, out, fnId, false);
        const indices = all.slice(0, t.indices.length);
        const value = all[t.indices.length]!;
        out.push({ k: "assign", target: { ...t, ...this.access(t.array, indices, env, t.span) }, value, span: s.span });
        return;
      }
      case "if": {
        const cond = this.lin(s.cond, env, out, fnId);
        out.push({ k: "if", cond, then: this.stmts(s.then, env, fnId), else: s.else ? this.stmts(s.else, env, fnId) : undefined, span: s.span });
        return;
      }
      case "loop": {
        const init = this.stmts(s.init, env, fnId);
        let body = this.stmts(s.body, env, fnId);
        let update = this.stmts(s.update, env, fnId);
        let cond: IR.Expr | undefined;
        let testFirst = s.testFirst;
        if (s.cond && exprHasSync(s.cond, this.syncFns)) {
          const pre: NStmt[] = [];
          const c = this.lin(s.cond, env, pre, fnId);
          const exit: NStmt = { k: "if", cond: not(c), then: [{ k: "break", span: s.span }], span: s.span };
          if (s.testFirst) body = [...pre, exit, ...body];
          else {
            update = [...update, ...pre, exit];
            testFirst = true;
          }
          cond = undefined;
        } else cond = s.cond ? this.ren(s.cond, env) : undefined;
        out.push({ k: "loop", init, cond, update, body, testFirst, span: s.span });
        return;
      }
      case "break":
      case "continue":
        out.push(s);
        return;
      case "return": {
        if (!env.fn) {
          out.push(s);
          return;
        }
        if (s.value && env.fn.retVar) {
          const value = this.lin(s.value, env, out, fnId);
          out.push({ k: "assign", target: this.varExpr(env.fn.retVar, s.span), value, span: s.span });
        }
        if (env.fn.scope !== undefined && s !== env.fn.tail) out.push({ k: "fnReturn", scope: env.fn.scope, span: s.span });
        return;
      }
      case "expr": {
        const e = s.expr;
        if (e.k === "intrinsic" && SYNC_INTRINSICS.has(e.name)) {
          const args = this.linList(e.args, env, out, fnId, true);
          out.push({ k: "sync", name: e.name, args, span: e.span });
          return;
        }
        if (e.k === "intrinsic" && (e.name === "threadfence" || e.name === "threadfenceBlock" || e.name === "threadfenceSystem")) {
          out.push({ k: "expr", expr: e, span: s.span });
          return;
        }
        const x = this.lin(e, env, out, fnId);
        if (x.k !== "var" && x.k !== "const") out.push({ k: "expr", expr: x, span: s.span });
        return;
      }
      case "print":
      case "raise": {
        const args = this.linList(s.args, env, out, fnId, false);
        out.push({ ...s, args });
        return;
      }
      case "block":
        out.push({ k: "block", body: this.stmts(s.body, env, fnId), span: s.span });
        return;
      case "sync":
      case "fnScope":
      case "fnReturn":
        out.push(s);
        return;
    }
  }

  private declare(v: IR.Var, env: Env): IR.Var {
    if (env.identity) return v;
    const nv: IR.Var = { ...v, id: this.nextId++ };
    env.vars.set(v, nv);
    return nv;
  }

  /** `v = syncOp(args)` straight into `v` when `v` is not one of the arguments. */
  private directSync(e: IR.Expr, env: Env, out: NStmt[], fnId: string, target: IR.Var): boolean {
    if (e.k !== "intrinsic" || !SYNC_INTRINSICS.has(e.name) || e.type.kind !== "scalar") return false;
    const args = this.linList(e.args, env, out, fnId, true);
    if (args.some((a) => a.k === "var" && a.v === target)) {
      const tmp = this.fresh(`$s_${e.name}`, e.type, e.span);
      out.push({ k: "sync", name: e.name, args, result: tmp, span: e.span });
      out.push({ k: "assign", target: this.varExpr(target, e.span), value: this.varExpr(tmp, e.span), span: e.span });
      return true;
    }
    out.push({ k: "sync", name: e.name, args, result: target, span: e.span });
    return true;
  }

  private hoist(x: IR.Expr, out: NStmt[]): IR.VarExpr {
    const v = this.fresh("$h", x.type, x.span);
    out.push({ k: "decl", v, init: x, span: x.span });
    return this.varExpr(v, x.span);
  }

  /**
   * Linearises a list of operands evaluated left to right: operands before the last one that
   * synchronises are evaluated into temporaries first. With `trivial`, every operand ends up a
   * constant or a variable.
   */
  private linList(args: readonly IR.Expr[], env: Env, out: NStmt[], fnId: string, trivial: boolean): IR.Expr[] {
    let last = -1;
    args.forEach((a, i) => {
      if (exprHasSync(a, this.syncFns)) last = i;
    });
    const res: IR.Expr[] = [];
    args.forEach((a, i) => {
      let x: IR.Expr;
      if (i < last) {
        x = this.lin(a, env, out, fnId);
        if (!isOrderFree(x)) x = this.hoist(x, out);
      } else if (i === last) x = this.lin(a, env, out, fnId);
      else x = this.ren(a, env);
      if (trivial && x.k !== "const" && x.k !== "var") x = this.hoist(x, out);
      res.push(x);
    });
    return res;
  }

  /** Returns a synchronisation-free expression equivalent to `e`, pushing what must run first to `out`. */
  private lin(e: IR.Expr, env: Env, out: NStmt[], fnId: string): IR.Expr {
    if (!exprHasSync(e, this.syncFns)) return this.ren(e, env);
    switch (e.k) {
      case "intrinsic": {
        if (SYNC_INTRINSICS.has(e.name)) {
          const args = this.linList(e.args, env, out, fnId, true);
          if (e.type.kind !== "scalar") {
            out.push({ k: "sync", name: e.name, args, span: e.span });
            return { k: "const", type: BOOL, value: false, span: e.span };
          }
          const tmp = this.fresh(`$s_${e.name}`, e.type, e.span);
          out.push({ k: "sync", name: e.name, args, result: tmp, span: e.span });
          return this.varExpr(tmp, e.span);
        }
        return { ...e, args: this.linList(e.args, env, out, fnId, false) };
      }
      case "call": {
        const args = this.linList(e.args, env, out, fnId, false);
        if (this.syncFns.has(e.fn)) return this.inline(e, args, env, out);
        return { ...e, args };
      }
      case "logical": {
        if (!exprHasSync(e.right, this.syncFns)) return { ...e, left: this.lin(e.left, env, out, fnId), right: this.ren(e.right, env) };
        const tmp = this.fresh("$l", BOOL, e.span);
        out.push({ k: "decl", v: tmp, init: this.lin(e.left, env, out, fnId), span: e.span });
        const pre: NStmt[] = [];
        const r = this.lin(e.right, env, pre, fnId);
        pre.push({ k: "assign", target: this.varExpr(tmp, e.span), value: r, span: e.span });
        const t = this.varExpr(tmp, e.span);
        out.push({ k: "if", cond: e.op === "&&" ? t : not(t), then: pre, span: e.span });
        return this.varExpr(tmp, e.span);
      }
      case "select": {
        const cond = this.lin(e.cond, env, out, fnId);
        if (!exprHasSync(e.then, this.syncFns) && !exprHasSync(e.else, this.syncFns)) return { ...e, cond, then: this.ren(e.then, env), else: this.ren(e.else, env) };
        const tmp = this.fresh("$c", e.type, e.span);
        out.push({ k: "decl", v: tmp, span: e.span });
        const a: NStmt[] = [], b: NStmt[] = [];
        a.push({ k: "assign", target: this.varExpr(tmp, e.span), value: this.lin(e.then, env, a, fnId), span: e.span });
        b.push({ k: "assign", target: this.varExpr(tmp, e.span), value: this.lin(e.else, env, b, fnId), span: e.span });
        out.push({ k: "if", cond, then: a, else: b, span: e.span });
        return this.varExpr(tmp, e.span);
      }
      case "unary":
        return { ...e, operand: this.lin(e.operand, env, out, fnId) };
      case "binary":
      case "compare": {
        const [left, right] = this.linList([e.left, e.right], env, out, fnId, false);
        return { ...e, left: left!, right: right! };
      }
      case "convert":
      case "truthy":
        return { ...e, value: this.lin(e.value, env, out, fnId) };
      case "index":
        return { ...e, ...this.access(e.array, this.linList(e.indices, env, out, fnId, false), env, e.span) };
      case "atomic": {
        const ops = e.expected ? [...e.indices, e.expected, e.value] : [...e.indices, e.value];
        const r = this.linList(ops, env, out, fnId, false);
        const n = e.indices.length;
        return { ...e, ...this.access(e.array, r.slice(0, n), env, e.span), expected: e.expected ? r[n] : undefined, value: r[r.length - 1]! };
      }
      case "random":
        return { ...e, states: this.arrayRef(e.states, env), index: this.lin(e.index, env, out, fnId) };
      default:
        return this.ren(e, env);
    }
  }

  private inline(call: IR.CallExpr, args: readonly IR.Expr[], env: Env, out: NStmt[]): IR.Expr {
    const f = this.fns.get(call.fn);
    if (!f) throw new Error(`CudaScript simulator: device function ${call.fn} is missing from the module`);
    const retVar = f.returnType.kind === "scalar" ? this.fresh(`$ret_${f.name}`, f.returnType, call.span) : undefined;
    if (retVar) out.push({ k: "decl", v: retVar, span: call.span });
    const returns = countReturns(f.body);
    const last = f.body[f.body.length - 1];
    const tailOnly = returns === 0 || (returns === 1 && last?.k === "return");
    const scope = tailOnly ? undefined : this.nextScope++;
    const inner: Env = { vars: new Map(), arrays: new Map(), views: new Map(), identity: false, fn: { retVar, scope, tail: tailOnly ? last : undefined } };
    const body: NStmt[] = [];
    f.params.forEach((p, i) => {
      const a = args[i]!;
      if (p.type.kind === "array") {
        if (a.k === "var") inner.arrays.set(p, a);
        else if (a.k === "intrinsic" && a.name === "arrayView") inner.views!.set(p, viewOfArgument(a));
        return;
      }
      const np: IR.Var = { ...p, id: this.nextId++, isParam: false, mutable: true };
      inner.vars.set(p, np);
      body.push({ k: "decl", v: np, init: a, span: p.span });
    });
    for (const s of f.body) this.stmt(s, inner, body, f.id);
    if (scope === undefined) out.push({ k: "block", body, span: call.span });
    else out.push({ k: "fnScope", id: scope, name: f.name, body, span: f.span });
    return retVar ? this.varExpr(retVar, call.span) : { k: "const", type: BOOL, value: false, span: call.span };
  }

  /** Element `indices` (renamed) of `a` in `env`: of the base, through the view when `a` received one. */
  private access(a: IR.VarExpr, indices: IR.Expr[], env: Env, span: IR.Span): { array: IR.VarExpr; indices: IR.Expr[] } {
    const view = env.identity ? undefined : env.views?.get(a.v);
    if (view) return { array: view.base, indices: indicesThrough(view, indices, span) };
    return { array: this.arrayRef(a, env), indices };
  }

  /** An `arrayView` argument (renamed); over a parameter that is itself a view, one view of its base. */
  private renView(e: IR.IntrinsicExpr, env: Env): IR.Expr {
    const inner = viewOfArgument(e);
    const lead = inner.lead.map((x) => this.ren(x, env));
    const sub = inner.sub ? { offset: this.ren(inner.sub.offset, env), length: this.ren(inner.sub.length, env) } : undefined;
    const outer = env.views?.get(inner.base.v);
    if (outer) return viewArgument(composeViews(outer, { lead, sub, name: inner.name }, e.span), e.span);
    return viewArgument({ base: this.arrayRef(inner.base, env), lead, sub, name: inner.name }, e.span);
  }

  private arrayRef(a: IR.VarExpr, env: Env): IR.VarExpr {
    if (env.identity) return a;
    const alias = env.arrays.get(a.v);
    if (alias) return alias;
    const nv = env.vars.get(a.v);
    return nv ? { ...a, v: nv, type: nv.type } : a;
  }

  /** Deep copy of a synchronisation-free expression with the environment's renaming. */
  ren(e: IR.Expr, env: Env): IR.Expr {
    if (env.identity) return e;
    switch (e.k) {
      case "const":
      case "special":
        return e;
      case "var": {
        if (e.type.kind === "array") {
          const view = env.views?.get(e.v);
          return view ? viewArgument(view, e.span) : this.arrayRef(e, env);
        }
        const v = env.vars.get(e.v);
        return v ? { ...e, v } : e;
      }
      case "shape": {
        const view = env.views?.get(e.array.v);
        return view ? extentThrough(view, e.dim, e.span) : { ...e, array: this.arrayRef(e.array, env) };
      }
      case "unary":
        return { ...e, operand: this.ren(e.operand, env) };
      case "binary":
      case "compare":
      case "logical":
        return { ...e, left: this.ren(e.left, env), right: this.ren(e.right, env) };
      case "select":
        return { ...e, cond: this.ren(e.cond, env), then: this.ren(e.then, env), else: this.ren(e.else, env) };
      case "convert":
      case "truthy":
        return { ...e, value: this.ren(e.value, env) };
      case "index":
        return { ...e, ...this.access(e.array, e.indices.map((i) => this.ren(i, env)), env, e.span) };
      case "call":
        return { ...e, args: e.args.map((a) => this.ren(a, env)) };
      case "intrinsic":
        if (e.name === "arrayView") return this.renView(e, env);
        return { ...e, args: e.args.map((a) => this.ren(a, env)) };
      case "atomic":
        return { ...e, ...this.access(e.array, e.indices.map((i) => this.ren(i, env)), env, e.span), value: this.ren(e.value, env), expected: e.expected ? this.ren(e.expected, env) : undefined };
      case "random":
        return { ...e, states: this.arrayRef(e.states, env), index: this.ren(e.index, env) };
    }
  }
}

function not(c: IR.Expr): IR.Expr {
  return { k: "unary", type: BOOL as ScalarType, op: "!", operand: c, span: c.span };
}

/** Operands whose value cannot change across a synchronisation (no memory reads, no calls). */
function isOrderFree(e: IR.Expr): boolean {
  return e.k === "const" || e.k === "var" || e.k === "special" || e.k === "shape";
}

function countReturns(stmts: readonly IR.Stmt[]): number {
  let n = 0;
  for (const s of stmts) {
    if (s.k === "return") n++;
    else if (s.k === "if") n += countReturns(s.then) + (s.else ? countReturns(s.else) : 0);
    else if (s.k === "loop") n += countReturns(s.init) + countReturns(s.body) + countReturns(s.update);
    else if (s.k === "block") n += countReturns(s.body);
  }
  return n;
}

/** Calls `f` on every statement, nested ones included (pre-order; inlined functions' bodies too). */
export function forEachNStmt(stmts: readonly NStmt[], f: (s: NStmt) => void): void {
  for (const s of stmts) {
    f(s);
    if (s.k === "if") {
      forEachNStmt(s.then, f);
      if (s.else) forEachNStmt(s.else, f);
    } else if (s.k === "loop") {
      forEachNStmt(s.init, f);
      forEachNStmt(s.body, f);
      forEachNStmt(s.update, f);
    } else if (s.k === "block" || s.k === "fnScope") forEachNStmt(s.body, f);
  }
}

export function forEachVar(stmts: readonly (IR.Stmt | NStmt)[], f: (v: IR.Var) => void): void {
  for (const s of stmts) {
    switch (s.k) {
      case "decl":
      case "arrayDecl":
      case "constArrayDecl":
        f(s.v);
        break;
      case "sync":
        if (s.result) f(s.result);
        break;
      case "if":
        forEachVar(s.then, f);
        if (s.else) forEachVar(s.else, f);
        break;
      case "loop":
        forEachVar(s.init, f);
        forEachVar(s.body, f);
        forEachVar(s.update, f);
        break;
      case "block":
      case "fnScope":
        forEachVar(s.body, f);
        break;
      default:
        break;
    }
  }
}
