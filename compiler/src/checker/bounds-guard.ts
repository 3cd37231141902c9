/**
 * CS5005: a global array indexed by a thread index (`cuda.grid(1)`, threadIdx, or a variable computed
 * from them) with no comparison of that index anywhere on the path — no enclosing `if (i < n)`, no
 * earlier `if (i >= n) return`, no `i < n ? … : …`. Grids are rounded up to whole blocks, so the last
 * block's extra threads run past the end of the array: the classic missing bounds guard.
 *
 * The rule is deliberately simple: any comparison of a thread-derived value on the path counts as a
 * guard (the checker cannot know the launch size, and `if (t < valid)` may well guard `x[i]`), so it
 * fires on code that does not guard at all, and never on code that guards in its own way.
 */
import { Codes } from "../diagnostics/codes";
import { makeDiagnostic, type Diagnostic } from "../diagnostics/diagnostic";
import type * as IR from "../ir/nodes";
import { forEachChild, visitExpr } from "../ir/visit";

/** `textOf` gives the source text of a span, for the guard the fix inserts (`if (base + t < out.length)`). */
export function checkBoundsGuards(fn: IR.IrFunction, textOf?: (span: IR.Span) => string): Diagnostic[] {
  if (fn.kind !== "kernel") return [];
  const threadVars = threadIndexVars(fn.body);
  const guardFlags = boolGuards(fn.body, threadVars);
  /** GUARDED in the set: some thread-derived value was compared on the path. */
  const comparedVars = (cond: IR.Expr): Set<number> => {
    let guards = false;
    visitExpr(cond, (x) => {
      if (x.k === "compare") visitExpr(x, (y) => ((y.k === "var" && threadVars.has(y.v.id)) || (y.k === "special" && y.reg !== "blockIdx")) && (guards = true));
      if (x.k === "var" && guardFlags.has(x.v.id)) guards = true;
    });
    return guards ? new Set([GUARDED]) : new Set();
  };
  const out: Diagnostic[] = [];
  const reported = new Set<number>();

  const checkExpr = (e: IR.Expr, guarded: ReadonlySet<number>): void => {
    switch (e.k) {
      case "select": {
        checkExpr(e.cond, guarded);
        const g = withVars(guarded, comparedVars(e.cond));
        checkExpr(e.then, g);
        checkExpr(e.else, g);
        return;
      }
      case "logical": {
        checkExpr(e.left, guarded);
        checkExpr(e.right, e.op === "&&" ? withVars(guarded, comparedVars(e.left)) : guarded);
        return;
      }
      case "intrinsic":
        // min/max clamp an index: treat their operands as guarded.
        if (e.name === "min" || e.name === "max") return;
        e.args.forEach((a) => checkExpr(a, guarded));
        return;
      case "index": {
        e.indices.forEach((i) => checkExpr(i, guarded));
        const at = e.array.type;
        if (at.kind !== "array" || at.space !== "global" || at.rank !== 1) return;
        const idx = e.indices[0]!;
        const unguarded = threadRoot(idx, threadVars, guarded);
        if (unguarded && !reported.has(e.span.line)) {
          reported.add(e.span.line); // one per line: the guard fixes every access on it
          const arr = e.array.v.name;
          const index = textOf?.(idx.span).trim() || unguarded;
          const guard = /^[\w.$]+$/.test(index) ? index : `(${index})`;
          out.push(
            makeDiagnostic(
              Codes.UnguardedIndex,
              e.span,
              `threads whose index ${index} is ≥ ${arr}.length would access past the end of '${arr}' (the last block usually has extra threads): guard it with if (${guard} < ${arr}.length)`,
              { fix: { kind: "addBoundsGuard", indexText: index, arrayText: arr } },
            ),
          );
        }
        return;
      }
      default:
        forEachChild(e, (c) => checkExpr(c, guarded));
    }
  };

  /** Returns whether the statements always leave (return) — for early-return guards. */
  const walk = (stmts: readonly IR.Stmt[], guarded0: ReadonlySet<number>): void => {
    let guarded = guarded0;
    for (const s of stmts) {
      switch (s.k) {
        case "decl":
          if (s.init) checkExpr(s.init, guarded);
          break;
        case "assign":
          if (s.target.k === "index") checkExpr(s.target, guarded);
          checkExpr(s.value, guarded);
          break;
        case "expr":
          checkExpr(s.expr, guarded);
          break;
        case "print":
          s.args.forEach((a) => checkExpr(a, guarded));
          break;
        case "return":
          if (s.value) checkExpr(s.value, guarded);
          break;
        case "if": {
          checkExpr(s.cond, guarded);
          const g = withVars(guarded, comparedVars(s.cond));
          walk(s.then, g);
          if (s.else) walk(s.else, g);
          if (leaves(s.then) || (s.else && leaves(s.else))) guarded = g;
          break;
        }
        case "loop": {
          walk(s.init, guarded);
          const g = s.cond ? withVars(guarded, comparedVars(s.cond)) : guarded;
          if (s.cond) checkExpr(s.cond, guarded);
          walk(s.body, g);
          walk(s.update, g);
          break;
        }
        case "block":
          walk(s.body, guarded);
          break;
        default:
          break;
      }
    }
  };
  walk(fn.body, new Set());
  return out;
}

