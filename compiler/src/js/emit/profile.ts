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
 *   flat)` in device functions; `$P.s|sa(site, $t, data, flat)` for shared memory. The k-th call of a
 *   site by a thread forms, with the k-th calls of the other lanes of its warp, one request;
 * - `$P.b(site, $t, cond)` around a per-thread condition (returns it);
 * - `$P.u(site)` at a block-level (block-uniform) condition: one non-divergent branch per warp;
 * - `$P.block()` at the start of every block (the previous block's requests are complete).
 */
import type * as IR from "../../ir/nodes";
import { DTYPES } from "../../dtypes/table";
import type { ArrayInfo } from "./arrays";
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
}

/** The module's profile sites (ModuleEmitter.profile when emitting the profiling variant). */
export class ProfileSites {
  readonly sites: ProfileSite[] = [];
  /** The branch site of each per-thread condition, by the condition's span (fission's range pieces look it up). */
  readonly branchOf = new WeakMap<IR.Span, number>();
  /** Per kernel emission: the global arrays whose modelled base address its setup computes once (`<data>$pb`). */
  readonly bases = new WeakMap<EmitContext, Set<string>>();
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
export function profileAccess(cx: EmitContext, kind: "read" | "write" | "atomic", a: ArrayInfo, flat: string, span: IR.Span, op?: string): string | undefined {
  const ps = sites(cx);
  if (!ps || a.record || cx.flatGrid) return undefined;
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
    return `$P.g${atomic}(${site}, $t, ${a.data}$pb, ${flat})`;
  }
  // One small hook per kind (V8 keeps each monomorphic): s shared load/store, sa shared atomic.
  return `$P.${k === "satom" ? "sa" : "s"}(${site}, $t, ${a.data}, ${flat})`;
}

/** A per-thread condition with its hook (the same value). */
export function profileBranch(cx: EmitContext, cond: string, span: IR.Span, what: NonNullable<ProfileSite["what"]>): string {
  const ps = sites(cx);
  if (!ps || cx.flatGrid) return cond;
  const site = ps.add({ kind: "br", ...spanOf(span), what });
  ps.branchOf.set(span, site);
  return `$P.b(${site}, $t, ${cond})`;
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
  if (!sites(cx)) return js;
  return `(${dtype === "f64" ? "$fd" : "$fl"}++, ${js})`;
}

/** Lines at the start of a kernel function (the launch's counters) and of every block. */
export function profileKernelSetup(cx: EmitContext): string[] {
  const ps = sites(cx);
  if (!ps) return [];
  const bases = [...(ps.bases.get(cx) ?? [])].map((d) => `const ${d}$pb = $P.addr(${d});`);
  return ["$P = L.profile; $P.begin($psites, $nT); $fl = 0; $fd = 0;", ...bases];
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
  const site = ps.branchOf.get(cond.span);
  if (site === undefined || cx.threadsLeave) return undefined;
  return `$P.bulk(${site}, $lo, $hi, $bdx);`;
}
