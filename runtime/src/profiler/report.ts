/**
 * The profile report: its JSON shape (a contract other tools read — keep the names, add fields freely;
 * docs/profiling.md) and how one launch's counters (counters.ts) become its entry: totals, per source
 * line, derived figures (derived.ts) and advice (advice.ts).
 */
import * as fs from "node:fs";
import type { LaunchCounters, ProfileSite, SiteTotals } from "./counters";
import { derivedFigures, type DerivedFigures } from "./derived";
import { adviceFor } from "./advice";

/** The counters of a launch or of a source line. */
export interface ProfileCounters {
  globalLoadRequests: number;
  globalLoadSectors: number;
  globalStoreRequests: number;
  globalStoreSectors: number;
  sharedLoadRequests: number;
  sharedLoadWavefronts: number;
  sharedStoreRequests: number;
  sharedStoreWavefronts: number;
  branches: number;
  divergentBranches: number;
  globalAtomicRequests: number;
  globalAtomicSectors: number;
  sharedAtomicRequests: number;
  sharedAtomicWavefronts: number;
  /** The fewest sectors the load / store requests' active lanes could have touched (ceil(lanes · bytes / 32) each). */
  idealGlobalLoadSectors: number;
  idealGlobalStoreSectors: number;
  /** Active lanes summed over the requests of each kind (lanes per request = lanes / requests). */
  globalLoadLanes: number;
  globalStoreLanes: number;
  sharedLoadLanes: number;
  sharedStoreLanes: number;
  globalAtomicLanes: number;
  sharedAtomicLanes: number;
  branchLanes: number;
  /** Atomics: the most lanes of one request updating one address (1 = no contention), and its sum over requests. */
  atomicMaxContention: number;
  atomicContentionSum: number;
  /** Floating-point + - * / executed by threads: f32 and f16, and f64. */
  flopsSingle: number;
  flopsDouble: number;
}

export interface ProfileLine extends ProfileCounters {
  readonly file: string;
  readonly line: number;
  /** The source text of the line's worst access or condition, when the file could be read. */
  text?: string;
  /** What to do, worst first (advice.ts); empty when nothing stands out. */
  advice: string[];
  /** Wasted work that ranks lines (excess sectors, excess wavefronts, divergent branches; advice.ts). */
  severity: number;
  derived: DerivedFigures;
}

export interface LaunchProfile {
  readonly kernel: string;
  readonly grid: readonly [number, number, number];
  readonly block: readonly [number, number, number];
  readonly totals: ProfileCounters;
  /** Source lines with counted work, worst first. */
  readonly lines: ProfileLine[];
  readonly derived: DerivedFigures;
}

export interface ProfileReport {
  readonly version: 1;
  /** What the estimate's figures are for (derived.ts): the GPU picked with --gpu, else the default. */
  readonly gpu: string;
  readonly launches: LaunchProfile[];
}

export function zeroCounters(): ProfileCounters {
  return {
    globalLoadRequests: 0,
    globalLoadSectors: 0,
    globalStoreRequests: 0,
    globalStoreSectors: 0,
    sharedLoadRequests: 0,
    sharedLoadWavefronts: 0,
    sharedStoreRequests: 0,
    sharedStoreWavefronts: 0,
    branches: 0,
    divergentBranches: 0,
    globalAtomicRequests: 0,
    globalAtomicSectors: 0,
    sharedAtomicRequests: 0,
    sharedAtomicWavefronts: 0,
    idealGlobalLoadSectors: 0,
    idealGlobalStoreSectors: 0,
    globalLoadLanes: 0,
    globalStoreLanes: 0,
    sharedLoadLanes: 0,
    sharedStoreLanes: 0,
    globalAtomicLanes: 0,
    sharedAtomicLanes: 0,
    branchLanes: 0,
    atomicMaxContention: 0,
    atomicContentionSum: 0,
    flopsSingle: 0,
    flopsDouble: 0,
  };
}

