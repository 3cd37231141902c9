/**
 * The profile report as text for a person (`cudascript profile`'s default format): per launch, the
 * counters with their derived figures, the estimate (labelled as one), then the worst lines first with
 * what to do (advice.ts).
 */
import * as path from "node:path";
import type { LaunchProfile, ProfileReport } from "./report";

/** Launches printed in full; the rest are summed up in one line (the JSON has them all). */
const MAX_LAUNCHES = 8;
/** Lines with advice printed per launch. */
const MAX_LINES = 5;

const n = (x: number): string => x.toLocaleString("en-US");
const f1 = (x: number | null): string => (x === null ? "-" : Number.isInteger(x) ? String(x) : x.toFixed(2));

function bytes(b: number): string {
  if (b < 1e3) return `${b} B`;
  if (b < 1e6) return `${(b / 1e3).toFixed(1)} kB`;
  if (b < 1e9) return `${(b / 1e6).toFixed(1)} MB`;
  return `${(b / 1e9).toFixed(2)} GB`;
}

function seconds(s: number): string {
  if (s < 1e-6) return `${(s * 1e9).toFixed(1)} ns`;
  if (s < 1e-3) return `${(s * 1e6).toFixed(2)} µs`;
  if (s < 1) return `${(s * 1e3).toFixed(2)} ms`;
  return `${s.toFixed(2)} s`;
}

function where(file: string, line: number, cwd: string): string {
  const rel = path.isAbsolute(file) ? path.relative(cwd, file) : file;
  return `${rel && !rel.startsWith("..") ? rel : file}:${line}`;
}

export function formatLaunch(l: LaunchProfile, cwd: string): string[] {
  const t = l.totals, d = l.derived;
  const out: string[] = [`${l.kernel}  grid [${l.grid.join(", ")}]  block [${l.block.join(", ")}]`];
  const row = (label: string, text: string) => out.push(`  ${label.padEnd(16)}${text}`);
  if (t.globalLoadRequests) row("global loads", `${n(t.globalLoadRequests)} requests, ${n(t.globalLoadSectors)} sectors (${f1(d.loadSectorsPerRequest)} per request, ideal ${f1(d.idealLoadSectorsPerRequest)})`);
  if (t.globalStoreRequests) row("global stores", `${n(t.globalStoreRequests)} requests, ${n(t.globalStoreSectors)} sectors (${f1(d.storeSectorsPerRequest)} per request, ideal ${f1(d.idealStoreSectorsPerRequest)})`);
  if (t.globalAtomicRequests) row("global atomics", `${n(t.globalAtomicRequests)} requests, ${n(t.globalAtomicSectors)} sectors, up to ${t.atomicMaxContention} lanes per address`);
  if (t.sharedLoadRequests) row("shared loads", `${n(t.sharedLoadRequests)} requests, ${n(t.sharedLoadWavefronts)} wavefronts (${f1(d.sharedLoadConflictFactor)} per request)`);
  if (t.sharedStoreRequests) row("shared stores", `${n(t.sharedStoreRequests)} requests, ${n(t.sharedStoreWavefronts)} wavefronts (${f1(d.sharedStoreConflictFactor)} per request)`);
  if (t.sharedAtomicRequests) row("shared atomics", `${n(t.sharedAtomicRequests)} requests, ${n(t.sharedAtomicWavefronts)} wavefronts`);
  if (t.sharedLoadRequests + t.sharedStoreRequests + t.sharedAtomicRequests) row("bank conflicts", n(d.sharedBankConflicts));
  row("branches", `${n(t.branches)}, ${n(t.divergentBranches)} divergent${d.branchEfficiency === null ? "" : ` (efficiency ${(100 * d.branchEfficiency).toFixed(1)}%)`}`);
  if (d.lanesPerGlobalRequest !== null) row("lanes/request", `${f1(d.lanesPerGlobalRequest)} global${d.lanesPerSharedRequest === null ? "" : `, ${f1(d.lanesPerSharedRequest)} shared`}`);
  row("moved", `${bytes(d.bytesMoved)} to/from global memory, ${n(d.flops)} FLOPs${d.arithmeticIntensity === null ? "" : `, ${d.arithmeticIntensity.toFixed(3)} FLOP/byte`}`);
  const e = d.estimate;
  if (e)
    row(
      "estimate",
      `${e.gpuName}: ${e.boundBy}-bound, at least ${seconds(e.lowerBoundSeconds)} (${(e.bandwidthBytesPerSecond / 1e9).toFixed(0)} GB/s, ${(e.peakFlopsPerSecond / 1e12).toFixed(1)} TFLOP/s peak; ridge ${e.ridgePoint.toFixed(1)} FLOP/byte) — an estimate from the counts: no caches, latency or clocks`,
    );
  const worst = l.lines.filter((x) => x.advice.length > 0).slice(0, MAX_LINES);
  if (worst.length) {
    out.push("  worst lines:");
    for (const x of worst) {
      out.push(`    ${where(x.file, x.line, cwd)}`);
      for (const a of x.advice) out.push(`      ${a}`);
    }
  } else out.push("  no line stands out: coalesced, conflict-free and convergent as counted");
  return out;
}

export function formatProfileText(report: ProfileReport, cwd = process.cwd()): string {
  if (report.launches.length === 0) return "cudascript profile: the program launched no kernel\n";
  const out: string[] = [];
  report.launches.slice(0, MAX_LAUNCHES).forEach((l, i) => {
    if (i) out.push("");
    out.push(...formatLaunch(l, cwd));
  });
  const rest = report.launches.length - MAX_LAUNCHES;
  if (rest > 0) out.push("", `… and ${rest} more launch${rest === 1 ? "" : "es"} (all of them: --format json)`);
  return `${out.join("\n")}\n`;
}
