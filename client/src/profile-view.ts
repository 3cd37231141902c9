/**
 * What the results panel shows of a profile, as plain data (posted to the webview, which only draws it):
 * per launch its totals, derived figures and roofline; per source file the profiled region with each
 * line's counters and cost (the heat column); the worst lines first with their advice. Imports nothing
 * of the editor: unit-tested in Node.
 */
import {
  costSummary,
  counterEntries,
  counterLabel,
  derivedFigures,
  formatNumber,
  HEAT_METRICS,
  lineCost,
  lineScore,
  linesByFile,
  type Figure,
  type HeatMetric,
  type LineProfile,
  type ProfileLaunch,
  type ProfileReport,
} from "./profile-model";
import { rooflineOf, rooflinePlot, type Roofline, type RooflinePlot } from "./profile-roofline";

export interface LaunchView {
  readonly kernel: string;
  readonly dims: string;
  readonly totals: Figure[];
  readonly derived: Figure[];
  readonly roofline?: { readonly estimate: Roofline; readonly plot: RooflinePlot };
}

export interface SourceLineView {
  /** 1-based line number. */
  readonly n: number;
  readonly text: string;
  /** Counters of the line (summed over launches), labelled; empty for a line the profile did not count. */
  readonly counters: Figure[];
  readonly metrics?: Readonly<Record<HeatMetric, number>>;
  readonly summary?: string;
  readonly advice?: string[];
}

export interface FileView {
  /** As the profile names it. */
  readonly file: string;
  /** The file on disk, when found (the panel's links open it). */
  readonly path?: string;
  /** Why the source is not shown (not found), when it is not. */
  readonly missing?: string;
  readonly lines: SourceLineView[];
}

export interface WorstLine {
  readonly file: string;
  readonly path?: string;
  readonly line: number;
  readonly text: string;
  readonly cost: number;
  readonly summary: string;
  readonly advice: string[];
}

export interface ProfileView {
  readonly launches: LaunchView[];
  readonly files: FileView[];
  readonly worst: WorstLine[];
  readonly metrics: typeof HEAT_METRICS;
  /** A note for the whole profile (no per-line counts, …). */
  readonly note?: string;
}

/** A file's text by the name the profile gives it, resolved by the caller (on disk, an open editor). */
export type SourceReader = (file: string) => { readonly path: string; readonly text: string } | undefined;

/** Lines of context shown around the profiled region of a file. */
const CONTEXT = 2;
/** The worst lines listed. */
const WORST = 8;

const dims = (d: readonly number[]) => (d.length === 0 ? "?" : d.filter((x, i) => i === 0 || x !== 1).join("×"));

function launchView(l: ProfileLaunch): LaunchView {
  const totals = counterEntries(l.totals).map(([k, v]) => ({ label: counterLabel(k), value: formatNumber(v) }));
  const estimate = rooflineOf(l);
  return { kernel: l.kernel, dims: `${dims(l.grid)} × ${dims(l.block)}`, totals, derived: derivedFigures(l), ...(estimate ? { roofline: { estimate, plot: rooflinePlot(estimate) } } : {}) };
}

function lineView(n: number, text: string, lp: LineProfile | undefined): SourceLineView {
  if (!lp) return { n, text, counters: [] };
  const cost = lineCost(lp.counters);
  return {
    n,
    text,
    counters: counterEntries(lp.counters, true).map(([k, v]) => ({ label: counterLabel(k), value: formatNumber(v) })),
    metrics: { total: lineScore(lp), excessSectors: cost.excessSectors, bankConflicts: cost.bankConflicts, divergentBranches: cost.divergentBranches, sectors: cost.sectors },
    summary: costSummary(cost),
    advice: lp.advice,
  };
}

export function buildProfileView(report: ProfileReport, read: SourceReader): ProfileView {
  const launches = report.launches.map(launchView);
  const files: FileView[] = [];
  const worst: WorstLine[] = [];
  for (const [file, lines] of linesByFile(report)) {
    const source = read(file);
    const numbers = [...lines.keys()].sort((a, b) => a - b);
    const text = source?.text.split(/\r?\n/);
    if (text) {
      const from = Math.max(1, numbers[0]! - CONTEXT);
      const to = Math.min(text.length, numbers[numbers.length - 1]! + CONTEXT);
      const view: SourceLineView[] = [];
      for (let n = from; n <= to; n++) view.push(lineView(n, text[n - 1] ?? "", lines.get(n)));
      files.push({ file, path: source!.path, lines: view });
    } else {
      files.push({ file, missing: `the source of ${file} was not found: the counts are listed by line number`, lines: numbers.map((n) => lineView(n, "", lines.get(n))) });
    }
    for (const lp of lines.values()) {
      const cost = lineCost(lp.counters);
      const score = lineScore(lp);
      if (score <= 0 && cost.total <= 0 && !lp.advice.length) continue;
      worst.push({ file, ...(source ? { path: source.path } : {}), line: lp.line, text: (text?.[lp.line - 1] ?? "").trim(), cost: score, summary: costSummary(cost), advice: lp.advice });
    }
  }
  worst.sort((a, b) => b.cost - a.cost || a.file.localeCompare(b.file) || a.line - b.line);
  const anyLines = report.launches.some((l) => l.lines.length > 0);
  const note = !anyLines ? "The profile has totals but no per-line counts." : worst.length === 0 ? "No line wastes memory transactions or diverges: every access is coalesced, no bank conflicts, no divergent branches." : undefined;
  return { launches, files, worst: worst.slice(0, WORST), metrics: HEAT_METRICS, ...(note ? { note } : {}) };
}

/** Markdown for an editor hover on a profiled line: its counters, what is wrong and the advice. */
export function lineHoverMarkdown(lp: LineProfile): string {
  const cost = lineCost(lp.counters);
  const rows = counterEntries(lp.counters, true).map(([k, v]) => `| ${counterLabel(k)} | ${formatNumber(v)} |`);
  // what is wrong and what to do first (a hover shows its top without scrolling), then the counters
  const out = [`**CudaScript profile** · ${lp.kernels.map((k) => `\`${k}\``).join(", ")} (simulator counts, all launches)`];
  const summary = costSummary(cost);
  if (summary) out.push("", `**Cost:** ${summary}`);
  for (const a of lp.advice) out.push("", `**What to do:** ${a}`);
  out.push("", "| counter | value |", "|---|---:|", ...rows);
  return out.join("\n");
}
