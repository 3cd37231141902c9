/**
 * The profiling variant's counting hooks (docs/profiling.md). Only a module emitted with
 * `{ profile: true }` calls them; the plain and sanitizing variants are unchanged.
 *
 * The module gets a table of profile sites (`$psites`: kind, file, line, col, span, bytes per access)
 * and two module variables: `$P`, the launch's counters (runtime/src/profiler/counters.ts, handed in as
 * `L.profile`), and `$fl`/`$fd`, the f32/f16 and f64 floating-point operations counted inline (one
 * increment each, read back by the kernel when its blocks are done). Hooks:
 *
 * - `$P.g|ga(site, $t, base, flat)` before a global load/store (atomic) of a kernel parameter, whose
 *   modelled base address the kernel's setup computes once (`$P.addr`); `$P.gv|gav(site, $t, data,
 *   flat)` in device functions; `$P.s|sa(site, $t, flat)` for shared memory. The k-th call of a
 *   site by a thread forms, with the k-th calls of the other lanes of its warp, one request;
 * - `$P.b(site, $t, cond)` around a per-thread condition (returns it);
 * - `$P.u(site)` at a block-level (block-uniform) condition: one non-divergent branch per warp;
 * - `$P.block()` at the start of every block (the previous block's requests are complete).
 */
import type * as IR from "../../ir/nodes";
import { DTYPES } from "../../dtypes/table";
import type { ArrayInfo } from "./arrays";
import { forEachNStmt, type NLoop, type NStmt } from "../normalize";
import { smallCountedLoop } from "./statements";
import type { EmitContext } from "./context";

/** A counted source site of the profiling variant. */
export interface ProfileSite {
  /** gld/gst/gatom: global load, store, atomic; sld/sst/satom: shared; br: a condition. */
  readonly kind: "gld" | "gst" | "gatom" | "sld" | "sst" | "satom" | "br";
  readonly file: string;
  readonly line: number;
  readonly col: number;
  /** Source offsets of the access or condition (the report quotes the text). */
  readonly start: number;
  readonly end: number;
  /** Bytes per lane of an access (the element's size). */
  readonly bytes?: number;
  readonly array?: string;
  /** Of a branch: what kind of conditional. */
  readonly what?: "if" | "loop" | "?:" | "&&" | "||";
  readonly op?: string;
  /** Of a recorded bulk site (profile-bulk.ts): its row in the block's buffer of element indices. */
  readonly rec?: number;
}

/** The module's profile sites (ModuleEmitter.profile when emitting the profiling variant). */
export class ProfileSites {
  /** `bulk`: count what can be counted per block in bulk (profile-bulk.ts); else every site per thread. */
  constructor(readonly bulk = true) {}
  readonly sites: ProfileSite[] = [];
  /** The branch site of each per-thread condition, by the condition's span (fission's range pieces look it up). */
  readonly branchOf = new WeakMap<IR.Span, number>();
  /** Per kernel emission: the global arrays whose modelled base address its setup computes once (`<data>$pb`). */
  readonly bases = new WeakMap<EmitContext, Set<string>>();
  /**
   * Accesses counted in bulk (profile-bulk.ts): their per-thread counting is left out, or is the store of
   * the element index in row `rec` of the block's buffer (a recorded site).
   */
  readonly bulkAccesses = new WeakMap<IR.Expr, number | undefined>();
  /** Recorded bulk sites so far (rows of the buffer). */
  recorded = 0;
  readonly bulkBranches = new WeakSet<IR.Span>();
  add(s: ProfileSite): number {
    this.sites.push(s);
    return this.sites.length - 1;
  }
  /** The prelude lines of the profiling variant. */
  prelude(): string[] {
    return [`const $psites = ${JSON.stringify(this.sites)};`, "let $P = null, $fl = 0, $fd = 0;"];
  }
}

function sites(cx: EmitContext): ProfileSites | undefined {
  return cx.me.profile;
}

function spanOf(span: IR.Span): Pick<ProfileSite, "file" | "line" | "col" | "start" | "end"> {
  return { file: span.file, line: span.line, col: span.col, start: span.start, end: span.end };
}

/**
 * The hook call before an element access, or undefined when not profiling or the memory is not
 * counted (local and constant arrays, records).
 */
