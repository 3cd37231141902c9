/**
 * Bounds checks proven once per block instead of at every access (the simulator's plain loop kernels).
 *
 * The simulator checks every array access (`i >>> 0 < n || $oob(…)`). In the most common kernels the
 * index is the thread's own position — `a[i]` with `const i = cuda.grid(1)`, or `threadIdx.x` plus a
 * constant — so within one block it takes the consecutive values `first … first + blockDim.x - 1`
 * (plus the access's constant). One comparison per block then proves every such access of the block in
 * range, and the block runs a copy of the body without those checks; a block where the proof fails (the
 * last, partial block of `if (i < n)` kernels) runs the checked body, so out-of-bounds accesses are still
 * reported exactly as before, at the same access and thread.
 *
 * What counts as such an index (an "affine thread index", i32 only):
 *   cuda.grid(1), blockIdx.x * blockDim.x + threadIdx.x (either order)  → base "grid" (block start + tx)
 *   threadIdx.x                                                        → base "tid"  (tx)
 *   v, v + c, c + v, v - c  where v is one of these and c an integer constant
 *   a local whose one declaration initialises it with one of these and that is never assigned again.
 * Only 1-D array parameters of the kernel that are never reassigned are proven: their length is fixed
 * for the launch. The proof also requires that no i32 value on the way wraps around (the block's last
 * index plus the largest constant stays below 2^31), so the JavaScript values equal the i32 ones.
 */
import type * as IR from "../ir/nodes";
import { forEachStmt, forEachRootExpr, visitExpr } from "../ir/visit";

type Base = "grid" | "tid";

interface Affine {
  readonly base: Base;
  readonly offset: number;
}

/** One array parameter's proven accesses for one base: offsets from `min` to `max`. */
export interface ProvenRange {
  readonly param: IR.Var;
  readonly base: Base;
  min: number;
  max: number;
}

export interface InRangePlan {
  /** The accesses (their `indices` lists) whose checks the proven copy of the body leaves out. */
  readonly accesses: ReadonlySet<readonly IR.Expr[]>;
  readonly ranges: readonly ProvenRange[];
  /** The largest constant (at least 0) on the way to any proven index, per base: the no-wrap condition's. */
  readonly largestOffset: ReadonlyMap<Base, number>;
}

/** Offsets this large are left to the per-access checks (they would only make the proof fail). */
const MAX_OFFSET = 1 << 24;

