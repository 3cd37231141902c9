/**
 * CS5001: a barrier (`syncthreads` and friends) that not every thread of the block may reach — inside
 * a branch or loop whose condition depends on the thread, or after a thread-dependent early return.
 * On a GPU that hangs or corrupts shared memory; Numba and CUDA C++ say nothing about it.
 *
 * A value is thread-dependent when it derives from threadIdx, laneid, grid(), atomics, shuffles, local
 * memory, or an array element read at a thread-dependent index; variables assigned under a
 * thread-dependent condition are thread-dependent too (control dependence). Block-uniform values
 * (blockIdx, blockDim, gridDim, syncthreadsCount…) are not.
 *
 * CS5007 is the same analysis one level up, for `g.sync()` (the grid barrier): every thread of the GRID
 * must reach it, so a condition on blockIdx (or on shared memory, which each block has its own copy of)
 * diverges too (`checkDivergentGridSync`).
 */
import { Codes } from "../diagnostics/codes";
import { makeDiagnostic, type Diagnostic } from "../diagnostics/diagnostic";
import type * as IR from "../ir/nodes";
import { forEachChild, forEachRootExpr, visitExpr } from "../ir/visit";
import { BARRIER_INTRINSICS, GRID_INTRINSICS, LANE_DEPENDENT_INTRINSICS } from "../intrinsics";


export interface DivergenceFacts {
  /** Device functions (by id) that contain a barrier, directly or through calls. */
  readonly barrierFunctions: ReadonlySet<string>;
  /** Device functions whose result may differ between threads given uniform arguments. */
  readonly threadDependentFunctions: ReadonlySet<string>;
  /** "grid": the grid barrier's analysis (CS5007), where block-dependent values diverge too. */
  readonly level?: "block" | "grid";
}

export function checkDivergentBarriers(fn: IR.IrFunction, facts: DivergenceFacts): Diagnostic[] {
  const tainted = new Set<number>();
  // Fixed point: taint flows through assignments and control dependence.
  for (let i = 0; i < 8; i++) {
    const before = tainted.size;
    walk(fn.body, false, tainted, facts, undefined);
    if (tainted.size === before) break;
  }
  const out: Diagnostic[] = [];
  walk(fn.body, false, tainted, facts, out);
  return out;
}

/** CS5007: `g.sync()` that not every thread of the grid may reach (thread- or block-dependent control flow). */
export function checkDivergentGridSync(fn: IR.IrFunction, facts: DivergenceFacts): Diagnostic[] {
  return checkDivergentBarriers(fn, { ...facts, level: "grid" });
}

/** Returns true when the statements may end early (return/break/continue) under a thread-dependent condition. */
function walk(stmts: readonly IR.Stmt[], divergent: boolean, tainted: Set<number>, facts: DivergenceFacts, out: Diagnostic[] | undefined): boolean {
  let div = divergent;
  for (const s of stmts) {
    switch (s.k) {
      case "decl":
        if (s.init) {
          reportBarriersIn(s.init, div, facts, out, tainted);
          if (div || dependent(s.init, tainted, facts)) tainted.add(s.v.id);
        }
        break;
      case "arrayDecl":
      case "constArrayDecl":
        break;
      case "assign":
        reportBarriersIn(s.value, div, facts, out, tainted);
        if (s.target.k === "var" && (div || dependent(s.value, tainted, facts))) tainted.add(s.target.v.id);
        break;
      case "expr":
        reportBarriersIn(s.expr, div, facts, out, tainted);
        break;
      case "print":
      case "raise":
        break;
      case "if": {
        const d = div || dependent(s.cond, tainted, facts);
        reportBarriersIn(s.cond, div, facts, out, tainted);
        const a = walk(s.then, d, tainted, facts, out);
        const b = s.else ? walk(s.else, d, tainted, facts, out) : false;
        if (d && (a || b || exits(s.then) || (s.else ? exits(s.else) : false))) div = true;
        break;
      }
      case "loop": {
        walk(s.init, div, tainted, facts, out);
        const d = div || (s.cond ? dependent(s.cond, tainted, facts) : false) || loopExitsDependently(s.body, tainted, facts);
        if (s.cond) reportBarriersIn(s.cond, d, facts, out, tainted);
        walk(s.body, d, tainted, facts, out);
        walk(s.update, d, tainted, facts, out);
        break;
      }
      case "block":
        if (walk(s.body, div, tainted, facts, out)) div = true;
        break;
      case "return":
        if (s.value) reportBarriersIn(s.value, div, facts, out, tainted);
        if (divergent) return true;
        break;
      case "break":
      case "continue":
        if (divergent) return true;
        break;
    }
  }
  return div && !divergent;
}

function exits(stmts: readonly IR.Stmt[]): boolean {
  return stmts.some((s) => s.k === "return" || s.k === "raise" || s.k === "break" || s.k === "continue" || (s.k === "block" && exits(s.body)) || (s.k === "if" && (exits(s.then) || (s.else ? exits(s.else) : false))));
}