export function profileAccess(cx: EmitContext, kind: "read" | "write" | "atomic", a: ArrayInfo, flat: string, node: IR.Expr, op?: string): string | undefined {
  const ps = sites(cx);
  if (!ps || a.record || cx.flatGrid || cx.profileQuiet) return undefined;
  if (ps.bulkAccesses.has(node)) {
    const rec = ps.bulkAccesses.get(node);
    return rec === undefined ? undefined : `$pRb[${rec} * $nT + $t] = ${flat}`;
  }
  const span = node.span;
  if (a.space !== "global" && a.space !== "shared") return undefined;
  const g = a.space === "global";
  const k = kind === "read" ? (g ? "gld" : "sld") : kind === "write" ? (g ? "gst" : "sst") : g ? "gatom" : "satom";
  const site = ps.add({ kind: k, ...spanOf(span), bytes: DTYPES[a.dtype].bytes, array: a.name, ...(op ? { op } : {}) });
  // The flat index of a device-function parameter already includes its view's offset.
  if (g) {
    // A kernel's global arrays are its parameters, constant for the launch: their base address is
    // computed once in the kernel's setup. A device function's arrays vary: the hook looks it up.
    const atomic = k === "gatom" ? "a" : "";
    if (cx.mode === "device" || !/^[A-Za-z_$][\w$]*$/.test(a.data)) return `$P.g${atomic}v(${site}, $t, ${a.data}, ${flat})`;
    let set = ps.bases.get(cx);
    if (!set) ps.bases.set(cx, (set = new Set()));
    set.add(a.data);
    const base = `${a.data}$pb`;
    const bytes = DTYPES[a.dtype].bytes;
    // The unit as the runtime computes it (counters.ts): the sector, or an atomic's byte address —
    // counted from the base's offset in its 32-byte sector (`$pbr`), a small integer, not from the device
    // address past 2^31: the same sectors and addresses apart, cheaper to compare (request-stats.ts).
    const unit = k === "gatom" ? `${base}r + $pf * ${bytes}` : `Math.floor((${base} + $pf * ${bytes}) / 32)`;
    return inlineCount(cx, site, k, bytes, unit, flat, `$P.g${atomic}(${site}, $t, ${base}, $pf)`);
  }
  // Shared arrays (static, dynamic, a device function's) each start at byte 0 of their storage, at bank 0:
  // the element index is the address. s: shared load/store, sa: shared atomic.
  const call = `$P.${k === "satom" ? "sa" : "s"}(${site}, $t, $pf)`;
  const bytes = DTYPES[a.dtype].bytes;
  if (cx.mode === "device" || (k !== "satom" && bytes > 4)) return `$P.${k === "satom" ? "sa" : "s"}(${site}, $t, ${flat})`;
  return inlineCount(cx, site, k, bytes, `Math.floor(($pf * ${bytes}) / 4)`, flat, call);
}

/*
 * Inline counting: the hooks' common case written into the kernel (a call per access cost ~15 ns, most
 * of a counted access; the kernels are too big for V8 to inline the hooks). Which case applies is known
 * here, as counters.ts begin decides it from the same facts: in a kernel without barriers ("fast") every
 * site but an 8- or 16-byte shared load/store streams, in one with barriers ("fission") it is logged.
 * Streamed: a thread's first execution of the site appends its lane to the site's open request
 * (counters.ts streamUnit / streamAtomic, the same steps), calling the runtime only when the warp
 * changes; a later execution by the same thread (a loop) is the hook call. Logged: the store of the
 * lane's unit in row k of its (site, warp) log (counters.ts logUnit), calling the runtime to open a row.
 * The kernel holds the counters' arrays in locals (profileKernelSetup); `$pf` holds the flat index and `$pc` a
 * condition's value, each evaluated once.
 */

