/**
 * One flat loop over the grid for plain 1-D kernels (the simulator's fastest path).
 *
 * A plain kernel runs as blocks × threads: per block a header (block indices, the values device
 * functions read), then a loop over the block's threads computing `i = blockIdx.x * blockDim.x +
 * threadIdx.x`. When the launch is 1-D (grid and block), the blocks' threads are consecutive grid
 * indices, and a kernel that sees only its grid index — not `threadIdx`, `blockIdx` or a device
 * function that could — is the same as one loop over `g = first … last` with `cuda.grid(1)` read as
 * `g`. V8 optimises that loop much as it does a hand-written one (it knows the range of `g`).
 *
 * The flat loop runs the blocks whose bounds checks one test proves (in-range.ts: a range of blocks,
 * as every part of that test is monotonic in the block index); the others (the last, partial block of
 * an `if (i < n)` kernel) run the ordinary way, so faults are still reported at the same access and
 * thread. When the body is `if (i < X) …` after declarations without effects, the loop stops at `X`:
 * the threads past it would do nothing.
 */
import type * as IR from "../ir/nodes";
import { forEachStmt, forEachRootExpr, visitExpr } from "../ir/visit";

export interface FlatGridPlan {
  /** The uniform bound `X` of a body that is `if (grid < X) …`: the loop stops there. */
  readonly narrow?: IR.Expr;
  /**
   * The statements each grid index runs: with `narrow`, the declarations and then the `if`'s branch
   * without its test, which the loop's bound already makes true (in V8 a BigInt64Array loop with the
   * test left in ran ~25% slower).
   */
  readonly body: readonly IR.Stmt[];
}

/** Whether `fn` (a kernel without barriers) can run as one flat loop over its 1-D grid, and how. */
export function planFlatGrid(fn: IR.IrFunction): FlatGridPlan | undefined {
  let ok = true;
  forEachRootExpr(fn.body, (root) =>
    visitExpr(root, (e) => {
      if (e.k === "call") ok = false; // a device function reads the block and thread through its own copies
      if (e.k === "special" && !(e.reg === "grid" ? e.axis === "x" : e.reg === "gridsize" || e.reg === "blockDim" || e.reg === "gridDim" || e.reg === "warpsize")) ok = false;
      if (e.k === "intrinsic" && e.name === "lanemaskLt") ok = false; // reads the lane, which the grid index does not give
    }),
  );
  if (!ok) return undefined;
  const narrow = narrowBound(fn);
  if (!narrow) return { body: fn.body };
  const test = fn.body[fn.body.length - 1] as IR.IfStmt;
  return { narrow, body: [...fn.body.slice(0, -1), ...test.then] };
}

/** `X` when the body is `decl…; if (<grid index> < X) { … }` with X fixed for the launch. */
function narrowBound(fn: IR.IrFunction): IR.Expr | undefined {
  const assigned = new Set<number>();
  forEachStmt(fn.body, (s) => {
    if (s.k === "assign" && s.target.k === "var") assigned.add(s.target.v.id);
  });
  const gridVars = new Set<number>();
  const isGrid = (e: IR.Expr): boolean => (e.k === "special" && e.reg === "grid" && e.axis === "x") || (e.k === "var" && gridVars.has(e.v.id));
  const body = fn.body;
  for (let i = 0; i < body.length - 1; i++) {
    const s = body[i]!;
    if (s.k !== "decl" || (s.init && !withoutEffects(s.init))) return undefined;
    if (s.init && isGrid(s.init) && !assigned.has(s.v.id)) gridVars.add(s.v.id);
  }
  const last = body[body.length - 1];
  if (!last || last.k !== "if" || (last.else && last.else.length > 0)) return undefined;
  const c = last.cond;
  if (c.k !== "compare" || c.op !== "<" || !isGrid(c.left)) return undefined;
  const x = c.right;
  // The grid index is an i32, so X is one too (a wider or unsigned bound converts the left side).
  const fixed =
    (x.k === "const" && typeof x.value === "number") ||
    (x.k === "shape" && x.array.v.isParam && !assigned.has(x.array.v.id)) ||
    (x.k === "var" && x.v.isParam && !assigned.has(x.v.id) && x.type.kind === "scalar" && x.type.dtype === "i32");
  return fixed ? x : undefined;
}

/** An expression that only computes (no memory access, call or atomic): skipping it changes nothing. */
function withoutEffects(e: IR.Expr): boolean {
  let ok = true;
  visitExpr(e, (x) => {
    if (!(x.k === "special" || x.k === "const" || x.k === "var" || x.k === "binary" || x.k === "unary" || x.k === "compare" || x.k === "convert" || x.k === "shape")) ok = false;
  });
  return ok;
}
