/**
 * Rematerialisation analysis for fission kernels (run on the normalised body before emission, like
 * uniform.ts): the immutable locals whose value is a pure function of the thread index, launch
 * constants, unassigned parameters and other such locals. A piece recomputes them where it needs them
 * instead of keeping one value per thread in a typed array across synchronisations.
 */
import type * as IR from "../ir/nodes";
import { visitExpr } from "../ir/visit";
import type { NStmt } from "./normalize";

/**
 * The locals of `body` that can be recomputed in every piece, mapped to their initialiser, in declaration
 * order; block-uniform variables (`uniformVars`) are left out, as block-level code computes them once.
 */
export function rematerializable(body: readonly NStmt[], uniformVars: ReadonlySet<IR.Var>): Map<IR.Var, IR.Expr> {
  const remat = new Map<IR.Var, IR.Expr>();
  const defs = new Map<IR.Var, number>();
  const inits = new Map<IR.Var, IR.Expr>();
  const count = (v: IR.Var) => defs.set(v, (defs.get(v) ?? 0) + 1);
  const walk = (list: readonly NStmt[]) => {
    for (const s of list) {
      if (s.k === "decl") {
        count(s.v);
        if (s.init) inits.set(s.v, s.init);
      } else if (s.k === "assign" && s.target.k === "var") count(s.target.v);
      else if (s.k === "sync" && s.result) count(s.result);
      else if (s.k === "if") {
        walk(s.then);
        if (s.else) walk(s.else);
      } else if (s.k === "loop") {
        // A declaration inside a loop is a new value each iteration: fine; but count it as a def.
        walk(s.init);
        walk(s.body);
        walk(s.update);
      } else if (s.k === "block" || s.k === "fnScope") walk(s.body);
    }
  };
  walk(body);
  const assignedParams = new Set<IR.Var>();
  for (const [v] of defs) if (v.isParam) assignedParams.add(v);
  const pure = (e: IR.Expr): boolean => {
    switch (e.k) {
      case "const":
      case "special":
      case "shape":
        return true;
      case "var":
        if (e.type.kind !== "scalar") return false;
        if (e.v.isParam) return !assignedParams.has(e.v);
        return remat.has(e.v);
      case "unary":
        return pure(e.operand);
      case "binary":
      case "compare":
        return pure(e.left) && pure(e.right);
      case "convert":
      case "truthy":
        return pure(e.value);
      case "select":
        return pure(e.cond) && pure(e.then) && pure(e.else);
      default:
        return false;
    }
  };
  // Declaration order = id order; a var qualifies when its only definition is its initialiser.
  const vars = [...inits.keys()].filter((v) => defs.get(v) === 1 && v.type.kind === "scalar").sort((a, b) => a.id - b.id);
  for (const v of vars) if (pure(inits.get(v)!)) remat.set(v, inits.get(v)!);
  for (const v of remat.keys()) if (uniformVars.has(v)) remat.delete(v);
  return remat;
}

/**
 * Drops from `remat` the operands and results of synchronisations (they are read per thread from
 * storage), then, until nothing changes, every local whose initialiser reads a local no longer in it.
 */
export function pruneRematerialized(remat: Map<IR.Var, IR.Expr>, syncVars: ReadonlySet<IR.Var>): void {
  for (const v of syncVars) remat.delete(v);
  for (let changed = true; changed; ) {
    changed = false;
    for (const [v, e] of remat) {
      let ok = true;
      forEachVarExpr(e, (d) => {
        if (!d.isParam && !remat.has(d)) ok = false;
      });
      if (!ok) {
        remat.delete(v);
        changed = true;
      }
    }
  }
}

/** Calls `f` for every scalar variable `e` reads. */
export function forEachVarExpr(e: IR.Expr, f: (v: IR.Var) => void): void {
  visitExpr(e, (x) => {
    if (x.k === "var" && x.type.kind === "scalar") f(x.v);
  });
}
