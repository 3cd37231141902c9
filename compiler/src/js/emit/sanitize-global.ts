/**
 * The sanitizer's global-memory race hooks in the emitted code (the runtime side is
 * runtime/src/simulator/sanitizer/global-races.ts, `rt.races`, `$G` in a kernel).
 *
 * A kernel's global array parameters get their shadow arrays at setup (`<data>$GW/$GR`, the witness count `<data>$GXN`, the handle
 * `<data>$GH`); every access checks inline, with a load and comparisons, whether the element's last write
 * and reader are trivially ordered before it — before this launch or grid phase (`$GLB`), in this block
 * before its last barrier (`$GEB` ≤ … < `$GBS`), or this thread's own in this epoch (`$GM1`…`$GM3`) — and
 * calls `$G`'s slow paths otherwise. Device functions call `rt.races` directly (their arrays are looked
 * up by storage). Barriers, warp synchronisations and block starts advance `$G`'s epoch next to the shared
 * sanitizer's (sync.ts, context.ts SAN_BEGIN/SAN_REFRESH); `cuda.threadfence()` records a release.
 */
import type * as IR from "../../ir/nodes";
import type { SimKernelInfo } from "../artifact-types";
import { forEachRootExpr, forEachStmt, visitExpr } from "../../ir/visit";
import { DTYPES } from "../../dtypes/table";
import type { ArrayInfo } from "./arrays";
import type { EmitContext } from "./context";

/** Reloads `$G`'s bounds after it advanced (appended to SAN_REFRESH). */
export const GLOBAL_REFRESH = "$GE = $G.E; $GE1 = $G.E1; $GBS = $G.BS; $GEB = $G.EB; $GLB = $G.LB;";
/** This thread's writer ([GM1, GM2)) and reader ([GM2, GM3)) bands of the current epoch (appended to SAN_THREAD). */
export const GLOBAL_THREAD = "$GM1 = $GE + ($t + 1) * $GS; $GM2 = $GM1 + $GS; $GM3 = $GM2 + $GS;";
/** The fast paths' locals (declared with the shared sanitizer's). */
export const GLOBAL_LETS = "$gw = 0, $gr = 0, $GE = 0, $GE1 = 0, $GBS = 0, $GEB = 0, $GLB = 0, $GM1 = 0, $GM2 = 0, $GM3 = 0";

/** How the kernel uses a tracked parameter: only reads it, or writes it and never reads it plainly. */
interface Use {
  readonly readOnly: boolean;
  readonly writeOnly: boolean;
}
/** Kernel data names whose shadows the setup declared, per function emission. */
const tracked = new WeakMap<EmitContext, Map<string, Use>>();

/**
 * The array parameters a kernel may write: stored to, updated atomically, drawn from (`cuda.random`), or
 * passed to a device function (counted as written without looking inside). A parameter the kernel only
 * reads cannot race in a launch unless it shares memory with a written one: its accesses are checked
 * only then (`<data>$GT`, decided per launch), which spares most of the cost on read-only inputs.
 */
function writtenParams(fn: IR.IrFunction): Set<IR.Var> {
  const out = new Set<IR.Var>();
  forEachStmt(fn.body, (s) => {
    if (s.k === "assign" && s.target.k === "index") out.add(s.target.array.v);
  });
  forEachRootExpr(fn.body, (e) =>
    visitExpr(e, (x) => {
      if (x.k === "atomic") out.add(x.array.v);
      else if (x.k === "random") out.add(x.states.v);
      else if (x.k === "call") for (const a of x.args) visitExpr(a, (y) => y.k === "var" && y.type.kind === "array" && out.add(y.v));
    }),
  );
  return out;
}

/**
 * The array parameters a kernel may read plainly (an element read, `a[i] += …` included, or passed to a
 * device function or drawn from). A written parameter it never reads has no reader in a launch unless a
 * read parameter shares its memory: its writes then skip the reader check (`<data>$GNR`, per launch).
 */
function readParams(fn: IR.IrFunction): Set<IR.Var> {
  const out = new Set<IR.Var>();
  const targets = new Set<IR.Expr>();
  forEachStmt(fn.body, (s) => {
    if (s.k === "assign" && s.target.k === "index") targets.add(s.target);
  });
  forEachRootExpr(fn.body, (e) =>
    visitExpr(e, (x) => {
      if (x.k === "index" && !targets.has(x)) out.add(x.array.v);
      else if (x.k === "random") out.add(x.states.v);
      else if (x.k === "call") for (const a of x.args) visitExpr(a, (y) => y.k === "var" && y.type.kind === "array" && out.add(y.v));
    }),
  );
  return out;
}

