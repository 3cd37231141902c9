/**
 * Reassignable array variables and `?:` between arrays (docs/kernel-language.md#array-variables):
 * Numba's buffer swaps, `let src = a, dst = b; … const t = src; src = dst; dst = t;` and
 * `const src = it % 2 === 0 ? a : b`.
 *
 * Such a variable is lowered to a small integer, its *selector*: which of the arrays it can hold (its
 * candidates, found by lowering the function again until the set stops growing, as `let` widening
 * does) it holds now. An access `src[i]` is the access of the chosen candidate (`sel === 0 ? a[i] :
 * b[i]`; a store is an if/else). No pointer is ever formed, so the generated C++ keeps every
 * `__restrict__` promise and address space (a shared and a global array can alternate too), the
 * simulator's sanitizer sees each real array, and every backend needs nothing new.
 *
 * Candidates are whole arrays (parameters, shared/local/constant arrays) of one dtype and rank; a view
 * or another dtype is CS2030, as is passing such a variable to a device function (call it per branch).
 */
import ts from "typescript";
import { Codes } from "../diagnostics/codes";
import { makeDiagnostic } from "../diagnostics/diagnostic";
import type * as IR from "../ir/nodes";
import { BOOL, I32, typeToString, type ArrayType, type ScalarType } from "../ir/types";
import { stripParensAndNonNull } from "./constants";
import { POISON } from "./lower-base";
import type { LoweringContext } from "./lower-context";

/** An array-valued expression that is one of `candidates` at run time: the one `selector` (i32) names. */
interface Choice {
  readonly candidates: readonly IR.VarExpr[];
  readonly selector: IR.Expr;
}

/** The arrays each array variable (by its declaration) may hold, kept across the lowering passes. */
const candidateKeys = new WeakMap<ts.Node, string[]>();

export class ArrayVarLowerer {
  private readonly choiceOf = new WeakMap<IR.Expr, Choice>();
  /** A variable's candidate set grew in this pass: its earlier uses were lowered with fewer. */
  arrayVarsGrew = false;

  constructor(private readonly ctx: LoweringContext) {}

  private keyOf(v: IR.Var): string {
    return `${v.name}@${v.span.start}`;
  }

  choiceOfExpr(e: IR.Expr): Choice | undefined {
    return this.choiceOf.get(e);
  }

  private choiceExpr(c: Choice, span: IR.Span): IR.Expr {
    const e: IR.VarExpr = { k: "var", type: c.candidates[0]!.type, v: c.candidates[0]!.v, span };
    this.choiceOf.set(e, c);
    return e;
  }

  /** `e` (an array expression) as a choice; undefined (reported) for what a variable cannot hold. */
  private asChoice(e: IR.Expr, node: ts.Node, holder: string): Choice | undefined {
    const c = this.choiceOf.get(e);
    if (c) return c;
    if (POISON.has(e)) return undefined;
    if (e.type.kind !== "array" || e.k !== "var") {
      this.ctx.report(Codes.TypeMismatch, node, `${holder} holds arrays, not ${typeToString(e.type)}`);
      return undefined;
    }
    if (this.ctx.views.viewOfExpr(e) || e.v.type.kind !== "array") {
      this.ctx.report(Codes.InvalidArrayVariable, node, `${holder} can hold whole arrays only, and '${node.getText(this.ctx.sf)}' is a view: name the view with const (const part = …), or keep the whole array in the variable and take the view where it is used`);
      return undefined;
    }
    return { candidates: [e], selector: { k: "const", type: I32, value: 0, span: e.span } };
  }

  /** Every candidate of `c` of `type`'s dtype and rank (CS2030 otherwise). */
  private sameKind(c: Choice, type: ArrayType, node: ts.Node, holder: string): boolean {
    for (const x of c.candidates) {
      const t = x.type as ArrayType;
      if (t.dtype !== type.dtype || t.rank !== type.rank) {
        this.ctx.report(Codes.InvalidArrayVariable, node, `${holder} holds ${describe(type)} arrays, and '${x.v.name}' is ${describe(t)}: use a variable per kind of array`);
        return false;
      }
    }
    return true;
  }

