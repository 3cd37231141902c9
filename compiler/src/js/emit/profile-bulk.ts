/**
 * Bulk counting for the profiling variant (docs/profiling.md#cost): the accesses and conditions whose
 * lanes and addresses are known for a whole block before it runs are counted once per block (or per
 * piece of a kernel with barriers) by the runtime, instead of by every thread.
 *
 * An access is counted in bulk when
 * - every thread of the block that reaches the code around it executes it exactly once — it sits in
 *   straight-line code: not under a condition (but one `if` whose test is a range of `threadIdx.x`,
 *   below), not after anything that may leave (`return`, `break`, `continue`, `throw`), not in the
 *   operand of `?:`, `&&` or `||` that may be skipped — or exactly `n` times, in a counted loop
 *   (`for (let k = 0; k < 16; k++)` that cannot be left early);
 * - its flat element index is an affine function of the thread index (and of the counted loop's
 *   counter), `c + x·threadIdx.x + y·threadIdx.y + z·threadIdx.z + k·counter`, with `c`, `x`, `y`, `z`, `k`
 *   fixed for the block: integer constants, parameters, launch dimensions, block indices, array extents,
 *   block-uniform variables of a kernel with barriers, through `const` locals.
 * - it is a global load or store of a kernel parameter, or a shared load or store of up to 4 bytes.
 *
 * An `if` at such a place whose test is `threadIdx.x` (affinely: `cuda.grid(1) < n`, `t < s`, …)
 * against a block-fixed bound passes exactly the threads with `lo <= threadIdx.x < hi` of every row:
 * its branches are counted in bulk (`$P.bulk`) and its `then` is straight-line code for those threads.
 *
 * The runtime (runtime/src/profiler/counters.ts `ba`) forms each warp's requests from the affine form:
 * the same requests, lanes and units the per-thread counting gives (a test compares the two reports over
 * the valid corpus). Unsigned differences and conversions that wrap are affine only where fixed for the
 * block; sums and products are taken as exact: an index whose intermediate values overflow 32 bits would
 * be counted at its unwrapped address.
 */
import type * as IR from "../../ir/nodes";
import { DTYPES } from "../../dtypes/table";
import { forEachChild, forEachStmt, visitExpr } from "../../ir/visit";
import { uniformExpr, type Uniformity } from "../uniform";
import { forEachNStmt, type NLoop, type NStmt } from "../normalize";
import type { EmitContext } from "./context";
import type { ArrayInfo } from "./arrays";
import { countedTrips, leavesEarly, type ProfileSites } from "./profile";
import { smallCountedLoop } from "./statements";

/** A term: an integer literal or a JS expression fixed for the block. */
type Term = number | string;

/** `c + x·tx + y·ty + z·tz + k·counter`. */
interface Affine {
  readonly c: Term;
  readonly x: Term;
  readonly y: Term;
  readonly z: Term;
  readonly k: Term;
}

const ZERO: Affine = { c: 0, x: 0, y: 0, z: 0, k: 0 };
const INT_DTYPES = new Set(["i8", "u8", "i16", "u16", "i32", "u32"]);

function add(a: Term, b: Term): Term {
  if (typeof a === "number" && typeof b === "number") return a + b;
  if (a === 0) return b;
  if (b === 0) return a;
  return `(${a} + ${b})`;
}
function mul(a: Term, b: Term): Term {
  if (typeof a === "number" && typeof b === "number") return a * b;
  if (a === 0 || b === 0) return 0;
  if (a === 1) return b;
  if (b === 1) return a;
  return `(${a} * ${b})`;
}
function addA(a: Affine, b: Affine, sign: 1 | -1): Affine {
  const s = (t: Term) => (sign === 1 ? t : mul(-1, t));
  return { c: add(a.c, s(b.c)), x: add(a.x, s(b.x)), y: add(a.y, s(b.y)), z: add(a.z, s(b.z)), k: add(a.k, s(b.k)) };
}
function scaleA(a: Affine, f: Term): Affine {
  return { c: mul(a.c, f), x: mul(a.x, f), y: mul(a.y, f), z: mul(a.z, f), k: mul(a.k, f) };
}
function isUniformA(a: Affine): boolean {
  return a.x === 0 && a.y === 0 && a.z === 0 && a.k === 0;
}
function js(t: Term): string {
  return typeof t === "number" ? String(t) : t;
}