function loopExitsDependently(body: readonly IR.Stmt[], tainted: Set<number>, facts: DivergenceFacts): boolean {
  for (const s of body) {
    if (s.k === "if" && dependent(s.cond, tainted, facts) && (exits(s.then) || (s.else ? exits(s.else) : false))) return true;
    if (s.k === "block" && loopExitsDependently(s.body, tainted, facts)) return true;
  }
  return false;
}

function reportBarriersIn(e: IR.Expr, divergent: boolean, facts: DivergenceFacts, out: Diagnostic[] | undefined, tainted?: Set<number>): void {
  if (!out) return;
  if (!divergent) {
    // Conditional evaluation inside the expression: `c ? syncthreadsCount(p) : 0`, `a && f()`.
    if (!tainted) return;
    const inner = (x: IR.Expr): void => {
      if (x.k === "select") {
        inner(x.cond);
        const d = dependent(x.cond, tainted, facts);
        reportBarriersIn(x.then, d, facts, out, tainted);
        reportBarriersIn(x.else, d, facts, out, tainted);
      } else if (x.k === "logical") {
        inner(x.left);
        reportBarriersIn(x.right, dependent(x.left, tainted, facts), facts, out, tainted);
      } else forEachChild(x, inner);
    };
    inner(e);
    return;
  }
  visitExpr(e, (x) => {
    if (facts.level === "grid") {
      if (x.k === "intrinsic" && GRID_INTRINSICS.has(x.name))
        out.push(
          makeDiagnostic(
            Codes.DivergentGridSync,
            x.span,
            "g.sync() may not be reached by every thread of the grid (it is under a condition that depends on the thread or block index or on shared memory, or after such a return): on a GPU the threads that reach it wait forever. Call g.sync() unconditionally at the kernel's top level (or in a loop every thread runs the same number of times), and put the condition around the work instead",
          ),
        );
      return;
    }
    if (x.k === "intrinsic" && BARRIER_INTRINSICS.has(x.name))
      out.push(
        makeDiagnostic(
          Codes.DivergentBarrier,
          x.span,
          `cuda.${x.name}() may not be reached by every thread of the block (it is under a condition that depends on the thread index, or after a thread-dependent return): on a GPU this hangs or corrupts shared memory. Move the barrier out of the branch, e.g. compute under the condition and call cuda.${x.name}() after it for all threads`,
        ),
      );
    else if (x.k === "call" && facts.barrierFunctions.has(x.fn))
      out.push(makeDiagnostic(Codes.DivergentBarrier, x.span, `this device function calls cuda.syncthreads(), but not every thread of the block may reach this call: call it from all threads`));
  });
}



function dependent(e: IR.Expr, tainted: Set<number>, facts: DivergenceFacts): boolean {
  let dep = false;
  visitExpr(e, (x) => {
    if (dep) return;
    switch (x.k) {
      case "special":
        if (x.reg === "threadIdx" || x.reg === "laneid" || x.reg === "grid") dep = true;
        // Each block has its own blockIdx: uniform in a block, divergent across the grid.
        if (facts.level === "grid" && x.reg === "blockIdx") dep = true;
        break;
      case "var":
        if (tainted.has(x.v.id)) dep = true;
        break;
      case "index":
        if (x.array.type.kind === "array" && x.array.type.space === "local") dep = true;
        // Each block has its own shared memory.
        if (facts.level === "grid" && x.array.type.kind === "array" && x.array.type.space === "shared") dep = true;
        break;
      case "atomic":
      case "random": // each thread's draw advances a state: its value differs between threads
        dep = true;
        break;
      case "intrinsic":
        if (LANE_DEPENDENT_INTRINSICS.has(x.name)) dep = true;
        break;
      case "call":
        if (facts.threadDependentFunctions.has(x.fn)) dep = true;
        break;
      default:
        break;
    }
  });
  return dep;
}

/** Whether a function's body reads thread-dependent state at all (for `threadDependentFunctions`). */
export function readsThreadState(fn: IR.IrFunction, known: ReadonlySet<string>): boolean {
  let dep = false;
  const facts: DivergenceFacts = { barrierFunctions: new Set(), threadDependentFunctions: known };
  const check = (e: IR.Expr) => {
    if (!dep && dependent(e, new Set(), facts)) dep = true;
  };
  forEachRootExpr(fn.body, check);
  return dep;
}

export function containsBarrier(fn: IR.IrFunction, known: ReadonlySet<string>): boolean {
  let found = false;
  forEachRootExpr(fn.body, (e) =>
    visitExpr(e, (x) => {
      if ((x.k === "intrinsic" && BARRIER_INTRINSICS.has(x.name)) || (x.k === "call" && known.has(x.fn))) found = true;
    }),
  );
  return found;
}

