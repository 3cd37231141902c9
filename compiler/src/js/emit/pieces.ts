/**
 * Printing a fission kernel's items: each run of consecutive pieces fused into one loop over the
 * block's threads (per-thread variables loaded and stored around it, rematerialised locals recomputed,
 * a piece that is `if (threadIdx.x < U)` alone visiting only that range), synchronisations by sync.ts.
 */
import { profileRangeCount } from "./profile";
import type * as IR from "../../ir/nodes";
import { forEachVarExpr } from "../remat";
import { SAN_THREAD, type EmitContext, type Item, type Seg } from "./context";
import { GLOBAL_THREAD } from "./sanitize-global";

/** The thread loops of a fission kernel. */
export class PiecePrinter {
  constructor(private readonly cx: EmitContext) {}

  /** The code of block-level items, consecutive pieces fused into one thread loop. */
  emitItems(items: Item[]): string[] {
    const out: string[] = [];
    let run: Seg[] = [];
    const flush = () => {
      if (run.length) out.push(...this.fused(run));
      run = [];
    };
    for (const it of items) {
      if (it.k === "seg") {
        run.push(it);
        continue;
      }
      flush();
      if (it.k === "raw") out.push(it.code);
      else if (it.k === "sync") out.push(this.cx.sync.syncCode(it));
      else for (const p of it.parts) typeof p === "string" ? out.push(p) : out.push(...this.emitItems(p));
    }
    flush();
    return out;
  }

  private fused(run: Seg[]): string[] {
    const out: string[] = [];
    const reads = new Set<IR.Var>(), writes = new Set<IR.Var>(), arrs = new Set<IR.Var>();
    for (const s of run) {
      out.push(...s.prologue);
      s.reads.forEach((v) => reads.add(v));
      s.writes.forEach((v) => writes.add(v));
      s.arrays.forEach((v) => arrs.add(v));
    }
    const inner: string[] = [];
    if (run.some((r) => r.sanFast)) inner.push(SAN_THREAD);
    if (run.some((r) => r.globalFast)) inner.push(GLOBAL_THREAD);
    // Rematerialised locals (and what they depend on), in declaration order.
    const need = new Set<IR.Var>();
    const addRemat = (v: IR.Var) => {
      const e = this.cx.remat.get(v);
      if (!e || need.has(v)) return;
      forEachVarExpr(e, addRemat);
      need.add(v);
    };
    for (const v of new Set([...reads, ...writes])) addRemat(v);
    const rematLines: string[] = [];
    const probe = this.cx.fission.newSeg();
    const saved = this.cx.seg;
    this.cx.seg = probe;
    this.cx.profileQuiet = true;
    for (const v of [...need].sort((a, b) => a.id - b.id)) {
      this.cx.scalars.add(v);
      rematLines.push(`${this.cx.vn(v)} = ${this.cx.emit.ex(this.cx.remat.get(v)!)};`);
    }
    this.cx.profileQuiet = false;
    this.cx.seg = saved;
    inner.push(...rematLines);
    const rematted = new Set(rematLines);
    for (const v of new Set([...reads, ...writes])) if (this.cx.perThread.has(v)) inner.push(`${this.cx.vn(v)} = ${this.cx.loadVar(v, "$t")};`);
    for (const v of arrs) {
      const a = this.cx.arrays.get(v);
      if (a?.perThread) inner.push(`${a.data} = ${a.perThread}[$t];`);
    }
    const only = run.length === 1 ? run[0]! : undefined;
    let range = only?.range && only.pre.length === 0 ? only.range : undefined;
    // Profiling: the range loop only where the test can be counted for the whole block (emit/profile.ts).
    const rangeCount = range && only ? profileRangeCount(this.cx, this.cx.fission.rangeConds.get(only)!) : null;
    if (rangeCount === undefined) range = undefined;
    for (const s of run) {
      if (!s.body.length) {
        inner.push(...s.pre);
        continue;
      }
      // A thread whose status is not 0 (it returned, or waits out a branch or loop) skips the piece; in a
      // kernel where no code ever sets a status every thread runs every piece, and the test is left out.
      // A rematerialised local's declaration computes again what the prologue above just did (the same
      // text: the same expression of the thread index and fixed values), so it is left out.
      const body = (s === only && range && s.rangeBody ? s.rangeBody : s.body).filter((l) => !rematted.has(l));
      inner.push(`${s.label}: {`, ...s.pre, ...(this.cx.threadsLeave ? [`if ($st[$t] !== 0) break ${s.label};`] : []), ...body, "}");
    }
    for (const v of writes) if (this.cx.perThread.has(v)) inner.push(this.cx.storeVar(v, "$t", this.cx.vn(v)));
    // The threads in linear order, as nested loops over z, y and x: the thread indices are loop counters
    // (not loads from a table), which is what lets V8 see their ranges, and a piece that is a single
    // `if (threadIdx.x < U)` only visits the x range that can pass it, in blocks of any shape.
    const lo = range ? `Math.max(0, Math.ceil(${range.lo}))` : "0";
    const hi = range ? `Math.min($bdx, ${range.hi})` : "$bdx";
    out.push(`{ const $lo = ${lo}, $hi = ${hi};`);
    if (range && rangeCount) out.push(rangeCount);
    // `$t`, the linear thread id, is kept up to date only where the pieces read it (per-thread storage,
    // statuses, the sanitizer): elsewhere `$t = 0` only says "in a thread" to the fault handler, which
    // names the thread by `$tx`, `$ty`, `$tz` (an unread second induction variable that a fault must
    // see cost ~7% of bench/sim.mjs's reduction).
    const tracked = inner.some((l) => /\$t\b/.test(l));
    out.push(tracked ? "" : "$t = 0;", "for ($tz = 0; $tz < $bdz; $tz++) for ($ty = 0; $ty < $bdy; $ty++) {");
    if (tracked) out.push("$t = ($tz * $bdy + $ty) * $bdx + $lo;");
    // Past the loops `$t` says "no thread" again, so a fault of the barrier code after them names none.
    out.push(`for ($tx = $lo; $tx < $hi; $tx++${tracked ? ", $t++" : ""}) {`, ...inner, "} } }", "$t = $nT;");
    for (const s of run) if (s.bulk) out.push(...s.bulk);
    return out.filter((l) => l !== "");
  }
}