function isIntType(t: IR.Type): boolean {
  return t.kind === "scalar" && INT_DTYPES.has(t.dtype);
}
function isUnsigned(t: IR.Type): boolean {
  return t.kind === "scalar" && t.dtype.startsWith("u");
}
/** Whether converting every integer of `from` to `to` keeps its value. */
function keepsValues(from: IR.Type, to: IR.Type): boolean {
  if (from.kind !== "scalar" || to.kind !== "scalar") return false;
  const a = DTYPES[from.dtype].bytes, b = DTYPES[to.dtype].bytes;
  return isUnsigned(from) === isUnsigned(to) ? b >= a : isUnsigned(from) && b > a;
}

/** The counted loop a region repeats: its counter takes `c0 + step·j` for j < trips. */
interface LoopCtx {
  readonly v: IR.Var;
  readonly c0: number;
  readonly step: number;
  readonly trips: number;
}
/** Where straight-line code runs: the threads with `lo <= threadIdx.x < hi` (JS, fixed for the block). */
interface Region {
  readonly lo: string;
  readonly hi: string;
  readonly loop?: LoopCtx;
  readonly ranged: boolean;
}

/** What the planner knows of a kernel (computed once per kernel). */
interface KernelFacts {
  /** Every variable's declarations and assignments (var id → count), and its one initialiser. */
  readonly decls: Map<number, number>;
  readonly assigns: Set<number>;
  readonly inits: Map<number, IR.Expr>;
  /** A device function may throw: a call may end its thread. */
  readonly callsMayLeave: boolean;
}

/** The bulk counting of one kernel emission. */
export class BulkPlanner {
  private readonly facts: KernelFacts;

  constructor(
    private readonly cx: EmitContext,
    private readonly ps: ProfileSites,
    body: readonly NStmt[],
    /** Block-uniform variables (a kernel with barriers), else none but unassigned parameters. */
    private readonly uni: Uniformity | undefined,
  ) {
    this.facts = kernelFacts(body, cx);
    this.kernelParams = new Set(cx.fn.params);
  }
  private readonly kernelParams: ReadonlySet<IR.Var>;

  /**
   * Plans the statements every thread of the block runs once, in linear order (a kernel without barriers'
   * body, or a piece of one with them): registers the bulk sites (their per-thread counting is then left
   * out) and returns the runtime calls that count them, to run after the threads.
   */
  plan(list: readonly NStmt[]): string[] {
    const calls: string[] = [];
    this.walk(list, { lo: "0", hi: "$bdx", ranged: false }, calls);
    return calls;
  }

  /** Walks straight-line statements; false once something may leave (what follows is not straight). */
  private walk(list: readonly NStmt[], r: Region, calls: string[]): boolean {
    for (const s of list) {
      switch (s.k) {
        case "decl":
          if (!s.init) break;
          if (this.callStops(s.init)) return false;
          this.exprSites(s.init, r, calls);
          break;
        case "arrayDecl":
        case "constArrayDecl":
          break;
        case "assign":
          if (this.callStops(s.value, ...(s.target.k === "index" ? s.target.indices : []))) return false;
          if (s.target.k === "index") {
            for (const i of s.target.indices) this.exprSites(i, r, calls);
            this.access(s.target, "write", r, calls);
          }
          this.exprSites(s.value, r, calls);
          break;
        case "expr":
          if (this.callStops(s.expr)) return false;
          this.exprSites(s.expr, r, calls);
          break;
        case "print":
          if (this.callStops(...s.args)) return false;
          for (const a of s.args) this.exprSites(a, r, calls);
          break;
        case "block":
          if (!this.walk(s.body, r, calls)) return false;
          break;
        case "if": {
          if (this.callStops(s.cond)) return false;
          this.exprSites(s.cond, r, calls);
          const range = !s.else || s.else.length === 0 ? this.rangeBranch(s.cond, "if", r, calls) : undefined;
          // What follows the then-branch is straight only if the branch cannot leave.
          if (range) this.walk(s.then, range, calls);
          if (mayLeave([s])) return false;
          break;
        }
        case "loop": {
          const loop = !r.loop && this.countedLoop(s);
          if (loop) this.walk(s.body, { ...r, loop }, calls);
          if (mayLeave([s])) return false;
          break;
        }
        case "fnScope":
        case "sync":
          // Not in straight-line code of the kinds planned (fnScope: an inlined function with early returns).
          if (mayLeave([s])) return false;
          break;
        default:
          return false; // break, continue, return, raise, fnReturn
      }
    }
    return true;
  }

  /** Whether evaluating these may call a device function that throws (ending the thread). */
  private callStops(...es: IR.Expr[]): boolean {
    if (!this.facts.callsMayLeave) return false;
    let found = false;
    for (const e of es) visitExpr(e, (x) => void (x.k === "call" && (found = true)));
    return found;
  }