/** Per-lane unit (an expression of `$pf`), or a branch's outcome, counted inline; else the hook call. */
function inlineCount(cx: EmitContext, site: number, kind: ProfileSite["kind"], bytes: number, unit: string, value: string, call: string): string {
  const atomic = kind === "gatom" || kind === "satom";
  // A condition's value in `$pc`, an index in `$pf` (each local keeps one type).
  const x = kind === "br" ? "$pc" : "$pf";
  if (cx.mode === "fission") return `(${x} = ${value}, ${logStore(site, kind === "br" ? "$pc ? 1 : 0" : unit)}${kind === "br" ? ", $pc" : ""})`;
  if (cx.mode !== "fast") return call.replace(x, () => value);
  const o = site * 8, u = site * 32;
  // ST_THREAD, ST_LATER, ST_WARP, ST_LANES, ST_TAKEN, ST_COUNT, ST_RISING at o + 0 … 6 (counters.ts).
  const lane = `$pS[${o}] = $t, $pS[${o + 1}] = 0, ($pS[${o + 2}] !== ($t >> 5) && $P.streamWarp(${site}, $t >> 5)), $pS[${o + 3}]++`;
  let add: string;
  if (kind === "br") add = `($pc && $pS[${o + 4}]++), $pc`;
  else if (atomic) add = `$pU[${u} + $pS[${o + 5}]++] = ${unit}`;
  // A repeat of the previous lane's unit is left out; a unit below it clears ST_RISING.
  else add = `$pu = ${unit}, (($pn = $pS[${o + 5}]) === 0 || (($pv = $pU[${u} + $pn - 1]) !== $pu && ($pu < $pv && ($pS[${o + 6}] = 0), true)) ? ($pU[${u} + $pn] = $pu, $pS[${o + 5}] = $pn + 1) : 0)`;
  return `(${x} = ${value}, $pS[${o}] !== $t ? (${lane}, ${add}) : ${call})`;
}

/** The store of a logged unit at thread $t's next row of site `site` (counters.ts logUnit). */
function logStore(site: number, unit: string): string {
  return `$pk = $pK[$pq = ${site} * $nT + $t], $pK[$pq] = $pk + 1, ($pk < $pR[$pq = ${site} * $pW + ($t >> 5)] ? $pLg[$pq] : $P.openRow($pq, $pk))[$pk * 32 + ($t & 31)] = ${unit}`;
}

/** A per-thread condition with its hook (the same value). */
export function profileBranch(cx: EmitContext, cond: string, span: IR.Span, what: NonNullable<ProfileSite["what"]>): string {
  const ps = sites(cx);
  if (!ps || cx.flatGrid || cx.profileQuiet || ps.bulkBranches.has(span)) return cond;
  const site = ps.add({ kind: "br", ...spanOf(span), what });
  // Block-level code of a kernel with barriers (a block-uniform value computed once for all threads):
  // every warp evaluates the condition once, all its lanes agreeing.
  if (blockLevel(cx)) return `($P.u(${site}), ${cond})`;
  ps.branchOf.set(span, site);
  return inlineCount(cx, site, "br", 0, "", cond, `$P.b(${site}, $t, $pc)`);
}

/** A block-level (uniform) condition: counted once per warp of the block, never divergent. */
export function profileUniformBranch(cx: EmitContext, cond: string, span: IR.Span, what: NonNullable<ProfileSite["what"]>): string {
  const ps = sites(cx);
  if (!ps) return cond;
  const site = ps.add({ kind: "br", ...spanOf(span), what });
  return `($P.u(${site}), ${cond})`;
}

/** A floating-point + - * / (f32 and f16 in `$fl`, f64 in `$fd`). */
export function profileFlop(cx: EmitContext, dtype: string, js: string): string {
  if (!sites(cx) || cx.profileQuiet) return js;
  // Block-level code computes once what every thread of the block computes.
  return `(${dtype === "f64" ? "$fd" : "$fl"}${blockLevel(cx) ? " += $nT" : "++"}, ${js})`;
}

/** Code of a kernel with barriers that runs once per block, outside the thread loops (fission.ts blockStmt). */
function blockLevel(cx: EmitContext): boolean {
  return cx.mode === "fission" && !cx.seg;
}

/** Lines at the start of a kernel function (the launch's counters) and of every block. */
export function profileKernelSetup(cx: EmitContext): string[] {
  const ps = sites(cx);
  if (!ps) return [];
  const bases = [...(ps.bases.get(cx) ?? [])].map((d) => `const ${d}$pb = $P.addr(${d}), ${d}$pbr = ${d}$pb % 32;`);
  // A plain kernel (no barriers) runs each thread to its end in linear order: the counters close a
  // warp's requests when the next warp starts (counters.ts).
  // The counters' arrays and the temporaries of the inline counting (inlineCount).
  const inline =
    cx.mode === "fast"
      ? "const $pS = $P.st, $pU = $P.sUnits, $pRb = $P.recorded; let $pf = 0, $pc, $pu = 0, $pn = 0, $pv = 0;"
      : "const $pK = $P.kCount, $pR = $P.rows, $pLg = $P.logs, $pW = $P.nW, $pRb = $P.recorded; let $pf = 0, $pc, $pk = 0, $pq = 0;";
  return [`$P = L.profile; $P.begin($psites, $nT, ${cx.mode === "fast"}, $bdx, $bdy); $fl = 0; $fd = 0;`, inline, ...bases];
}
export function profileBlockStart(cx: EmitContext): string {
  return sites(cx) ? "$P.block();" : "";
}
/** Wraps a kernel body so the counters get the FLOPs and the last block even when a thread faults. */
export function profileKernelEnd(cx: EmitContext): string {
  return sites(cx) ? "finally { $P.end($fl, $fd); }" : "";
}

