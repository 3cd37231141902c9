/** Walking the kernel IR: the one place that knows which nodes have which children. */
import type * as IR from "./nodes";
import type { Expr, Stmt, Var } from "./nodes";

/** Calls `f` on each direct sub-expression of `e`, in evaluation order. */
export function forEachChild(e: Expr, f: (child: Expr) => void): void {
  switch (e.k) {
    case "unary":
      f(e.operand);
      break;
    case "binary":
    case "compare":
    case "logical":
      f(e.left);
      f(e.right);
      break;
    case "select":
      f(e.cond);
      f(e.then);
      f(e.else);
      break;
    case "convert":
    case "truthy":
      f(e.value);
      break;
    case "index":
      e.indices.forEach(f);
      break;
    case "shape":
      break;
    case "call":
    case "intrinsic":
      e.args.forEach(f);
      break;
    case "atomic":
      e.indices.forEach(f);
      if (e.expected) f(e.expected);
      f(e.value);
      break;
    case "random":
      f(e.index);
      break;
    default:
      break;
  }
}

/** Pre-order walk of `e` and everything below it. */
export function visitExpr(e: Expr, f: (e: Expr) => void): void {
  f(e);
  forEachChild(e, (c) => visitExpr(c, f));
}

/** Calls `f` on every statement, nested ones included (pre-order). */
export function forEachStmt(stmts: readonly Stmt[], f: (s: Stmt) => void): void {
  for (const s of stmts) {
    f(s);
    if (s.k === "if") {
      forEachStmt(s.then, f);
      if (s.else) forEachStmt(s.else, f);
    } else if (s.k === "loop") {
      forEachStmt(s.init, f);
      forEachStmt(s.body, f);
      forEachStmt(s.update, f);
    } else if (s.k === "block") forEachStmt(s.body, f);
  }
}

/** Calls `f` on the root expressions of every statement (targets of assignments included). */
export function forEachRootExpr(stmts: readonly Stmt[], f: (e: Expr) => void): void {
  forEachStmt(stmts, (s) => {
    switch (s.k) {
      case "decl":
        if (s.init) f(s.init);
        break;
      case "assign":
        f(s.target);
        f(s.value);
        break;
      case "expr":
        f(s.expr);
        break;
      case "print":
      case "raise":
        s.args.forEach(f);
        break;
      case "return":
        if (s.value) f(s.value);
        break;
      case "if":
        f(s.cond);
        break;
      case "loop":
        if (s.cond) f(s.cond);
        break;
      default:
        break;
    }
  });
}

/** No side effects and cheap: safe to evaluate twice (`a || b` → `a ? a : b`, `x[i] += y`). */
export function isPure(e: Expr): boolean {
  switch (e.k) {
    case "const":
    case "var":
    case "special":
    case "shape":
      return true;
    case "unary":
      return isPure(e.operand);
    case "convert":
    case "truthy":
      return isPure(e.value);
    case "binary":
    case "compare":
    case "logical":
      return isPure(e.left) && isPure(e.right);
    case "select":
      return isPure(e.cond) && isPure(e.then) && isPure(e.else);
    case "index":
      return e.indices.every(isPure);
    default:
      return false;
  }
}

/** Whether a function calls `g.sync()` (the grid barrier) in its own body: its kernel is launched cooperatively. */
export function callsGridSync(fn: { readonly body: readonly Stmt[] }): boolean {
  let found = false;
  forEachRootExpr(fn.body, (e) =>
    visitExpr(e, (x) => {
      if (x.k === "intrinsic" && x.name === "gridSync") found = true;
    }),
  );
  return found;
}

/**
 * Structural equality of side-effect-free expressions: same variables, constants (by Object.is: 0 and
 * -0 differ, NaN equals NaN), operations and types. Array reads count only with `reads` (the caller
 * knows that no write comes between the two: `x[i] = x[i] + y` → `x[i] += y`); calls, atomics and
 * random draws never do.
 */
export function sameExpr(a: Expr, b: Expr, reads = false): boolean {
  if (a.k !== b.k) return false;
  switch (a.k) {
    case "const":
      return Object.is(a.value, (b as IR.ConstExpr).value) && a.type.dtype === (b as IR.ConstExpr).type.dtype;
    case "var":
      return a.v.id === (b as IR.VarExpr).v.id;
    case "special":
      return a.reg === (b as IR.SpecialExpr).reg && a.axis === (b as IR.SpecialExpr).axis;
    case "shape":
      return a.array.v.id === (b as IR.ShapeExpr).array.v.id && a.dim === (b as IR.ShapeExpr).dim;
    case "unary":
      return a.op === (b as IR.UnaryExpr).op && a.type.dtype === (b as IR.UnaryExpr).type.dtype && sameExpr(a.operand, (b as IR.UnaryExpr).operand, reads);
    case "binary":
    case "compare":
    case "logical": {
      const o = b as typeof a;
      return a.op === o.op && a.type.kind === o.type.kind && (a.type as IR.ScalarType).dtype === (o.type as IR.ScalarType).dtype && sameExpr(a.left, o.left, reads) && sameExpr(a.right, o.right, reads);
    }
    case "convert":
    case "truthy": {
      const o = b as typeof a;
      return a.type.dtype === o.type.dtype && sameExpr(a.value, o.value, reads);
    }
    case "select": {
      const o = b as IR.SelectExpr;
      return sameExpr(a.cond, o.cond, reads) && sameExpr(a.then, o.then, reads) && sameExpr(a.else, o.else, reads);
    }
    case "index": {
      const o = b as IR.IndexExpr;
      return reads && a.array.v.id === o.array.v.id && a.indices.length === o.indices.length && a.indices.every((x, i) => sameExpr(x, o.indices[i]!, reads));
    }
    default:
      return false;
  }
}

type Stmts = readonly { readonly k: string }[];

/**
 * Whether any statement of `list` (nested ones included) declares or assigns the variable `v`. It reads
 * the IR's statements and the simulator's normalised ones (js/normalize.ts: a warp operation's `result`,
 * an inlined device function's `fnScope` body) by their kind.
 */
export function assignsVar(list: Stmts, v: Var): boolean {
  return list.some((stmt) => {
    const s = stmt as IR.Stmt | { readonly k: "sync"; readonly result?: Var } | { readonly k: "fnScope"; readonly body: Stmts };
    switch (s.k) {
      case "decl":
        return s.v.id === v.id;
      case "assign":
        return s.target.k === "var" && s.target.v.id === v.id;
      case "sync":
        return s.result?.id === v.id;
      case "if":
        return assignsVar(s.then, v) || (!!s.else && assignsVar(s.else, v));
      case "loop":
        return assignsVar(s.init, v) || assignsVar(s.body, v) || assignsVar(s.update, v);
      case "block":
      case "fnScope":
        return assignsVar(s.body, v);
      default:
        return false;
    }
  });
}
