/**
 * Synchronisations of a fission kernel, between its thread loops: barriers (with the sanitizer's
 * divergence and epoch bookkeeping), the block-wide reductions of syncthreads_count/and/or, grid sync
 * (cooperative.ts), and warp operations warp by warp over the values every active lane supplied
 * (lockstep semantics; test/simulator/sync-semantics.test.ts holds them to compiler/src/intrinsics/sync.ts).
 * What each barrier returns and each warp operation computes is its intrinsic record's (`jsBarrier`,
 * `jsWarp`, compiler/src/intrinsics/); this file is the loops around them and the sanitizer's hooks.
 */
import type * as IR from "../../ir/nodes";
import type { ScalarType } from "../../ir/types";
import { intrinsicRecord } from "../../intrinsics";
import type { SyncStmt } from "../normalize";
import { gridSyncCode, resumeCode } from "../cooperative";
import { SAN_REFRESH, type EmitContext, type SyncItem } from "./context";
import { literal } from "./values";

/** The synchronisations of one fission kernel, and the per-thread storage they read and write. */
export class SyncEmitter {
  constructor(private readonly cx: EmitContext) {}

  private get san(): boolean {
    return this.cx.san;
  }
  private get perThread(): ReadonlySet<IR.Var> {
    return this.cx.perThread;
  }

  /** The module-level shared-array variables known so far (a cooperative block restores them after a barrier). */
  sharedVars(): string[] {
    return [...this.cx.me.sharedNames.values()].map((s) => s.js);
  }

  /** A synchronisation operand as lane `idx` supplied it (per-thread storage, or the one block-level value). */
  private argAt(a: IR.Expr, idx: string): string {
    if (a.k === "const") return literal(a.value, (a.type as ScalarType).dtype);
    if (a.k !== "var") throw new Error("CudaScript simulator: internal error (non-trivial synchronisation argument)");
    if (this.cx.perThread.has(a.v)) return this.cx.loadVar(a.v, idx);
    return this.cx.vn(a.v);
  }

  /** Stores a synchronisation's result for lane `idx`. */
  private setResult(s: SyncStmt, idx: string, value: string): string {
    const r = s.result;
    if (!r) return "";
    if (this.cx.perThread.has(r)) return this.cx.storeVar(r, idx, value);
    return `${this.cx.vn(r)} = ${value};`;
  }

  syncCode(it: SyncItem): string {
    const s = it.s;
    const site = it.site;
    const san = this.san;
    const record = intrinsicRecord(s.name);
    const lines: string[] = [];
    const barrierSanitizer = () => lines.push(it.masked ? `$S.barrier($sites[${site}], $st, $nT); $G.barrier($st, $nT);` : "$S.sync(); $G.sync();", SAN_REFRESH);
    if (record.effect === "grid") lines.push(gridSyncCode(site, san, resumeCode(this.sharedVars(), san)));
    else if (record.effect === "barrier" && !record.jsBarrier) {
      if (san) barrierSanitizer();
    } else if (record.effect === "barrier") {
      // syncthreads_count/and/or: the predicate of every thread that reached the barrier, reduced once.
      const p = this.argAt(s.args[0]!, "$u");
      lines.push("{ let $c = 0, $n = 0;", `for (let $u = 0; $u < $nT; $u++) if ($st[$u] === 0) { $n++; if (${p}) $c++; }`);
      lines.push(`const $res = ${record.jsBarrier};`);
      if (san) barrierSanitizer();
      if (s.result && this.perThread.has(s.result)) lines.push(`for (let $u = 0; $u < $nT; $u++) if ($st[$u] === 0) ${this.setResult(s, "$u", "$res")}`);
      else lines.push(this.setResult(s, "$u", "$res"));
      lines.push("}");
    } else if (record.jsWarp) {
      // Warp operations: warp by warp over the values every active lane supplied.
      lines.push("for (let $w = 0; $w < $nT; $w += 32) {");
      lines.push("const $e = $w + 32 < $nT ? $w + 32 : $nT;");
      lines.push("let $am = 0;");
      lines.push("for (let $u = $w; $u < $e; $u++) if ($st[$u] === 0) $am |= 1 << ($u - $w);");
      lines.push("if ($am === 0) continue;");
      // The sanitizer checks the mask argument every warp operation but activemask has.
      if (record.signatures?.[0]?.params[0]?.name === "mask") {
        const mask = this.argAt(s.args[0]!, "$u");
        if (san) lines.push(`for (let $u = $w; $u < $e; $u++) if ($st[$u] === 0) $S.warpMask($sites[${site}], $w, $e, $am, ${mask}, $u);`);
      }
      if (san) lines.push("$S.warpSync($w); $G.warpSync($w);");
      lines.push(
        ...record.jsWarp({
          arg: (i, u) => this.argAt(s.args[i]!, u),
          result: (u, value) => this.setResult(s, u, value),
          argDTypes: s.args.map((a) => (a.type.kind === "scalar" ? a.type.dtype : "i32")),
        }),
      );
      lines.push("}");
      if (san) lines.push(SAN_REFRESH);
    } else throw new Error(`CudaScript simulator: unknown synchronisation ${s.name}`);
    return lines.join("\n");
  }
}