/** The setup of a kernel under the sanitizer: this launch's detector and each global array parameter's shadow (written ones first). */
export function globalSanSetup(cx: EmitContext, info: SimKernelInfo): string[] {
  const names = new Map<string, Use>();
  tracked.set(cx, names);
  const out = [`const $G = rt.races.launch(L, $sites, ${JSON.stringify(info.name)}, L.grid, L.block, ${cx.cooperative}), $GS = $G.S;`];
  const written = writtenParams(cx.fn), read = readParams(cx.fn);
  const params = cx.fn.params.map((p, i) => ({ p, i })).sort((x, y) => Number(written.has(y.p)) - Number(written.has(x.p)));
  const unread: string[] = [];
  for (const { p, i } of params) {
    const a = cx.arrays.get(p);
    if (p.type.kind !== "array" || !a || a.record || a.space !== "global") continue;
    const h = `${a.data}$GH`;
    const use = { readOnly: !written.has(p), writeOnly: written.has(p) && !read.has(p) };
    names.set(a.data, use);
    out.push(`const ${h} = $G.shadow($A[${i}], ${DTYPES[a.dtype].bytes}, ${JSON.stringify(a.name)}, ${!use.readOnly}, ${read.has(p)}), ${a.data}$GW = ${h}.W, ${a.data}$GR = ${h}.R, ${a.data}$GXN = ${h}.XN${use.readOnly ? `, ${a.data}$GT = ${h}.on` : ""};`);
    if (use.writeOnly) unread.push(`${a.data}$GNR = $G.unread(${h})`);
  }
  // After every parameter is registered: whether a read one shares a write-only one's memory.
  if (unread.length) out.push(`const ${unread.join(", ")};`);
  return out;
}

const inlineUsers = new WeakSet<EmitContext>();
/** An inline check was emitted: the piece (or the plain kernel's thread loop) computes this thread's bands. */
function inlineUsed(cx: EmitContext): void {
  inlineUsers.add(cx);
  if (cx.seg) cx.seg.globalFast = true;
}
/** Whether this kernel emitted inline global checks (a plain kernel then computes the bands per thread). */
export function usesGlobalInline(cx: EmitContext): boolean {
  return inlineUsers.has(cx);
}

/** Whether accesses of `a` in this function are checked for global races (and how: inline or through rt.races). */
function mode(cx: EmitContext, a: ArrayInfo): "inline" | "call" | undefined {
  if (!cx.san || a.record) return undefined;
  if (cx.mode === "device") return a.shId === "param" ? "call" : undefined;
  return a.space === "global" && tracked.get(cx)?.has(a.data) ? "inline" : undefined;
}

/** A read-only parameter's checks run only when the launch binds it to memory a written parameter shares. */
function readOnlyGuard(cx: EmitContext, a: ArrayInfo, checks: string): string {
  return tracked.get(cx)?.get(a.data)?.readOnly ? `(!${a.data}$GT || (${checks}))` : checks;
}

const ordered = (v: string) => `${v} < $GLB || (${v} >= $GEB && ${v} < $GBS)`;
/** A read's check of the last write: before this launch or phase, an atomic (negative), ordered by this block's last barrier, or this thread's. */
const readOk = (W: string, x: string) => `(($gw = ${W}[${x}]) < $GLB || ($gw >= $GEB && $gw < $GBS) || ($gw >= $GM1 && $gw < $GM2))`;
/** A write's check of the last write: as a read's, but an atomic of this launch goes to the slow path. */
const writerOk = (W: string, x: string) => `(($gw = ${W}[${x}]) < $GLB ? $gw >= 0 : ($gw >= $GEB && $gw < $GBS) || ($gw >= $GM1 && $gw < $GM2))`;
const readersOk = (a: string, x: string) => `(($gr = ${a}$GR[${x}]) < $GLB || ($gr >= $GEB && $gr < $GBS) || ($gr >= $GM2 && $gr < $GM3)) && ${a}$GXN[0] === 0`;
/** The same for a parameter the kernel never reads: no reader load when no read parameter shares its memory. */
const unreadOk = (a: string, x: string) => `(${a}$GNR || ($gr = ${a}$GR[${x}]) < $GLB || ($gr >= $GEB && $gr < $GBS) || ($gr >= $GM2 && $gr < $GM3)) && ${a}$GXN[0] === 0`;

/**
 * A read of a global element: pushes its checks to `pre` and returns the flat index to read at (a
 * temporary where the checks use it more than once), or undefined when the array is not tracked.
 */