/** The counters a site's totals go to, by the site's kind (its units: sectors, wavefronts or divergent branches). */
type CounterName = keyof ProfileCounters;
const COUNTERS_OF: Record<string, { requests: CounterName; units: CounterName; lanes: CounterName; ideal?: CounterName; atomic?: true }> = {
  gld: { requests: "globalLoadRequests", units: "globalLoadSectors", lanes: "globalLoadLanes", ideal: "idealGlobalLoadSectors" },
  gst: { requests: "globalStoreRequests", units: "globalStoreSectors", lanes: "globalStoreLanes", ideal: "idealGlobalStoreSectors" },
  sld: { requests: "sharedLoadRequests", units: "sharedLoadWavefronts", lanes: "sharedLoadLanes" },
  sst: { requests: "sharedStoreRequests", units: "sharedStoreWavefronts", lanes: "sharedStoreLanes" },
  gatom: { requests: "globalAtomicRequests", units: "globalAtomicSectors", lanes: "globalAtomicLanes", atomic: true },
  satom: { requests: "sharedAtomicRequests", units: "sharedAtomicWavefronts", lanes: "sharedAtomicLanes", atomic: true },
  br: { requests: "branches", units: "divergentBranches", lanes: "branchLanes" },
};

/** Adds one site's totals to a set of counters. */
function addSite(c: ProfileCounters, kind: string, t: SiteTotals): void {
  const f = COUNTERS_OF[kind];
  if (!f) return;
  c[f.requests] += t.requests;
  c[f.units] += t.units;
  c[f.lanes] += t.lanes;
  if (f.ideal) c[f.ideal] += t.ideal;
  if (f.atomic) {
    c.atomicContentionSum += t.contentionSum;
    c.atomicMaxContention = Math.max(c.atomicMaxContention, t.contentionMax);
  }
}

const sourceCache = new Map<string, string | null>();
function sourceText(file: string, start: number, end: number): string | undefined {
  let text = sourceCache.get(file);
  if (text === undefined) {
    try {
      text = fs.readFileSync(file, "utf8");
    } catch {
      text = null;
    }
    sourceCache.set(file, text);
  }
  if (text === null || end <= start || end > text.length) return undefined;
  const t = text.slice(start, end).replace(/\s+/g, " ");
  return t.length > 60 ? `${t.slice(0, 57)}...` : t;
}

/** One launch's entry of the report. */
export function launchProfile(kernel: string, grid: readonly [number, number, number], block: readonly [number, number, number], c: LaunchCounters, gpu: string): LaunchProfile {
  const totals = zeroCounters();
  const lines = new Map<string, { file: string; line: number; counters: ProfileCounters; sites: { site: ProfileSite; totals: SiteTotals }[] }>();
  // A source site emitted more than once (a kernel body's copy without bounds checks, a piece's range
  // loop) is one site of the report: its copies' totals are added up before the advice reads them.
  const merged = new Map<string, { site: ProfileSite; totals: SiteTotals }>();
  c.sites.forEach((site, i) => {
    const t = c.totals[i]!;
    if (t.requests === 0) return;
    addSite(totals, site.kind, t);
    const key = `${site.file}:${site.line}`;
    let l = lines.get(key);
    if (!l) lines.set(key, (l = { file: site.file, line: site.line, counters: zeroCounters(), sites: [] }));
    addSite(l.counters, site.kind, t);
    const same = `${site.kind}:${site.file}:${site.start}:${site.end}:${site.what ?? ""}:${site.op ?? ""}`;
    const m = merged.get(same);
    if (!m) {
      const entry = { site, totals: { ...t } };
      merged.set(same, entry);
      l.sites.push(entry);
      return;
    }
    const a = m.totals;
    a.requests += t.requests;
    a.units += t.units;
    a.lanes += t.lanes;
    a.ideal += t.ideal;
    a.contentionSum += t.contentionSum;
    a.contentionMax = Math.max(a.contentionMax, t.contentionMax);
  });
  totals.flopsSingle = c.flopsSingle;
  totals.flopsDouble = c.flopsDouble;
  const out: ProfileLine[] = [];
  for (const l of lines.values()) {
    const advice = adviceFor(
      l.counters,
      l.sites.map(({ site, totals }) => ({ site, totals, text: sourceText(site.file, site.start, site.end) })),
    );
    out.push({ file: l.file, line: l.line, ...l.counters, ...(advice.text ? { text: advice.text } : {}), advice: advice.messages, severity: advice.severity, derived: derivedFigures(l.counters) });
  }
  out.sort((a, b) => b.severity - a.severity || a.file.localeCompare(b.file) || a.line - b.line);
  return { kernel, grid: [...grid] as [number, number, number], block: [...block] as [number, number, number], totals, lines: out, derived: derivedFigures(totals, gpu) };
}