  /** The selector, into the list `keys`, of the array `c` chooses (growing the list with new arrays). */
  private selectorInto(keys: string[], c: Choice, span: IR.Span): IR.Expr {
    const indexOf = (x: IR.VarExpr): number => {
      const k = this.keyOf(x.v);
      let at = keys.indexOf(k);
      if (at < 0) {
        keys.push(k);
        at = keys.length - 1;
        this.arrayVarsGrew = true;
        this.ctx.widened = true; // lower again: the uses before this point saw fewer candidates
      }
      return at;
    };
    const targets = c.candidates.map(indexOf);
    if (targets.every((t, k) => t === k)) return c.selector;
    const constant = (n: number): IR.Expr => ({ k: "const", type: I32, value: n, span });
    let e = constant(targets[targets.length - 1]!);
    for (let k = targets.length - 2; k >= 0; k--) e = { k: "select", type: I32, cond: this.selectorIs(c.selector, k, span), then: constant(targets[k]!), else: e, span };
    return e;
  }

  private selectorIs(selector: IR.Expr, k: number, span: IR.Span): IR.Expr {
    return { k: "compare", type: BOOL, op: "==", operandType: I32, left: selector, right: { k: "const", type: I32, value: k, span }, span };
  }

  /** `f` of the chosen candidate: `sel === 0 ? f(a) : sel === 1 ? f(b) : f(c)` (only the chosen one runs). */
  chooseExpr(c: Choice, f: (array: IR.VarExpr) => IR.Expr, span: IR.Span): IR.Expr {
    const n = c.candidates.length;
    let e = f(c.candidates[n - 1]!);
    for (let k = n - 2; k >= 0; k--) {
      const then = f(c.candidates[k]!);
      e = { k: "select", type: then.type as ScalarType, cond: this.selectorIs(c.selector, k, span), then, else: e, span };
    }
    return e;
  }

  /** The statements `f` of the chosen candidate, as an if/else chain. */
  chooseStmt(c: Choice, f: (array: IR.VarExpr) => IR.Stmt | undefined, span: IR.Span): IR.Stmt | undefined {
    const n = c.candidates.length;
    let s = f(c.candidates[n - 1]!);
    for (let k = n - 2; k >= 0; k--) {
      const then = f(c.candidates[k]!);
      s = { k: "if", cond: this.selectorIs(c.selector, k, span), then: then ? [then] : [], else: s ? [s] : [], span };
    }
    return s;
  }

  // ───────────────────────── declarations and assignments ─────────────────────────

  /**
   * `let src = a` / `const src = flag ? a : b` / `const t = src`: a selector variable. Returns the
   * declaration, or undefined when `value` is not something an array variable holds (the caller goes on).
   */
  declareArrayVariable(d: ts.VariableDeclaration, name: string, value: IR.Expr, isConst: boolean): IR.Stmt[] | undefined {
    const choice = this.choiceOf.get(value);
    // A `const` alias of one array (or a view) stays an alias; `let`, and a choice, need a selector.
    if (isConst && !choice) return undefined;
    const init = d.initializer!;
    const c = this.asChoice(value, init, `'${name}'`);
    if (!c) {
      this.ctx.bind(name, { k: "poison" });
      return [];
    }
    const type = c.candidates[0]!.type as ArrayType;
    if (!this.sameKind(c, type, init, `'${name}'`)) {
      this.ctx.bind(name, { k: "poison" });
      return [];
    }
    let keys = candidateKeys.get(d);
    if (!keys) candidateKeys.set(d, (keys = []));
    const span = this.ctx.span(d);
    const selector = this.selectorInto(keys, c, span);
    const sel = this.ctx.newVar(`${name}$sel`, I32, false, !isConst, d.name);
    this.ctx.bind(name, { k: "var", v: sel, isConstDecl: isConst, arrayVar: { decl: d, type } });
    return [{ k: "decl", span, v: sel, init: selector }];
  }

  /** `src = dst`: the selector takes dst's choice. */
  assignArrayVariable(b: { v: IR.Var; arrayVar: { decl: ts.VariableDeclaration; type: ArrayType } }, name: string, value: IR.Expr, rhsNode: ts.Node, node: ts.Node): IR.Stmt | undefined {
    const c = this.asChoice(value, rhsNode, `'${name}'`);
    if (!c || !this.sameKind(c, b.arrayVar.type, rhsNode, `'${name}'`)) return undefined;
    const keys = candidateKeys.get(b.arrayVar.decl)!;
    const span = this.ctx.span(node);
    return { k: "assign", span, target: { k: "var", type: I32, v: b.v, span: this.ctx.span(node) }, value: this.selectorInto(keys, c, span) };
  }