/**
 * A fission piece that is one `if (lo <= threadIdx.x < hi)` loops only over the threads that pass it
 * (pieces.ts). Profiling keeps that loop when no thread can have left (no thread statuses: every thread
 * of the block evaluates the test, in step, so its k-th evaluations are this piece's runs) and counts
 * the test's branches for the whole block in one call; otherwise the piece runs every thread (undefined).
 */
export function profileRangeCount(cx: EmitContext, cond: IR.Expr): string | null | undefined {
  const ps = sites(cx);
  if (!ps) return null; // not profiling: the range loop as always
  if (ps.bulkBranches.has(cond.span)) return ""; // counted with the piece's bulk calls (profile-bulk.ts)
  const site = ps.branchOf.get(cond.span);
  if (site === undefined || cx.threadsLeave) return undefined;
  return `$P.bulk(${site}, $lo, $hi, $bdx);`;
}

/**
 * A per-thread counted loop (`for (let k = 0; k < 16; k++)`: constant bounds, the counter assigned only
 * by its update) whose body cannot leave it early (no break, return or throw): every thread that enters
 * it evaluates the test exactly n times, true n − 1 times then false, so the lanes' k-th evaluations
 * always agree. Its branches are counted once per entry (`$P.bl(site, $t, n)`: per warp, the most
 * evaluations of a lane, none divergent) instead of at every test. Undefined otherwise.
 */
export function profileCountedLoop(cx: EmitContext, s: NLoop): string | undefined {
  const ps = sites(cx);
  if (!ps || !s.cond || cx.flatGrid || !smallCountedLoop(s) || leavesEarly(s.body)) return undefined;
  const n = countedTests(s);
  if (n === undefined) return undefined;
  const site = ps.add({ kind: "br", ...spanOf(s.cond.span), what: "loop" });
  return `$P.bl(${site}, $t, ${n});`;
}

export function leavesEarly(body: readonly NStmt[]): boolean {
  let leaves = false;
  forEachNStmt(body, (st) => void ((st.k === "break" || st.k === "return" || st.k === "fnReturn" || st.k === "raise") && (leaves = true)));
  return leaves;
}

/** How many times a counted loop (smallCountedLoop) runs its body per entry. */
export function countedTrips(s: NLoop): number | undefined {
  const n = countedTests(s);
  return n === undefined ? undefined : n - 1;
}

/** How many times a counted loop (smallCountedLoop) evaluates its test per entry. */
function countedTests(s: NLoop): number | undefined {
  const c = s.cond;
  if (!c || c.k !== "compare") return undefined;
  let op = c.op;
  let bound = c.right;
  if (c.left.k !== "var") {
    bound = c.left;
    op = op === "<" ? ">" : op === ">" ? "<" : op === "<=" ? ">=" : op === ">=" ? "<=" : op;
  }
  const init = s.init[0], upd = s.update[0];
  if (init?.k !== "decl" || init.init?.k !== "const" || bound.k !== "const" || upd?.k !== "assign" || upd.value.k !== "binary" || upd.value.right.k !== "const") return undefined;
  const c0 = Number(init.init.value), C = Number(bound.value);
  const step = (upd.value.op === "+" ? 1 : -1) * Number(upd.value.right.value);
  let trips: number;
  if (op === "<" && step > 0) trips = Math.max(0, Math.ceil((C - c0) / step));
  else if (op === "<=" && step > 0) trips = Math.max(0, Math.floor((C - c0) / step) + 1);
  else if (op === ">" && step < 0) trips = Math.max(0, Math.ceil((c0 - C) / -step));
  else if (op === ">=" && step < 0) trips = Math.max(0, Math.floor((c0 - C) / -step) + 1);
  else return undefined;
  return Number.isFinite(trips) ? trips + 1 : undefined;
}
