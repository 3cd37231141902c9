/** Walking the kernel IR: the one place that knows which nodes have which children. */
import type { Expr, Stmt } from "./nodes";

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
