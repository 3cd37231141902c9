/**
 * CS5005: a global array indexed by a thread index (`cuda.grid(1)`, threadIdx, or a variable computed
 * from them) where the index may run past the end of the array. Grids are rounded up to whole blocks,
 * so the last block's extra threads run past the end unless something bounds the index.
 *
 * The rule warns only where it can tell (docs/diagnostics.md#cs5005):
 *  - nothing on the path compares the index (no `if (i < n)`, no earlier `if (i >= n) return`, no
 *    `i < n ? … : …`, no loop condition, no device function called on it) and no launch in the file
 *    shows that the grid has no more threads than the array has elements: the classic missing guard;
 *  - the index is `i + c` and every guard on `i` it can read bounds `i` by the length of this array
 *    (or of an array of the same element type, as element-wise kernels have) with less than `c` to
 *    spare: `if (i < out.length) out[i] = x[i + 1]`, `if (i <= x.length) out[i] = …`.
 * Guards it cannot read (`if (t < valid)`, a bound that is a scalar such as `n`, a device function with
 * statements) count as guards. Device functions whose body is one expression are seen through:
 * `if (inBounds(i, n))` with `inBounds = (i, n) => i < n` is the guard `i < n`.
 */
import { Codes } from "../diagnostics/codes";
import { makeDiagnostic, type Diagnostic } from "../diagnostics/diagnostic";
import type * as IR from "../ir/nodes";
import { forEachChild, visitExpr } from "../ir/visit";
import { POISON } from "../frontend/lower-base";

/** One launch of the kernel in the checked file (from launch-sites.ts). */
export interface GuardLaunch {
  /** grid × block threads when both are constants. */
  readonly totalThreads?: number;
  /** Per argument: the array's element count when the launch site shows it (`new Float32Array(N)`). */
  readonly argLengths?: readonly (number | undefined)[];
}

export interface BoundsGuardContext {
  /** The source text of a span, for messages and the guard the fix inserts (`if (base + t < out.length)`). */
  readonly textOf?: (span: IR.Span) => string;
  /** Device functions by id, to see through guards written as calls. */
  readonly deviceFunction?: (id: string) => IR.IrFunction | undefined;
  /** The kernel's launches in the checked file. */
  readonly launches?: readonly GuardLaunch[];
}

/** On the path: `key < bound - slack` (key names a thread index: a variable or a register). */
interface Fact {
  readonly key: string;
  readonly bound: IR.Expr;
  readonly slack: number;
  readonly guard: IR.Expr;
}

interface Guards {
  readonly facts: readonly Fact[];
  /** Some thread-derived value was compared on the path (the old, lenient notion of a guard). */
  readonly compared: boolean;
  /** A comparison the rule cannot read: it may bound any index. */
  readonly opaque: boolean;
}

const NONE: Guards = { facts: [], compared: false, opaque: false };