export function globalRead(cx: EmitContext, a: ArrayInfo, flat: string, site: number, pre: string[], temp: (flat: string, pre: string[]) => string): string | undefined {
  const m = mode(cx, a);
  if (!m) return undefined;
  const s = site; // below the runtime's site slots, which are sized from the module's site table
  if (m === "call") {
    pre.push(`rt.races.r(${a.data}, ${flat}, $t, ${s})`);
    return flat;
  }
  inlineUsed(cx);
  const x = temp(flat, pre);
  const d = a.data;
  const writer = `(${readOk(`${d}$GW`, x)} || $G.rs(${d}$GH, ${x}, $t, ${s}))`;
  const reader = `(($gr = ${d}$GR[${x}]) >= $GE ? ($gr < $GE1 || ($gr >= $GM2 && $gr < $GM3) || ((${d}$GR[${x}] = $GE + ${s}), true)) : (${ordered("$gr")}) ? ((${d}$GR[${x}] = $GM2 + ${s}), true) : $G.rr(${d}$GH, ${x}, $t, ${s}))`;
  pre.push(readOnlyGuard(cx, a, `${writer} && ${reader}`));
  return x;
}

/**
 * A kernel's write of a global element: the statement (checks, value into `$sv`, the sanitizer, the
 * store), or undefined when the array is not tracked inline. `write(x)` stores `$sv` at x; `changed(x)` says whether it
 * changes the element (a same-value write after a plain write is not a race).
 */
export function globalWrite(cx: EmitContext, a: ArrayInfo, flat: string, site: number, checks: string[], value: string, temp: (flat: string, pre: string[]) => string, write: (x: string) => string, changed: (x: string) => string): string | undefined {
  if (mode(cx, a) !== "inline") return undefined;
  const s = site; // below the runtime's site slots, which are sized from the module's site table
  const pre = checks.length ? `${checks.join(", ")}; ` : "";
  inlineUsed(cx);
  const idx: string[] = [];
  const x = temp(flat, idx);
  const d = a.data;
  const writeOnly = tracked.get(cx)?.get(d)?.writeOnly === true;
  const fast = `${writerOk(`${d}$GW`, x)} && ${writeOnly ? unreadOk(d, x) : readersOk(d, x)}`;
  const clearReader = writeOnly ? `if (!${d}$GNR && $gr !== 0) ${d}$GR[${x}] = 0;` : `if ($gr !== 0) ${d}$GR[${x}] = 0;`;
  return `{ ${pre}${idx.length ? `${idx.join(", ")}; ` : ""}const $sv = ${value}; if (${fast}) { ${d}$GW[${x}] = $GM1 + ${s}; ${clearReader} } else $G.ws(${d}$GH, ${x}, $t, ${s}, ${changed(x)}); ${write(x)}; }`;
}

/** A device function's write of an array parameter (the runtime looks the storage up): the call and a `;`, or "". */
export function globalWriteCall(cx: EmitContext, a: ArrayInfo, flat: string, site: number, changed: string): string {
  return mode(cx, a) === "call" ? `rt.races.w(${a.data}, ${flat}, $t, ${site}, ${changed}); ` : "";
}

/** An atomic on a global element: pushes its checks (and release/acquire) to `pre`; returns the flat index, or undefined. */
export function globalAtomic(cx: EmitContext, a: ArrayInfo, flat: string, site: number, pre: string[], temp: (flat: string, pre: string[]) => string): string | undefined {
  const m = mode(cx, a);
  if (!m) return undefined;
  const s = site; // below the runtime's site slots, which are sized from the module's site table
  if (m === "call") {
    pre.push(`rt.races.a(${a.data}, ${flat}, $t, ${s})`);
    return flat;
  }
  inlineUsed(cx);
  const x = temp(flat, pre);
  const d = a.data;
  // Reads never race with atomics (see GlobalRaces): only the last plain write is checked.
  pre.push(`(${readOk(`${d}$GW`, x)} ? (${d}$GW[${x}] = -($GM1 + ${s})) : $G.as(${d}$GH, ${x}, $t, ${s}))`);
  pre.push(`($G.F !== 0 && $G.sa(${d}$GH, ${x}, $t))`);
  return x;
}

/** `cuda.threadfence()` (device or system scope) under the sanitizer: a release; undefined otherwise. */
export function globalFence(cx: EmitContext, name: string): string | undefined {
  if (!cx.san || (name !== "threadfence" && name !== "threadfenceSystem")) return undefined;
  // In a kernel the fence advances the epoch: reload the bounds and this thread's bands (a statement).
  return cx.mode === "device" ? "rt.races.fence($t)" : `$G.fence($t); ${GLOBAL_REFRESH} ${GLOBAL_THREAD.replace(/;$/, "")}`;
}