  /**
   * A condition evaluated once by every thread of the region whose test is a range of threadIdx.x: its
   * branches counted in bulk, and the region of the threads where it is true; else undefined.
   */
  private rangeBranch(cond: IR.Expr, what: "if" | "?:" | "&&" | "||", r: Region, calls: string[]): Region | undefined {
    if (r.ranged || r.loop) return undefined;
    const range = this.threadRange(cond);
    if (!range) return undefined;
    const site = this.ps.add({ kind: "br", ...spanOf(cond.span), what });
    this.ps.bulkBranches.add(cond.span);
    const lo = `Math.max(0, Math.ceil(${range.lo}))`, hi = `Math.min($bdx, Math.ceil(${range.hi}))`;
    calls.push(`$P.bulk(${site}, ${lo}, ${hi}, $bdx);`);
    return { lo, hi, ranged: true };
  }

  /** The accesses an expression always evaluates (not a skipped operand of ?:, && or ||). */
  private exprSites(e: IR.Expr, r: Region, calls: string[]): void {
    switch (e.k) {
      case "index":
        for (const i of e.indices) this.exprSites(i, r, calls);
        this.access(e, "read", r, calls);
        return;
      case "atomic":
        for (const i of e.indices) this.exprSites(i, r, calls);
        if (e.expected) this.exprSites(e.expected, r, calls);
        this.exprSites(e.value, r, calls);
        this.access(e, "atomic", r, calls);
        return;
      case "select": {
        this.exprSites(e.cond, r, calls);
        const range = this.rangeBranch(e.cond, "?:", r, calls);
        if (range) this.exprSites(e.then, range, calls);
        return;
      }
      case "logical": {
        this.exprSites(e.left, r, calls);
        // A branch only where the right operand is work to skip (values.ts): `&&` evaluates it where the left is true.
        if (e.right.k === "var" || e.right.k === "const") return;
        const range = this.rangeBranch(e.left, e.op, r, calls);
        if (range && e.op === "&&") this.exprSites(e.right, range, calls);
        return;
      }
      default:
        forEachChild(e, (c) => this.exprSites(c, r, calls));
    }
  }

  /**
   * Registers a bulk access: one whose index is affine is counted from its form (`$P.ba`); any other
   * (and every atomic: its contention needs the addresses) outside a counted loop is recorded — each
   * thread stores its element index in the block's buffer, one store instead of a hook — and counted
   * from the buffer (`$P.bt`).
   */
  private access(e: IR.IndexExpr | IR.AtomicExpr, kind: "read" | "write" | "atomic", r: Region, calls: string[]): void {
    if (e.field) return;
    const a = this.cx.arrays.get(e.array.v);
    if (!a || a.record || a.offset) return;
    const bytes = DTYPES[a.dtype].bytes;
    const global = a.space === "global";
    if (global ? !e.array.v.isParam || !/^[A-Za-z_$][\w$]*$/.test(a.data) : a.space !== "shared" || bytes > 4) return;
    const flat = kind === "atomic" ? undefined : this.flatIndex(a, e.indices, r.loop);
    if (!flat && r.loop) return;
    const k = global ? (kind === "read" ? "gld" : kind === "write" ? "gst" : "gatom") : kind === "read" ? "sld" : kind === "write" ? "sst" : "satom";
    const rec = flat ? undefined : this.ps.recorded++;
    const site = this.ps.add({ kind: k, ...spanOf(e.span), bytes, array: a.name, ...(kind === "atomic" ? { op: (e as IR.AtomicExpr).op } : {}), ...(rec !== undefined ? { rec } : {}) });
    this.ps.bulkAccesses.set(e, rec);
    let base = "0";
    if (global) {
      let set = this.ps.bases.get(this.cx);
      if (!set) this.ps.bases.set(this.cx, (set = new Set()));
      set.add(a.data);
      base = `${a.data}$pb`;
    }
    if (!flat) {
      calls.push(`$P.bt(${site}, ${r.lo}, ${r.hi}, ${base}, ${rec});`);
      return;
    }
    // flat = c + x·tx + y·ty + z·tz + k·(c0 + step·j), j < trips: the constant part at j = 0, then the step.
    const loop = r.loop;
    const c = loop ? add(flat.c, mul(flat.k, loop.c0)) : flat.c;
    const kStep = loop ? mul(flat.k, loop.step) : 0;
    calls.push(`$P.ba(${site}, ${r.lo}, ${r.hi}, ${base}, ${js(c)}, ${js(flat.x)}, ${js(flat.y)}, ${js(flat.z)}, ${loop ? loop.trips : 1}, ${js(kStep)});`);
  }