export function checkBoundsGuards(fn: IR.IrFunction, ctx: BoundsGuardContext = {}): Diagnostic[] {
  if (fn.kind !== "kernel") return [];
  const threadVars = derivedVars(fn.body, (x) => x.reg === "grid" || x.reg === "threadIdx");
  // The block's own position: an index from threadIdx alone stays within the block (blockDim, chosen by
  // the host to fit); only indices that also depend on the block run past the end in the last block.
  const blockVars = derivedVars(fn.body, (x) => x.reg === "grid" || x.reg === "blockIdx");
  const isGridWide = (e: IR.Expr): boolean => {
    let dep = false;
    visitExpr(e, (y) => ((y.k === "var" && blockVars.has(y.v.id)) || (y.k === "special" && (y.reg === "grid" || y.reg === "blockIdx"))) && (dep = true));
    return dep;
  };
  const boolInits = constBoolInits(fn.body);
  const text = (e: IR.Expr): string => ctx.textOf?.(e.span).trim() ?? "";
  const isThread = (e: IR.Expr): boolean => {
    let dep = false;
    visitExpr(e, (y) => ((y.k === "var" && threadVars.has(y.v.id)) || (y.k === "special" && y.reg !== "blockIdx")) && (dep = true));
    return dep;
  };
  /** Indices held in locals computed from the thread's position (`a[cuda.grid(1)]` written inline is left alone). */
  const isThreadIndex = (e: IR.Expr): boolean => firstThreadName(e, threadVars) !== undefined;
  const keyOf = (e: IR.Expr): { key: string; c: number } | undefined => threadOffset(e, threadVars);

  /** What `cond` being `positive` (true) or not tells about thread indices. */
  const guardsOf = (cond: IR.Expr, positive: boolean, depth = 0): Guards => {
    if (depth > 8) return isThread(cond) ? { facts: [], compared: true, opaque: true } : NONE;
    // A condition with a reported mistake (`i + 1 in x`, CS1013) meant to guard something: no second diagnostic.
    if (containsPoison(cond)) return { facts: [], compared: true, opaque: true };
    switch (cond.k) {
      case "unary":
        if (cond.op === "!") return guardsOf(cond.operand, !positive, depth + 1);
        break;
      case "logical":
        // a && b true (or a || b false) makes both sides facts; the other two cases tell nothing precise.
        if ((cond.op === "&&") === positive) return both(guardsOf(cond.left, positive, depth + 1), guardsOf(cond.right, positive, depth + 1));
        break;
      case "var": {
        const init = boolInits.get(cond.v.id);
        if (init) return guardsOf(init, positive, depth + 1);
        break;
      }
      case "call": {
        const inline = inlineCall(cond, ctx.deviceFunction);
        if (inline) {
          // Messages quote the call the user wrote, not the device function's body.
          const inner = guardsOf(inline, positive, depth + 1);
          return { ...inner, facts: inner.facts.map((f) => ({ ...f, guard: cond })) };
        }
        if (cond.args.some(isThread)) return { facts: [], compared: true, opaque: true };
        return NONE;
      }
      case "compare":
        return compareGuards(cond, positive);
      default:
        break;
    }
    let compared = false;
    visitExpr(cond, (x) => (x.k === "compare" || x.k === "call") && isThread(x) && (compared = true));
    return compared ? { facts: [], compared: true, opaque: true } : NONE;
  };

  const compareGuards = (cond: IR.CompareExpr, positive: boolean): Guards => {
    if (!isThread(cond)) return NONE;
    const op = positive ? cond.op : NEGATED[cond.op];
    const [small, big, strict] =
      op === "<" ? [cond.left, cond.right, true] : op === "<=" ? [cond.left, cond.right, false] : op === ">" ? [cond.right, cond.left, true] : op === ">=" ? [cond.right, cond.left, false] : [];
    if (!small || !big) return { facts: [], compared: true, opaque: true }; // == / !=
    const index = keyOf(small);
    if (index && !isThread(big)) {
      const b = constantOffset(big);
      // small + c < B + k  ⇔  key < B - (c - k); with <=, one more.
      const slack = index.c - b.k - (strict ? 0 : 1);
      return { facts: [{ key: index.key, bound: b.base, slack, guard: cond }], compared: true, opaque: false };
    }
    if (!isThread(small)) return { facts: [], compared: true, opaque: false }; // a lower bound: no upper-bound fact
    return { facts: [], compared: true, opaque: true };
  };

  const boundText = (b: IR.Expr): string => (b.k === "shape" && b.dim === 0 ? `${b.array.v.name}.length` : text(b) || "its bound");

  const out: Diagnostic[] = [];
  const reported = new Set<number>();

  const report = (e: IR.IndexExpr, message: string, idx: IR.Expr): void => {
    if (reported.has(e.span.line)) return;
    reported.add(e.span.line); // one per line: the guard fixes every access on it
    const arr = e.array.v.name;
    const index = text(idx) || "i";
    out.push(makeDiagnostic(Codes.UnguardedIndex, e.span, message, { fix: { kind: "addBoundsGuard", indexText: index, arrayText: arr } }));
  };

  const checkIndex = (e: IR.IndexExpr, g: Guards): void => {
    const at = e.array.type;
    if (at.kind !== "array" || at.space !== "global" || at.rank !== 1) return;
    const idx = e.indices[0]!;
    if (!isThreadIndex(idx) || !isGridWide(idx) || isClamped(idx)) return;
    const arr = e.array.v.name;
    const indexText = text(idx) || firstThreadName(idx, threadVars) || "the index";
    // Arithmetic binds tighter than `<`: only other operators need parentheses in the suggested guard.
    const guardText = /^[\w.$()\s+\-*/]+$/.test(indexText) ? indexText : `(${indexText})`;
    const offset = keyOf(idx);
    const known = offset ? g.facts.filter((f) => f.key === offset.key) : [];
    if (offset && known.length > 0) {
      if (g.opaque || known.some((f) => f.slack >= offset.c || !sameLengthAs(f.bound, e.array))) return;
      const tightest = known.reduce((a, f) => (f.slack > a.slack ? f : a));
      const over = offset.c - tightest.slack;
      const other = otherArrayOf(tightest.bound, e.array);
      if (other && launchesShowLonger(fn, e.array, other, over, ctx.launches)) return;
      const unless = other ? ` unless '${arr}' is longer than '${other.v.name}'` : "";
      report(
        e,
        `the guard '${text(tightest.guard)}' lets '${indexText}' reach ${boundText(tightest.bound)}${over > 1 ? ` + ${over - 1}` : ""}, past the end of '${arr}'${unless}: guard the index used, with if (${guardText} < ${arr}.length)`,
        idx,
      );
      return;
    }
    if (g.compared || g.opaque) return;
    if (launchesCover(fn, e.array, offset?.c ?? 0, ctx.launches)) return;
    report(
      e,
      `threads whose index '${indexText}' is ≥ ${arr}.length would access past the end of '${arr}' (the last block usually has extra threads): guard it with if (${guardText} < ${arr}.length)`,
      idx,
    );
  };

  const checkExpr = (e: IR.Expr, g: Guards): void => {
    switch (e.k) {
      case "select":
        checkExpr(e.cond, g);
        checkExpr(e.then, both(g, guardsOf(e.cond, true)));
        checkExpr(e.else, both(g, guardsOf(e.cond, false)));
        return;
      case "logical":
        checkExpr(e.left, g);
        checkExpr(e.right, both(g, guardsOf(e.left, e.op === "&&")));
        return;
      case "intrinsic":
        // min/max clamp an index: treat their operands as guarded.
        if (e.name === "min" || e.name === "max") return;
        e.args.forEach((a) => checkExpr(a, g));
        return;
      case "index":
        e.indices.forEach((i) => checkExpr(i, g));
        checkIndex(e, g);
        return;
      default:
        forEachChild(e, (c) => checkExpr(c, g));
    }
  };

  const walk = (stmts: readonly IR.Stmt[], g0: Guards): void => {
    let g = g0;
    for (const s of stmts) {
      switch (s.k) {
        case "decl":
          if (s.init) checkExpr(s.init, g);
          break;
        case "assign":
          if (s.target.k === "index") checkExpr(s.target, g);
          checkExpr(s.value, g);
          break;
        case "expr":
          checkExpr(s.expr, g);
          break;
        case "print":
        case "raise":
          s.args.forEach((a) => checkExpr(a, g));
          break;
        case "return":
          if (s.value) checkExpr(s.value, g);
          break;
        case "if": {
          checkExpr(s.cond, g);
          walk(s.then, both(g, guardsOf(s.cond, true)));
          if (s.else) walk(s.else, both(g, guardsOf(s.cond, false)));
          // `if (i >= n) return;` guards what follows with i < n; `if (ok) {…} else return;` with ok.
          if (leaves(s.then)) g = both(g, guardsOf(s.cond, false));
          if (s.else && leaves(s.else)) g = both(g, guardsOf(s.cond, true));
          break;
        }
        case "loop": {
          walk(s.init, g);
          if (s.cond) checkExpr(s.cond, g);
          const inside = s.cond ? both(g, guardsOf(s.cond, true)) : g;
          walk(s.body, inside);
          walk(s.update, inside);
          break;
        }
        case "block":
          walk(s.body, g);
          break;
        default:
          break;
      }
    }
  };
  walk(fn.body, NONE);
  return out;
}

