/**
 * Which global arrays of a kernel the simulator may *privatize* when a launch is spread over worker
 * threads: each worker applies the atomics to a private copy initialised to the operation's identity,
 * with plain operations, and merges it into the real array (with `Atomics` / compare-and-swap) when
 * its share of the launch is done. That turns two cores fighting over the cache lines of a small
 * histogram into private updates plus one merge per worker.
 *
 * This is sound when the array is used in the launch ONLY through atomics of one commutative and
 * associative class whose results are unused:
 *   add/sub (i32, u32: exact modulo 2³²; f32, f64: a GPU's float atomic adds are unordered too, so
 *   only the rounding order can differ), and, or, xor, max, min.
 * Anything else disqualifies the array: an element read or write, an atomic whose result is used,
 * exch / compareAndSwap / inc / dec, two classes mixed (add and max), or a use this analysis does
 * not understand. Arrays passed to device functions count as accesses: the callee's use of its
 * parameter is analysed the same way (transitively). `a.length` / `a.shape` are not accesses.
 *
 * The per-launch conditions (the device buffer is not bound to another parameter, the array is
 * small enough for the copy and merge to pay off) are the runtime's (runtime/src/simulator/executor.ts).
 */
import type * as IR from "../ir/nodes";
import type { DType } from "../ir/types";
import type { PrivatizableParam, PrivatizeOp } from "./artifact-types";
import { forEachChild, forEachStmt } from "../ir/visit";

export type { PrivatizeOp, PrivatizableParam };

const CLASS: Partial<Record<IR.AtomicOp, PrivatizeOp>> = { add: "add", sub: "add", and: "and", or: "or", xor: "xor", max: "max", min: "min" };
const DTYPES: ReadonlySet<DType> = new Set<DType>(["i32", "u32", "f32", "f64"]);

/**
 * How a function uses one of its array parameters: `ok` when only through privatizable atomics of
 * class `op` (no op: no atomic at all, only shapes, or unused); `atomic` when any atomic updates it.
 */
interface Use {
  readonly ok: boolean;
  readonly op?: PrivatizeOp;
  readonly atomic: boolean;
}

const UNKNOWN: Use = { ok: false, atomic: true };

export class PrivatizationAnalysis {
  private readonly memo = new Map<string, Use>();
  private readonly active = new Set<string>();

  constructor(private readonly fns: ReadonlyMap<string, IR.IrFunction>) {}

  /** The kernel's privatizable parameters, and every array parameter some atomic updates. */
  kernel(k: IR.IrFunction): { privatize: PrivatizableParam[]; atomics: number[] } {
    const privatize: PrivatizableParam[] = [];
    const atomics: number[] = [];
    k.params.forEach((p, i) => {
      if (p.type.kind !== "array") return;
      const u = this.paramUse(k, i);
      if (u.atomic) atomics.push(i);
      // A record array's atomics update fields of other dtypes than its bytes': never privatized.
      if (u.ok && u.op && p.type.space === "global" && !p.type.record && DTYPES.has(p.type.dtype)) privatize.push({ param: i, name: p.name, dtype: p.type.dtype, op: u.op });
    });
    return { privatize, atomics };
  }

  /** How `fn` uses its parameter `index` (memoised; recursion is treated as an unknown use). */
  paramUse(fn: IR.IrFunction, index: number): Use {
    const key = `${fn.id}\u0000${index}`;
    const m = this.memo.get(key);
    if (m) return m;
    if (this.active.has(key)) return UNKNOWN;
    this.active.add(key);
    const v = fn.params[index];
    const u = v ? this.use(fn, v) : UNKNOWN;
    this.active.delete(key);
    this.memo.set(key, u);
    return u;
  }

  private use(fn: IR.IrFunction, v: IR.Var): Use {
    let op: PrivatizeOp | undefined;
    let bad = false;
    let atomic = false;
    const join = (o: PrivatizeOp) => {
      if (op === undefined) op = o;
      else if (op !== o) bad = true;
    };
    /** `discarded`: the expression is a whole expression statement (its value is unused). */
    const expr = (e: IR.Expr, discarded: boolean): void => {
      switch (e.k) {
        case "var":
          if (e.v === v) bad = true; // the array as a value: not something this analysis follows
          return;
        case "shape":
          return; // a.length / a.shape[d]: no access
        case "index":
          if (e.array.v === v) bad = true; // element read
          e.indices.forEach((x) => expr(x, false));
          return;
        case "atomic": {
          if (e.array.v === v) {
            atomic = true;
            const c = CLASS[e.op];
            if (!c || !discarded) bad = true;
            else join(c);
          }
          e.indices.forEach((x) => expr(x, false));
          if (e.expected) expr(e.expected, false);
          expr(e.value, false);
          return;
        }
        case "random":
          if (e.states.v === v) bad = true; // a draw reads and writes the state row: no private copy
          expr(e.index, false);
          return;
        case "call": {
          const callee = this.fns.get(e.fn);
          e.args.forEach((a, i) => {
            if (a.k === "var" && a.v === v) {
              const u = callee ? this.paramUse(callee, i) : UNKNOWN;
              if (u.atomic) atomic = true;
              if (!u.ok) bad = true;
              else if (u.op) join(u.op);
            } else expr(a, false);
          });
          return;
        }
        default:
          forEachChild(e, (c) => expr(c, false));
      }
    };
    forEachStmt(fn.body, (s) => {
      switch (s.k) {
        case "expr":
          expr(s.expr, true);
          break;
        case "decl":
          if (s.init) expr(s.init, false);
          break;
        case "assign":
          if (s.target.k === "index") {
            if (s.target.array.v === v) bad = true; // element write
            s.target.indices.forEach((x) => expr(x, false));
          } else if (s.target.v === v) bad = true;
          expr(s.value, false);
          break;
        case "return":
          if (s.value) expr(s.value, false);
          break;
        case "print":
        case "raise":
          s.args.forEach((a) => expr(a, false));
          break;
        case "if":
          expr(s.cond, false);
          break;
        case "loop":
          if (s.cond) expr(s.cond, false);
          break;
        default:
          break;
      }
    });
    return { ok: !bad, op: bad ? undefined : op, atomic };
  }
}

/** Per kernel id: the privatizable parameters, and the parameters updated by any atomic. */
export function atomicParams(module: IR.IrModule): Map<string, { privatize: PrivatizableParam[]; atomics: number[] }> {
  const fns = new Map(module.deviceFunctions.map((f) => [f.id, f]));
  const a = new PrivatizationAnalysis(fns);
  return new Map(module.kernels.map((k) => [k.id, a.kernel(k)]));
}