  /** The flat element index as an affine form (the layout memory.ts addr computes), or undefined. */
  private flatIndex(a: ArrayInfo, indices: readonly IR.Expr[], loop: LoopCtx | undefined): Affine | undefined {
    let flat: Affine | undefined;
    for (let d = 0; d < indices.length; d++) {
      const ax = this.affine(indices[d]!, loop, false);
      if (!ax) return undefined;
      if (a.strides) {
        const term = scaleA(ax, a.strides[d] === "1" ? 1 : termOf(a.strides[d]!));
        flat = flat ? addA(flat, term, 1) : term;
      } else flat = flat ? addA(scaleA(flat, termOf(a.dims[d]!)), ax, 1) : ax;
    }
    return flat;
  }

  /** `e` as an affine form of the thread index, or undefined. `inInit`: inside a substituted initialiser. */
  private affine(e: IR.Expr, loop: LoopCtx | undefined, inInit: boolean): Affine | undefined {
    if (!isIntType(e.type)) return undefined;
    switch (e.k) {
      case "const":
        return typeof e.value === "number" && Number.isSafeInteger(e.value) ? { ...ZERO, c: e.value } : undefined;
      case "special":
        if (e.reg === "threadIdx") return { ...ZERO, [e.axis]: 1 };
        if (e.reg === "grid") return { ...ZERO, c: `($b${e.axis} * $bd${e.axis})`, [e.axis]: 1 };
        return this.uniformLeaf(e, inInit);
      case "var": {
        const v = e.v;
        if (loop && v === loop.v) return { ...ZERO, k: 1 };
        const id = v.id;
        if (!this.facts.assigns.has(id) && this.facts.decls.get(id) === 1) {
          const init = this.facts.inits.get(id);
          if (init) return this.affine(init, loop, true);
        }
        return this.uniformLeaf(e, inInit);
      }
      case "binary": {
        // An unsigned difference wraps below 0 (JS emits it so): only where it is fixed for the block.
        if (e.op === "-" && isUnsigned(e.type)) return this.uniformLeaf(e, inInit);
        if (e.op === "+" || e.op === "-") {
          const l = this.affine(e.left, loop, inInit), r = l && this.affine(e.right, loop, inInit);
          return l && r ? addA(l, r, e.op === "+" ? 1 : -1) : undefined;
        }
        if (e.op === "*") {
          const l = this.affine(e.left, loop, inInit), r = l && this.affine(e.right, loop, inInit);
          if (!l || !r) return undefined;
          if (isUniformA(r)) return scaleA(l, r.c);
          if (isUniformA(l)) return scaleA(r, l.c);
          return undefined;
        }
        if (e.op === "<<" && e.right.k === "const" && typeof e.right.value === "number" && e.right.value >= 0 && e.right.value < 31) {
          const l = this.affine(e.left, loop, inInit);
          return l && scaleA(l, 2 ** e.right.value);
        }
        return this.uniformLeaf(e, inInit);
      }
      case "convert":
        // A conversion that keeps every value (a widening of the same signedness, or unsigned to a wider
        // signed type); any other wraps some values: only where it is fixed for the block.
        return isIntType(e.value.type) && keepsValues(e.value.type, e.type) ? this.affine(e.value, loop, inInit) : this.uniformLeaf(e, inInit);
      case "intrinsic":
        // A view's element: offset + j (ir/nodes.ts ViewFunction).
        if (e.name === "viewIndex") {
          const j = this.affine(e.args[0]!, loop, inInit), off = j && this.affine(e.args[2]!, loop, inInit);
          return j && off ? addA(j, off, 1) : undefined;
        }
        return undefined;
      default:
        return this.uniformLeaf(e, inInit);
    }
  }

  /**
   * A block-fixed integer expression as JS (its value at the bulk call is its value in the threads):
   * constants, launch dimensions, block indices, extents, unassigned parameters, the block-uniform
   * variables of a kernel with barriers (not inside an initialiser: such a variable may have changed
   * between the declaration and the access).
   */
  private uniformLeaf(e: IR.Expr, inInit: boolean): Affine | undefined {
    let ok = true;
    visitExpr(e, (x) => {
      if (!ok) return;
      if (!isIntType(x.type)) ok = false;
      // The kernel's own parameters (an inlined device function's are per-thread values).
      else if (x.k === "var") ok = this.kernelParams.has(x.v) ? !this.facts.assigns.has(x.v.id) : !!this.uni?.uniformVars.has(x.v) && !(inInit && x.v.mutable);
      else if (x.k === "special") ok = x.reg === "blockIdx" || x.reg === "blockDim" || x.reg === "gridDim" || x.reg === "warpsize" || x.reg === "gridsize";
      else if (x.k === "shape") ok = x.array.v.isParam || this.cx.arrays.get(x.array.v)?.space === "shared";
      else if (x.k !== "const" && x.k !== "binary" && x.k !== "unary" && x.k !== "convert") ok = false;
    });
    if (!ok || !uniformExpr(e, this.uni?.uniformVars ?? this.kernelParams)) return undefined;
    const saved = this.cx.seg;
    this.cx.seg = undefined;
    const code = this.cx.emit.ex(e);
    this.cx.seg = saved;
    return { ...ZERO, c: /^-?\d+$/.test(code) ? Number(code) : `(${code})` };
  }