const NEGATED: Record<IR.CompareOp, IR.CompareOp> = { "<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "==" };

function both(a: Guards, b: Guards): Guards {
  if (b === NONE) return a;
  if (a === NONE) return b;
  return { facts: [...a.facts, ...b.facts], compared: a.compared || b.compared, opaque: a.opaque || b.opaque };
}

function containsPoison(e: IR.Expr): boolean {
  let found = false;
  visitExpr(e, (x) => POISON.has(x) && (found = true));
  return found;
}

function leaves(stmts: readonly IR.Stmt[]): boolean {
  return stmts.some((s) => s.k === "return" || s.k === "break" || s.k === "continue" || (s.k === "block" && leaves(s.body)));
}

/** min/max, `%` and `&` wrap an index into range. */
function isClamped(idx: IR.Expr): boolean {
  let clamped = false;
  visitExpr(idx, (x) => {
    if (x.k === "intrinsic" && (x.name === "min" || x.name === "max")) clamped = true;
    if (x.k === "binary" && (x.op === "%" || x.op === "&")) clamped = true;
  });
  return clamped;
}

function firstThreadName(idx: IR.Expr, threadVars: Map<number, string>): string | undefined {
  let found: string | undefined;
  visitExpr(idx, (x) => x.k === "var" && threadVars.has(x.v.id) && !found && (found = x.v.name));
  return found;
}

/** `base + c` with a constant integer c (conversions seen through). */
function constantOffset(e: IR.Expr): { base: IR.Expr; k: number } {
  if (e.k === "convert") return constantOffset(e.value);
  if (e.k === "binary" && (e.op === "+" || e.op === "-")) {
    const r = intConst(e.right);
    if (r !== undefined) {
      const inner = constantOffset(e.left);
      return { base: inner.base, k: inner.k + (e.op === "+" ? r : -r) };
    }
    const l = intConst(e.left);
    if (l !== undefined && e.op === "+") {
      const inner = constantOffset(e.right);
      return { base: inner.base, k: inner.k + l };
    }
  }
  return { base: e, k: 0 };
}

/** A thread index plus a constant: `i`, `i + 1`, `cuda.grid(1) - 1`. */
function threadOffset(e: IR.Expr, threadVars: Map<number, string>): { key: string; c: number } | undefined {
  const { base, k } = constantOffset(e);
  if (base.k === "var" && threadVars.has(base.v.id)) return { key: `v${base.v.id}`, c: k };
  if (base.k === "special" && (base.reg === "grid" || base.reg === "threadIdx")) return { key: `${base.reg}.${base.axis}`, c: k };
  return undefined;
}

function intConst(e: IR.Expr): number | undefined {
  if (e.k === "convert") return intConst(e.value);
  return e.k === "const" && typeof e.value === "number" && Number.isInteger(e.value) ? e.value : undefined;
}

/** Whether a bound is the length of `array`, or of an array of the same element type (element-wise kernels). */
function sameLengthAs(bound: IR.Expr, array: IR.VarExpr): boolean {
  const b = bound.k === "convert" ? bound.value : bound;
  if (b.k !== "shape" || b.dim !== 0) return false;
  const a = array.type, o = b.array.type;
  return b.array.v.id === array.v.id || (a.kind === "array" && o.kind === "array" && a.dtype === o.dtype && o.rank === 1);
}

/** The other array whose length `bound` is (`out.length` guarding `x[i + 1]`), if it is not `array`'s own. */
function otherArrayOf(bound: IR.Expr, array: IR.VarExpr): IR.VarExpr | undefined {
  const b = bound.k === "convert" ? bound.value : bound;
  return b.k === "shape" && b.array.v.id !== array.v.id ? b.array : undefined;
}

/** Whether every launch in the file (at least one) passes for `array` one at least `over` elements longer than for `other`. */
function launchesShowLonger(fn: IR.IrFunction, array: IR.VarExpr, other: IR.VarExpr, over: number, launches: readonly GuardLaunch[] | undefined): boolean {
  const p = fn.params.findIndex((v) => v.id === array.v.id), q = fn.params.findIndex((v) => v.id === other.v.id);
  if (p < 0 || q < 0 || !launches || launches.length === 0) return false;
  return launches.every((l) => {
    const n = l.argLengths?.[p], m = l.argLengths?.[q];
    return n !== undefined && m !== undefined && n - m >= over;
  });
}

/**
 * Whether every launch of the kernel in the file has constant geometry with no more threads than the
 * array passed for `array` has elements (beyond `c`): the bound then comes from the launch, as in ports
 * of C kernels whose sizes are multiples of the block size. No launch in the file: it cannot tell.
 */
function launchesCover(fn: IR.IrFunction, array: IR.VarExpr, c: number, launches: readonly GuardLaunch[] | undefined): boolean {
  const p = fn.params.findIndex((v) => v.id === array.v.id);
  if (p < 0 || !launches || launches.length === 0) return false;
  return launches.every((l) => {
    const n = l.argLengths?.[p];
    return l.totalThreads !== undefined && n !== undefined && l.totalThreads + Math.max(c, 0) <= n;
  });
}

/**
 * The body of a device function that is one `return <expr>`, with its parameters replaced by the
 * call's arguments: the guard as if written in the kernel. Undefined for anything else.
 */
function inlineCall(call: IR.CallExpr, deviceFunction: BoundsGuardContext["deviceFunction"]): IR.Expr | undefined {
  const callee = deviceFunction?.(call.fn);
  const body = callee?.body;
  if (!callee || body?.length !== 1 || body[0]!.k !== "return" || !body[0]!.value) return undefined;
  const args = new Map<number, IR.Expr>();
  callee.params.forEach((p, i) => call.args[i] && args.set(p.id, call.args[i]!));
  return substitute(body[0]!.value, args);
}

function substitute(e: IR.Expr, args: Map<number, IR.Expr>): IR.Expr | undefined {
  const sub = (x: IR.Expr) => substitute(x, args);
  switch (e.k) {
    case "const":
    case "special":
      return e;
    case "var":
      return args.get(e.v.id);
    case "shape": {
      const a = args.get(e.array.v.id);
      return a?.k === "var" ? { ...e, array: a } : undefined;
    }
    case "unary":
    case "convert":
    case "truthy": {
      const inner = sub(e.k === "unary" ? e.operand : e.value);
      if (!inner) return undefined;
      return e.k === "unary" ? { ...e, operand: inner } : { ...e, value: inner };
    }
    case "binary":
    case "compare":
    case "logical": {
      const left = sub(e.left), right = sub(e.right);
      return left && right ? { ...e, left, right } : undefined;
    }
    default:
      return undefined;
  }
}

/** `const ok = i < n` (immutable bool locals) by variable id, so `if (ok)` reads as its comparison. */
function constBoolInits(body: readonly IR.Stmt[]): Map<number, IR.Expr> {
  const out = new Map<number, IR.Expr>();
  const visit = (stmts: readonly IR.Stmt[]) => {
    for (const s of stmts) {
      if (s.k === "decl" && s.init && !s.v.mutable && s.v.type.kind === "scalar" && s.v.type.dtype === "bool") out.set(s.v.id, s.init);
      else if (s.k === "if") {
        visit(s.then);
        if (s.else) visit(s.else);
      } else if (s.k === "loop") visit(s.body);
      else if (s.k === "block") visit(s.body);
    }
  };
  visit(body);
  return out;
}

/** Locals computed, transitively, from the special registers that `source` accepts. */
function derivedVars(body: readonly IR.Stmt[], source: (x: IR.SpecialExpr) => boolean): Map<number, string> {
  const vars = new Map<number, string>();
  const derived = (e: IR.Expr): boolean => {
    let dep = false;
    visitExpr(e, (x) => {
      if ((x.k === "special" && source(x)) || (x.k === "var" && vars.has(x.v.id))) dep = true;
    });
    return dep;
  };
  let changed = true;
  while (changed) {
    changed = false;
    const visit = (stmts: readonly IR.Stmt[]) => {
      for (const s of stmts) {
        if (s.k === "decl" && s.init && !vars.has(s.v.id) && derived(s.init)) {
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