  /** A name bound to an array variable: a choice among its candidates; `next` lowers any other name. */
  lowerIdentifier(id: ts.Identifier, next: () => IR.Expr): IR.Expr {
    const b = this.ctx.lookup(id.text);
    if (b?.k !== "var" || !b.arrayVar) return next();
    const span = this.ctx.span(id);
    const candidates: IR.VarExpr[] = [];
    for (const key of candidateKeys.get(b.arrayVar.decl) ?? []) {
      const name = key.slice(0, key.lastIndexOf("@"));
      const found = this.ctx.lookup(name);
      if (found?.k !== "var" || found.arrayVar || found.view || this.keyOf(found.v) !== key) {
        this.ctx.report(Codes.InvalidArrayVariable, id, `'${id.text}' may hold '${name}', which is not in scope here: declare '${name}' before '${id.text}' and in a scope that contains its uses`);
        return this.ctx.error(id);
      }
      candidates.push({ k: "var", type: found.v.type, v: found.v, span });
    }
    if (!candidates.length) return this.ctx.error(id);
    return this.choiceExpr({ candidates, selector: { k: "var", type: I32, v: b.v, span } }, span);
  }

  // ───────────────────────── uses ─────────────────────────

  /** `flag ? a : b` between arrays: a choice (both operands are evaluated only as array names). */
  lowerSelect(e: ts.Node, condition: ts.Expression, whenTrue: ts.Expression, whenFalse: ts.Expression, what: string, next: () => IR.Expr): IR.Expr {
    if (!this.namesArray(whenTrue) || !this.namesArray(whenFalse)) return next();
    const cond = this.ctx.conv.lowerCondition(condition);
    const a = this.asChoice(this.ctx.expr.lowerExpr(whenTrue), whenTrue, `${what}`);
    const b = this.asChoice(this.ctx.expr.lowerExpr(whenFalse), whenFalse, `${what}`);
    if (!a || !b) return this.ctx.error(e);
    const type = a.candidates[0]!.type as ArrayType;
    if (!this.sameKind(b, type, whenFalse, `${what} between arrays`)) return this.ctx.error(e);
    const span = this.ctx.span(e);
    const keys: string[] = [];
    const grew = this.arrayVarsGrew, widened = this.ctx.widened;
    const sa = this.selectorInto(keys, a, span), sb = this.selectorInto(keys, b, span);
    // A fresh list: its growth is not a variable's (nothing to lower again).
    this.arrayVarsGrew = grew;
    this.ctx.widened = widened;
    const byKey = new Map([...a.candidates, ...b.candidates].map((x) => [this.keyOf(x.v), x]));
    return this.choiceExpr({ candidates: keys.map((k) => byKey.get(k)!), selector: { k: "select", type: I32, cond, then: sa, else: sb, span } }, span);
  }

  /** Whether `e` is written as an array name, an array variable or a `?:` of those. */
  private namesArray(e: ts.Expression): boolean {
    const x = stripParensAndNonNull(e);
    if (ts.isConditionalExpression(x)) return this.namesArray(x.whenTrue) && this.namesArray(x.whenFalse);
    if (!ts.isIdentifier(x)) return false;
    const b = this.ctx.lookup(x.text);
    return b?.k === "var" && (!!b.arrayVar || b.v.type.kind === "array");
  }

  /** Element read through a choice. */
  lowerElementAccess(e: ts.ElementAccessExpression, next: () => IR.Expr | undefined): IR.Expr | undefined {
    const { base, indexNodes } = this.ctx.expr.splitElementAccess(e);
    if (!this.namesChoice(base)) return next();
    const arr = this.ctx.expr.lowerExpr(base);
    const c = this.choiceOf.get(arr);
    if (!c) return undefined;
    const rank = (arr.type as ArrayType).rank;
    if (indexNodes.length !== rank) {
      this.ctx.report(Codes.InvalidArrayVariable, e, `index '${base.getText(this.ctx.sf)}' fully (${rank} ${rank === 1 ? "index" : "indices"}): rows and views of an array variable are not supported; take them from each array`);
      return undefined;
    }
    const indices = indexNodes.map((n) => this.ctx.expr.lowerIndex(n));
    const span = this.ctx.span(e);
    return this.chooseExpr(c, (a) => ({ k: "index", type: { kind: "scalar", dtype: (a.type as ArrayType).dtype } as ScalarType, array: a, indices, span }), span);
  }

  /** Whether `e` is written as an array variable or a `?:` between arrays. */
  namesChoice(e: ts.Expression): boolean {
    const x = stripParensAndNonNull(e);
    if (ts.isConditionalExpression(x)) return this.namesArray(x);
    if (!ts.isIdentifier(x)) return false;
    const b = this.ctx.lookup(x.text);
    return b?.k === "var" && !!b.arrayVar;
  }

