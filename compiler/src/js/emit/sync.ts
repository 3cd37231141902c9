/**
 * Synchronisations of a fission kernel, between its thread loops: barriers (with the sanitizer's
 * divergence and epoch bookkeeping), the block-wide reductions of syncthreads_count/and/or, grid sync
 * (cooperative.ts), and warp operations warp by warp over the values every active lane supplied
 * (lockstep semantics; test/simulator/sync-semantics.test.ts holds them to compiler/src/intrinsics/sync.ts).
 * `syncCode` is moved here whole from the former single-file emitter (the intrinsic registry replaces
 * its warp and barrier cases), so its body is kept as it was.
 */
import type * as IR from "../../ir/nodes";
import { isFloat, type ScalarType } from "../../ir/types";
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
    const lines: string[] = [];
    switch (s.name) {
      case "gridSync":
        lines.push(gridSyncCode(site, san, resumeCode(this.sharedVars(), san)));
        break;
      case "syncthreads":
        if (san) lines.push(it.masked ? `$S.barrier($sites[${site}], $st, $nT);` : "$S.sync();", SAN_REFRESH);
        break;
      case "syncthreadsCount":
      case "syncthreadsAnd":
      case "syncthreadsOr": {
        const p = this.argAt(s.args[0]!, "$u");
        lines.push("{ let $c = 0, $n = 0;", `for (let $u = 0; $u < $nT; $u++) if ($st[$u] === 0) { $n++; if (${p}) $c++; }`);
        const r = s.name === "syncthreadsCount" ? "$c" : s.name === "syncthreadsAnd" ? "($c === $n ? 1 : 0)" : "($c > 0 ? 1 : 0)";
        lines.push(`const $res = ${r};`);
        if (san) lines.push(it.masked ? `$S.barrier($sites[${site}], $st, $nT);` : "$S.sync();", SAN_REFRESH);
        if (s.result && this.perThread.has(s.result)) lines.push(`for (let $u = 0; $u < $nT; $u++) if ($st[$u] === 0) ${this.setResult(s, "$u", "$res")}`);
        else lines.push(this.setResult(s, "$u", "$res"));
        lines.push("}");
        break;
      }
      default: {
        // Warp operations: warp by warp over the values every active lane supplied.
        lines.push("for (let $w = 0; $w < $nT; $w += 32) {");
        lines.push("const $e = $w + 32 < $nT ? $w + 32 : $nT;");
        lines.push("let $am = 0;");
        lines.push("for (let $u = $w; $u < $e; $u++) if ($st[$u] === 0) $am |= 1 << ($u - $w);");
        lines.push("if ($am === 0) continue;");
        if (s.name !== "activemask") {
          const mask = this.argAt(s.args[0]!, "$u");
          if (san) lines.push(`for (let $u = $w; $u < $e; $u++) if ($st[$u] === 0) $S.warpMask($sites[${site}], $w, $e, $am, ${mask}, $u);`);
        }
        if (san) lines.push("$S.warpSync($w);");
        const lane = "$u - $w";
        switch (s.name) {
          case "syncwarp":
          case "activemask":
            if (s.name === "activemask") lines.push(`for (let $u = $w; $u < $e; $u++) if ($st[$u] === 0) ${this.setResult(s, "$u", "($am >>> 0)")}`);
            break;
          case "shflSync":
          case "shflUpSync":
          case "shflDownSync":
          case "shflXorSync": {
            const v = (i: string) => this.argAt(s.args[1]!, i);
            const x = this.argAt(s.args[2]!, "$u");
            const src = s.name === "shflSync" ? `(${x}) & 31` : s.name === "shflUpSync" ? `${lane} - (${x})` : s.name === "shflDownSync" ? `${lane} + (${x})` : `${lane} ^ (${x})`;
            lines.push(`for (let $u = $w; $u < $e; $u++) if ($st[$u] === 0) { const $s = ${src}; const $q = $w + $s; ${this.setResult(s, "$u", `($s >= 0 && $s < 32 && $q < $e && (($am >>> $s) & 1) !== 0 ? ${v("$q")} : ${v("$u")})`)} }`);
            break;
          }
          case "ballotSync":
          case "allSync":
          case "anySync":
          case "eqSync": {
            const p = this.argAt(s.args[1]!, "$u");
            const mask = this.argAt(s.args[0]!, "$u");
            lines.push(`let $bal = 0; for (let $u = $w; $u < $e; $u++) if ($st[$u] === 0 && ${p}) $bal |= 1 << (${lane});`);
            const allTrue = `((($am & ${mask}) & ~$bal) === 0)`;
            const r =
              s.name === "ballotSync" ? `(($bal & ${mask}) >>> 0)`
              : s.name === "anySync" ? `(($bal & ${mask}) !== 0)`
              : s.name === "eqSync" ? `(${allTrue} || ($bal & ${mask}) === 0)`
              : allTrue;
            lines.push(`for (let $u = $w; $u < $e; $u++) if ($st[$u] === 0) ${this.setResult(s, "$u", r)}`);
            break;
          }
          case "matchAnySync":
          case "matchAllSync": {
            // CUDA compares bit patterns: for floats rt.sameBits (-0 is not 0, a NaN matches the same NaN), else ===.
            const v = (i: string) => this.argAt(s.args[1]!, i);
            const float = isFloat((s.args[1]!.type as ScalarType).dtype);
            const same = float ? `rt.sameBits(${v("$q")}, ${v("$u")})` : `${v("$q")} === ${v("$u")}`;
            const mask = this.argAt(s.args[0]!, "$u");
            const peer = "$st[$q] === 0 && (($m >>> ($q - $w)) & 1) !== 0";
            lines.push(`for (let $u = $w; $u < $e; $u++) if ($st[$u] === 0) { const $m = ${mask};`);
            if (s.name === "matchAnySync") lines.push(`let $r = 0; for (let $q = $w; $q < $e; $q++) if (${peer} && ${same}) $r |= 1 << ($q - $w);`);
            // match.all: the lanes of the mask that take part (PTX: "the non-exited threads in membermask")
            // when they all have the same value, else 0.
            else lines.push(`let $r = ($m & $am) >>> 0; for (let $q = $w; $q < $e; $q++) if (${peer} && !(${same})) { $r = 0; break; }`);
            lines.push(`${this.setResult(s, "$u", "($r >>> 0)")} }`);
            break;
          }
          default:
            throw new Error(`CudaScript simulator: unknown synchronisation ${s.name}`);
        }
        lines.push("}");
        if (san) lines.push(SAN_REFRESH);
        break;
      }
    }
    return lines.join("\n");
  }
}