function leaves(stmts: readonly IR.Stmt[]): boolean {
  return stmts.some((s) => s.k === "return" || s.k === "break" || s.k === "continue" || (s.k === "block" && leaves(s.body)));
}

function withVars(set: ReadonlySet<number>, more: Set<number>): ReadonlySet<number> {
  if (more.size === 0) return set;
  const out = new Set(set);
  more.forEach((v) => out.add(v));
  return out;
}

const GUARDED = -1;

/** Bool locals that hold a comparison of a thread-derived value (`const inRange = i < n`). */
function boolGuards(body: readonly IR.Stmt[], threadVars: Map<number, string>): Set<number> {
  const out = new Set<number>();
  const visit = (stmts: readonly IR.Stmt[]) => {
    for (const s of stmts) {
      if (s.k === "decl" && s.init && s.v.type.kind === "scalar" && s.v.type.dtype === "bool") {
        let g = false;
        visitExpr(s.init, (x) => {
          if (x.k === "compare") visitExpr(x, (y) => ((y.k === "var" && threadVars.has(y.v.id)) || (y.k === "special" && y.reg !== "blockIdx")) && (g = true));
        });
        if (g) out.add(s.v.id);
      } else if (s.k === "if") {
        visit(s.then);
        if (s.else) visit(s.else);
      } else if (s.k === "loop") visit(s.body);
      else if (s.k === "block") visit(s.body);
    }
  };
  visit(body);
  return out;
}

/** Locals computed from the thread's position (grid(), threadIdx, laneid), transitively. */
function threadIndexVars(body: readonly IR.Stmt[]): Map<number, string> {
  const vars = new Map<number, string>();
  const fromThread = (e: IR.Expr): boolean => {
    let dep = false;
    visitExpr(e, (x) => {
      if ((x.k === "special" && (x.reg === "grid" || x.reg === "threadIdx")) || (x.k === "var" && vars.has(x.v.id))) dep = true;
    });
    return dep;
  };
  let changed = true;
  while (changed) {
    changed = false;
    const visit = (stmts: readonly IR.Stmt[]) => {
      for (const s of stmts) {
        if (s.k === "decl" && s.init && !vars.has(s.v.id) && fromThread(s.init)) {
          vars.set(s.v.id, s.v.name);
          changed = true;
        } else if (s.k === "if") {
          visit(s.then);
          if (s.else) visit(s.else);
        } else if (s.k === "loop") {
          visit(s.init);
          visit(s.body);
        } else if (s.k === "block") visit(s.body);
      }
    };
    visit(body);
  }
  return vars;
}

/** The name of an unguarded thread-index variable used in `idx`, if any. */
function threadRoot(idx: IR.Expr, threadVars: Map<number, string>, guarded: ReadonlySet<number>): string | undefined {
  let found: string | undefined;
  let clamped = false;
  visitExpr(idx, (x) => {
    if (x.k === "intrinsic" && (x.name === "min" || x.name === "max")) clamped = true;
    if (x.k === "binary" && (x.op === "%" || x.op === "&")) clamped = true; // wrapped into range
    if (x.k === "var" && threadVars.has(x.v.id) && !guarded.has(GUARDED) && !found) found = x.v.name;
  });
  return clamped ? undefined : found;
}