  /**
   * `src[i] = v` (and `+=` …) through an array variable: an if/else chain of stores. undefined when the
   * target is not an array variable's element.
   */
  lowerArrayVariableStore(t: ts.ElementAccessExpression, store: (target: IR.IndexExpr) => IR.Stmt | undefined, node: ts.Node): { stmt: IR.Stmt | undefined } | undefined {
    const base = stripParensAndNonNull(t.expression);
    if (!this.namesChoice(base)) return undefined;
    const arr = this.ctx.expr.lowerExpr(base);
    const c = this.choiceOf.get(arr);
    if (!c) return { stmt: undefined };
    const rank = (arr.type as ArrayType).rank;
    const indexNodes: ts.Expression[] = [t.argumentExpression];
    if (rank !== 1) {
      this.ctx.report(Codes.InvalidArrayVariable, t, `store through '${base.getText(this.ctx.sf)}' with one index per dimension: array variables of ${rank}-D arrays are indexed src[i][j]`);
      return { stmt: undefined };
    }
    const indices = indexNodes.map((n) => this.ctx.expr.lowerIndex(n));
    const span = this.ctx.span(t);
    for (const a of c.candidates)
      if ((a.type as ArrayType).space === "const") this.ctx.report(Codes.WriteToConstMemory, t, `'${base.getText(this.ctx.sf)}' may hold the constant array '${a.v.name}', which is read-only in kernels`);
    return { stmt: this.chooseStmt(c, (a) => store({ k: "index", type: { kind: "scalar", dtype: (a.type as ArrayType).dtype } as ScalarType, array: a, indices, span }), this.ctx.span(node)) };
  }

  lowerPropertyAccess(e: ts.PropertyAccessExpression, next: () => IR.Expr): IR.Expr {
    if (e.name.text === "length" && this.namesChoice(e.expression)) {
      const arr = this.ctx.expr.lowerExpr(e.expression);
      return this.extentThroughChoice(arr, 0, this.ctx.span(e)) ?? this.ctx.error(e);
    }
    if (this.namesChoice(e.expression)) {
      this.ctx.report(Codes.InvalidArrayVariable, e, `'${e.name.text}' of an array variable is not supported: use its elements, .length and .shape[d]`);
      return this.ctx.error(e);
    }
    return next();
  }

  lowerShapeAccess(e: ts.ElementAccessExpression, next: () => IR.Expr | undefined): IR.Expr | undefined {
    const base = stripParensAndNonNull(e.expression);
    if (!ts.isPropertyAccessExpression(base) || base.name.text !== "shape" || !this.namesChoice(base.expression)) return next();
    const arr = this.ctx.expr.lowerExpr(base.expression);
    const rank = (arr.type as ArrayType).rank;
    const d = this.ctx.foldConst(e.argumentExpression);
    if (!d || typeof d.value !== "number" || !Number.isInteger(d.value) || d.value < 0 || d.value >= rank) {
      this.ctx.report(Codes.NotConstant, e.argumentExpression, `index .shape with a constant dimension from 0 to ${rank - 1}`);
      return this.ctx.error(e);
    }
    return this.extentThroughChoice(arr, d.value, this.ctx.span(e)) ?? this.ctx.error(e);
  }

  /** `cuda.atomic.op(src, i, v)` through an array variable. */
  atomicThroughChoice(arr: IR.Expr, make: (array: IR.VarExpr) => IR.Expr, span: IR.Span): IR.Expr | undefined {
    const c = this.choiceOf.get(arr);
    return c ? this.chooseExpr(c, make, span) : undefined;
  }

  /** `src.length` / `src.shape[d]`. */
  extentThroughChoice(arr: IR.Expr, dim: number, span: IR.Span): IR.Expr | undefined {
    const c = this.choiceOf.get(arr);
    return c ? this.chooseExpr(c, (a) => ({ k: "shape", type: I32, array: a, dim, span }), span) : undefined;
  }

  /** A device-function argument that is an array variable: CS2030 (call the function per array); `next` passes any other. */
  arrayArgument(e: IR.Expr, next: () => IR.Expr): IR.Expr {
    const c = this.choiceOf.get(e);
    if (c) {
      this.ctx.diags.add(makeDiagnostic(Codes.InvalidArrayVariable, e.span, `an array variable (or ?: between arrays) cannot be passed to a device function: call the function with each array, in an if/else on the condition that chooses it (if (…) f(${c.candidates[0]!.v.name}); else f(${c.candidates[1]?.v.name ?? "…"}))`));
      return this.ctx.error(this.ctx.decl.nameNode);
    }
    return next();
  }

}

function describe(t: ArrayType): string {
  return t.rank === 1 ? `${t.dtype}` : `${t.rank}-D ${t.dtype}`;
}