/** The accesses of `fn`'s body (not of the device functions it calls) that one check per block proves in range. */
export function planInRange(fn: IR.IrFunction): InRangePlan | undefined {
  const assigned = new Set<number>(); // var ids
  const decls = new Map<number, number>();
  forEachStmt(fn.body, (s) => {
    if (s.k === "assign" && s.target.k === "var") assigned.add(s.target.v.id);
    if (s.k === "decl") decls.set(s.v.id, (decls.get(s.v.id) ?? 0) + 1);
  });
  const largestOffset = new Map<Base, number>();
  const note = (a: Affine): Affine => {
    largestOffset.set(a.base, Math.max(largestOffset.get(a.base) ?? 0, a.offset));
    return a;
  };
  const affineVars = new Map<number, Affine>(); // by var id
  const affine = (e: IR.Expr): Affine | undefined => {
    if (e.type.kind !== "scalar" || e.type.dtype !== "i32") return undefined;
    switch (e.k) {
      case "special":
        if (e.axis !== "x") return undefined;
        return e.reg === "grid" ? { base: "grid", offset: 0 } : e.reg === "threadIdx" ? { base: "tid", offset: 0 } : undefined;
      case "var":
        return affineVars.get(e.v.id);
      case "binary": {
        if (e.op === "+" && isBlockStart(e.left) && isSpecial(e.right, "threadIdx")) return { base: "grid", offset: 0 };
        if (e.op === "+" && isSpecial(e.left, "threadIdx") && isBlockStart(e.right)) return { base: "grid", offset: 0 };
        const c = (x: IR.Expr) => (x.k === "const" && typeof x.value === "number" && Number.isInteger(x.value) && Math.abs(x.value) <= MAX_OFFSET ? x.value : undefined);
        let shifted: Affine | undefined;
        if (e.op === "+" || e.op === "-") {
          const l = affine(e.left), rc = c(e.right);
          if (l && rc !== undefined) shifted = { base: l.base, offset: l.offset + (e.op === "+" ? rc : -rc) };
          const lc = c(e.left), r = e.op === "+" ? affine(e.right) : undefined;
          if (!shifted && r && lc !== undefined) shifted = { base: r.base, offset: r.offset + lc };
        }
        return shifted && Math.abs(shifted.offset) <= MAX_OFFSET ? note(shifted) : undefined;
      }
      default:
        return undefined;
    }
  };
  // Declarations come before their uses, so one pass in statement order finds locals defined from locals.
  forEachStmt(fn.body, (s) => {
    if (s.k !== "decl" || !s.init || assigned.has(s.v.id) || decls.get(s.v.id) !== 1) return;
    const a = affine(s.init);
    if (a) affineVars.set(s.v.id, note(a));
  });

  const accesses = new Set<readonly IR.Expr[]>();
  const ranges = new Map<string, ProvenRange>();
  const consider = (x: IR.IndexExpr) => {
    const p = x.array.v;
    if (!p.isParam || assigned.has(p.id) || p.type.kind !== "array" || p.type.rank !== 1 || x.indices.length !== 1) return;
    const a = affine(x.indices[0]!);
    if (!a) return;
    accesses.add(x.indices);
    const key = `${p.id}:${a.base}`;
    const r = ranges.get(key);
    if (r) {
      r.min = Math.min(r.min, a.offset);
      r.max = Math.max(r.max, a.offset);
    } else ranges.set(key, { param: p, base: a.base, min: a.offset, max: a.offset });
  };
  forEachRootExpr(fn.body, (root) => visitExpr(root, (e) => e.k === "index" && consider(e)));
  if (accesses.size === 0) return undefined;
  return { accesses, ranges: [...ranges.values()], largestOffset };
}

function isSpecial(e: IR.Expr, reg: IR.SpecialRegister): boolean {
  return e.k === "special" && e.reg === reg && e.axis === "x";
}

/** `blockIdx.x * blockDim.x` in either order. */
function isBlockStart(e: IR.Expr): boolean {
  return e.k === "binary" && e.op === "*" && ((isSpecial(e.left, "blockIdx") && isSpecial(e.right, "blockDim")) || (isSpecial(e.left, "blockDim") && isSpecial(e.right, "blockIdx")));
}

/**
 * The JavaScript condition, evaluated once per block (after `$bx`, `$bdx` are set), under which every
 * planned access is in range and no i32 value on the way wraps. `length(p)` is p's element count.
 */
export function inRangeCondition(plan: InRangePlan, length: (param: IR.Var) => string): string {
  // The first and last thread's base value in this block; the thread-index registers are never negative
  // and the constants are small (MAX_OFFSET), so only the upper end can wrap.
  const first = (b: Base) => (b === "grid" ? "$bx * $bdx" : "0");
  const plus = (x: string, c: number) => (c === 0 ? x : `${x} ${c < 0 ? "-" : "+"} ${Math.abs(c)}`);
  const last = (b: Base, c: number) => plus(`${first(b)} + $bdx`, c - 1);
  const parts: string[] = [];
  for (const [base, max] of plan.largestOffset) parts.push(`${last(base, max)} < 2147483648`);
  for (const r of plan.ranges) {
    // The block's first index is never negative, so only a negative constant can take an access below 0.
    if (r.min < 0) parts.push(`${plus(first(r.base), r.min)} >= 0`);
    parts.push(`${last(r.base, r.max)} < ${length(r.param)}`);
  }
  return parts.join(" && ");
}