  /** `if (<tx> op U)`: the threads that pass, as lo <= threadIdx.x < hi (JS), or undefined. */
  private threadRange(cond: IR.Expr): { lo: string; hi: string } | undefined {
    if (cond.k !== "compare" || !isIntType(cond.left.type) || !isIntType(cond.right.type)) return undefined;
    const l = this.affine(cond.left, undefined, false), r = l && this.affine(cond.right, undefined, false);
    if (!l || !r) return undefined;
    // (l − r) op 0 with l − r = d + a·tx: only a = ±1 and no other thread dependence.
    const diff = addA(l, r, -1);
    if (diff.y !== 0 || diff.z !== 0 || diff.k !== 0 || (diff.x !== 1 && diff.x !== -1)) return undefined;
    let op = cond.op;
    // tx op' −d (a = 1), or for a = −1: −tx op −d ⇔ tx op⁻¹ d.
    let bound: string;
    if (diff.x === 1) bound = `-(${js(diff.c)})`;
    else {
      bound = `(${js(diff.c)})`;
      op = op === "<" ? ">" : op === ">" ? "<" : op === "<=" ? ">=" : op === ">=" ? "<=" : op;
    }
    switch (op) {
      case "<":
        return { lo: "0", hi: bound };
      case "<=":
        return { lo: "0", hi: `${bound} + 1` };
      case "==":
        return { lo: bound, hi: `${bound} + 1` };
      case ">":
        return { lo: `${bound} + 1`, hi: "$bdx" };
      case ">=":
        return { lo: bound, hi: "$bdx" };
      default:
        return undefined;
    }
  }

  /** A counted loop that cannot be left early, with its counter's values, or undefined. */
  private countedLoop(s: NLoop): LoopCtx | undefined {
    if (!smallCountedLoop(s) || leavesEarly(s.body) || mayLeave(s.body)) return undefined;
    const trips = countedTrips(s);
    const init = s.init[0];
    if (trips === undefined || init?.k !== "decl" || init.init?.k !== "const") return undefined;
    const upd = s.update[0];
    if (upd?.k !== "assign" || upd.value.k !== "binary" || upd.value.right.k !== "const") return undefined;
    const step = (upd.value.op === "+" ? 1 : -1) * Number(upd.value.right.value);
    return { v: init.v, c0: Number(init.init.value), step, trips };
  }
}

function termOf(x: string): Term {
  return /^\d+$/.test(x) ? Number(x) : `(${x})`;
}

function spanOf(span: IR.Span) {
  return { file: span.file, line: span.line, col: span.col, start: span.start, end: span.end };
}

/** Whether any statement in `list` may leave code around it (a return, break, continue, throw, early return of an inlined function). */
export function mayLeave(list: readonly NStmt[]): boolean {
  let leaves = false;
  forEachNStmt(list, (s) => {
    if (s.k === "break" || s.k === "continue" || s.k === "return" || s.k === "raise" || s.k === "fnReturn") leaves = true;
  });
  return leaves;
}

function kernelFacts(body: readonly NStmt[], cx: EmitContext): KernelFacts {
  const decls = new Map<number, number>(), assigns = new Set<number>(), inits = new Map<number, IR.Expr>();
  forEachNStmt(body, (s) => {
    if (s.k === "decl") {
      decls.set(s.v.id, (decls.get(s.v.id) ?? 0) + 1);
      if (s.init) inits.set(s.v.id, s.init);
    } else if (s.k === "assign" && s.target.k === "var") assigns.add(s.target.v.id);
    else if (s.k === "sync" && s.result) assigns.add(s.result.id);
  });
  // A declaration without an initialiser is an assignment later.
  for (const id of decls.keys()) if (!inits.has(id)) assigns.add(id);
  let callsMayLeave = false;
  for (const f of cx.me.module.deviceFunctions) forEachStmt(f.body, (s) => void (s.k === "raise" && (callsMayLeave = true)));
  return { decls, assigns, inits, callsMayLeave };
}
