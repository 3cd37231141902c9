/**
 * The editor's model of a `cudascript profile --format json` report (docs/profiling.md; the shape of
 * issue 34): parsing it with messages that say what is wrong, the per-line cost behind the heat column,
 * the worst lines with their advice, and the plain view data the results panel's webview renders.
 * Imports nothing (the webview bundles it too), so it is unit-tested in Node.
 */

/** Counters of a launch's totals or of one source line; every field optional (a line has only its own). */
export interface ProfileCounters {
  readonly globalLoadRequests?: number;
  readonly globalLoadSectors?: number;
  readonly globalStoreRequests?: number;
  readonly globalStoreSectors?: number;
  readonly sharedLoadRequests?: number;
  readonly sharedLoadWavefronts?: number;
  readonly sharedStoreRequests?: number;
  readonly sharedStoreWavefronts?: number;
  readonly branches?: number;
  readonly divergentBranches?: number;
  readonly globalAtomicRequests?: number;
  readonly sharedAtomicRequests?: number;
  /** Other numeric counters the profiler adds are shown as they are. */
  readonly [other: string]: unknown;
}

export interface ProfileLine extends ProfileCounters {
  readonly file: string;
  readonly line: number;
  /** What to do about this line, when the profiler has advice for it. */
  readonly advice?: unknown;
}

export interface ProfileLaunch {
  readonly kernel: string;
  readonly grid: readonly number[];
  readonly block: readonly number[];
  readonly totals: ProfileCounters;
  readonly lines: readonly ProfileLine[];
  /** Derived figures (sectors per request, branch efficiency, …), when the profiler computes them. */
  readonly derived?: Readonly<Record<string, unknown>>;
  /** The roofline estimate for a chosen GPU, when the profiler makes one. */
  readonly roofline?: Readonly<Record<string, unknown>>;
  readonly advice?: unknown;
}

export interface ProfileReport {
  readonly version: number;
  readonly launches: readonly ProfileLaunch[];
}

/** A report that cannot be shown, and why, in words a user acts on. */
export interface ProfileProblem {
  readonly problem: string;
}

/** The counters a person reads, in Nsight Compute's order, with their labels. */
export const COUNTER_LABELS: readonly (readonly [key: string, label: string])[] = [
  ["globalLoadRequests", "global load requests"],
  ["globalLoadSectors", "global load sectors"],
  ["globalStoreRequests", "global store requests"],
  ["globalStoreSectors", "global store sectors"],
  ["globalAtomicRequests", "global atomic requests"],
  ["sharedLoadRequests", "shared load requests"],
  ["sharedLoadWavefronts", "shared load wavefronts"],
  ["sharedStoreRequests", "shared store requests"],
  ["sharedStoreWavefronts", "shared store wavefronts"],
  ["sharedAtomicRequests", "shared atomic requests"],
  ["branches", "branches"],
  ["divergentBranches", "divergent branches"],
];
const LABEL = new Map(COUNTER_LABELS);
const NOT_COUNTERS = new Set(["file", "line", "column", "endLine", "endColumn", "advice", "source", "text", "kernel", "severity"]);

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** "globalLoadSectors" → "global load sectors"; a known counter's own label. */
export function counterLabel(key: string): string {
  return LABEL.get(key) ?? key.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
}

/**
 * The numeric counters of a totals or line record: the known ones in their order (zeros too, unless
 * `skipZeros`: a line shows what it did), then the others the profiler adds (ideal sectors, lanes,
 * FLOPs, contention), those only when not zero.
 */
export function counterEntries(c: ProfileCounters, skipZeros = false): [key: string, value: number][] {
  const out: [string, number][] = [];
  for (const [k] of COUNTER_LABELS) if (typeof c[k] === "number" && (!skipZeros || c[k] !== 0)) out.push([k, c[k] as number]);
  for (const [k, v] of Object.entries(c)) if (!LABEL.has(k) && !NOT_COUNTERS.has(k) && typeof v === "number" && Number.isFinite(v) && v !== 0) out.push([k, v]);
  return out;
}

// ---------------------------------------------------------------- parsing

/** Parses the profiler's JSON; a problem names what is missing or wrong. */
export function parseProfile(text: string): ProfileReport | ProfileProblem {
  if (!text.trim()) return { problem: "the profiler wrote an empty file (it stopped before the end of the program)" };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { problem: `the profile is not JSON (${err instanceof Error ? err.message : String(err)})` };
  }
  if (!isRecord(json)) return { problem: "the profile is not a JSON object with \"version\" and \"launches\"" };
  if (json.version !== 1) return { problem: `this editor reads profile version 1, and the file says version ${JSON.stringify(json.version)}: update the CudaScript extension or the cudascript package so they match` };
  if (!Array.isArray(json.launches)) return { problem: "the profile has no \"launches\" list" };
  const launches: ProfileLaunch[] = [];
  for (const [i, l] of json.launches.entries()) {
    if (!isRecord(l) || typeof l.kernel !== "string") return { problem: `launch ${i + 1} of the profile has no kernel name` };
    const lines = Array.isArray(l.lines) ? l.lines.filter((x): x is ProfileLine => isRecord(x) && typeof x.file === "string" && typeof x.line === "number" && x.line >= 1) : [];
    launches.push({
      ...(l as object),
      kernel: l.kernel,
      grid: Array.isArray(l.grid) ? l.grid.map(num) : [],
      block: Array.isArray(l.block) ? l.block.map(num) : [],
      totals: isRecord(l.totals) ? (l.totals as ProfileCounters) : {},
      lines,
    } as ProfileLaunch);
  }
  return { version: 1, launches };
}

export function isProblem(r: unknown): r is ProfileProblem {
  return isRecord(r) && typeof r.problem === "string";
}

// ---------------------------------------------------------------- cost of a line

/**
 * Sectors a 32-lane request of 4-byte elements needs at best (128 bytes / 32), used when the profile
 * does not say: the profiler gives the exact ideal for the active lanes and the access width
 * (`idealGlobalLoadSectors`, `idealGlobalStoreSectors`), or a line its `idealSectorsPerRequest`.
 */
export const IDEAL_SECTORS_PER_REQUEST = 4;

/** One kind of memory access of a line: its requests, the sectors (global) or wavefronts (shared) they took, the fewest they could have. */
export interface AccessCost {
  readonly kind: "global load" | "global store" | "shared load" | "shared store";
  readonly requests: number;
  readonly units: number;
  readonly ideal: number;
  /** units − ideal: extra sectors (strided, misaligned or scattered accesses) or bank conflicts. */
  readonly excess: number;
}

/** What makes a line slow, in extra memory transactions or extra passes, and the figures behind it. */
export interface LineCost {
  readonly accesses: AccessCost[];
  /** Global sectors beyond the ideal, loads and stores. */
  readonly excessSectors: number;
  readonly sectors: number;
  /** Shared-memory wavefronts beyond one per request: bank conflicts. */
  readonly bankConflicts: number;
  readonly divergentBranches: number;
  readonly branches: number;
  /** Excess sectors + bank conflicts + divergent branches (each an extra transaction or pass): lineScore's fallback. */
  readonly total: number;
}

export function lineCost(c: ProfileCounters): LineCost {
  const perRequest = typeof c.idealSectorsPerRequest === "number" && c.idealSectorsPerRequest > 0 ? c.idealSectorsPerRequest : IDEAL_SECTORS_PER_REQUEST;
  const access = (kind: AccessCost["kind"], requests: unknown, units: unknown, ideal: number): AccessCost => ({ kind, requests: num(requests), units: num(units), ideal, excess: Math.max(0, num(units) - ideal) });
  const globalIdeal = (exact: unknown, requests: unknown) => (typeof exact === "number" ? exact : Math.ceil(perRequest * num(requests)));
  const accesses = [
    access("global load", c.globalLoadRequests, c.globalLoadSectors, globalIdeal(c.idealGlobalLoadSectors, c.globalLoadRequests)),
    access("global store", c.globalStoreRequests, c.globalStoreSectors, globalIdeal(c.idealGlobalStoreSectors, c.globalStoreRequests)),
    access("shared load", c.sharedLoadRequests, c.sharedLoadWavefronts, num(c.sharedLoadRequests)),
    access("shared store", c.sharedStoreRequests, c.sharedStoreWavefronts, num(c.sharedStoreRequests)),
  ].filter((a) => a.requests > 0);
  const sum = (pick: (a: AccessCost) => boolean, f: (a: AccessCost) => number) => accesses.filter(pick).reduce((n, a) => n + f(a), 0);
  const isGlobal = (a: AccessCost) => a.kind.startsWith("global");
  const excessSectors = sum(isGlobal, (a) => a.excess);
  const bankConflicts = sum((a) => !isGlobal(a), (a) => a.excess);
  const divergentBranches = num(c.divergentBranches);
  return {
    accesses,
    excessSectors,
    sectors: sum(isGlobal, (a) => a.units),
    bankConflicts,
    divergentBranches,
    branches: num(c.branches),
    total: excessSectors + bankConflicts + divergentBranches,
  };
}

/** The metrics the heat column can colour by (Nsight Compute's source view has the same choice). */
export const HEAT_METRICS = [
  { id: "total", label: "Cost (as the profiler ranks lines)" },
  { id: "excessSectors", label: "Excess global sectors" },
  { id: "bankConflicts", label: "Shared bank conflicts" },
  { id: "divergentBranches", label: "Divergent branches" },
  { id: "sectors", label: "Global sectors" },
] as const;
export type HeatMetric = (typeof HEAT_METRICS)[number]["id"];

/** Heat level 0 (nothing) … 5 (the line with the most): colour classes, the same in the panel and the editor. */
export const HEAT_LEVELS = 5;
export function heatLevel(value: number, max: number): number {
  if (!(value > 0) || !(max > 0)) return 0;
  return Math.max(1, Math.min(HEAT_LEVELS, Math.ceil((value / max) * HEAT_LEVELS)));
}

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
const fixed = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(1));

/**
 * What is wrong with a line, in figures, per kind of access: "global stores: 32 sectors per request,
 * ideal 4 (896 extra sectors)", "shared loads: 32 wavefronts per request, ideal 1 (992 bank
 * conflicts)", "8 divergent branches of 40"; "" when nothing is.
 */
export function costSummary(cost: LineCost): string {
  const parts: string[] = [];
  for (const a of cost.accesses) {
    if (a.excess <= 0) continue;
    const shared = a.kind.startsWith("shared");
    parts.push(`${a.kind}s: ${fixed(a.units / a.requests)} ${shared ? "wavefronts" : "sectors"} per request, ideal ${fixed(a.ideal / a.requests)} (${plural(a.excess, shared ? "bank conflict" : "extra sector")})`);
  }
  if (cost.divergentBranches > 0) parts.push(`${plural(cost.divergentBranches, "divergent branch", "divergent branches")} of ${cost.branches.toLocaleString("en-US")}`);
  return parts.join("; ");
}

/** The advice the profiler gives, as text lines: a string, a list of strings, or records with `text`/`message`. */
export function adviceText(advice: unknown): string[] {
  if (typeof advice === "string") return advice.trim() ? [advice.trim()] : [];
  if (Array.isArray(advice)) return advice.flatMap(adviceText);
  if (isRecord(advice)) return adviceText(advice.text ?? advice.message ?? advice.advice);
  return [];
}

// ---------------------------------------------------------------- lines summed over launches

/** A source line's counters summed over every launch that ran it, with its advice. */
export interface LineProfile {
  readonly file: string;
  readonly line: number;
  readonly kernels: string[];
  readonly counters: Record<string, number>;
  readonly advice: string[];
  /** The profiler's rank of the line (`severity`: bytes wasted), summed over launches, when it gives one. */
  severity?: number;
}

/**
 * How costly a line is, one number: the profiler's `severity` (the bytes it wastes: excess sectors × 32,
 * excess wavefronts × 4, divergent branches, serialised atomic lanes; docs/profiling.md), so the editor
 * ranks lines as `cudascript profile` does; for a profile without it, excess sectors + bank conflicts +
 * divergent branches. The heat column's default and the order of the worst lines.
 */
export function lineScore(lp: LineProfile): number {
  return lp.severity ?? lineCost(lp.counters).total;
}

/** Per file (as the profile names it), per line: the counters of every launch added up. */
export function linesByFile(report: ProfileReport): Map<string, Map<number, LineProfile>> {
  const files = new Map<string, Map<number, LineProfile>>();
  const add = (file: string, line: number, kernel: string): LineProfile => {
    let lines = files.get(file);
    if (!lines) files.set(file, (lines = new Map()));
    let lp = lines.get(line);
    if (!lp) lines.set(line, (lp = { file, line, kernels: [], counters: {}, advice: [] }));
    if (!lp.kernels.includes(kernel)) lp.kernels.push(kernel);
    return lp;
  };
  for (const launch of report.launches) {
    for (const l of launch.lines) {
      const lp = add(l.file, l.line, launch.kernel);
      for (const [k, v] of counterEntries(l)) lp.counters[k] = (lp.counters[k] ?? 0) + v;
      if (typeof l.severity === "number" && Number.isFinite(l.severity)) lp.severity = (lp.severity ?? 0) + l.severity;
      for (const a of adviceText(l.advice)) if (!lp.advice.includes(a)) lp.advice.push(a);
    }
    // advice given per launch, pointing at a line
    if (Array.isArray(launch.advice))
      for (const a of launch.advice)
        if (isRecord(a) && typeof a.file === "string" && typeof a.line === "number") {
          const lp = add(a.file, a.line, launch.kernel);
          for (const t of adviceText(a)) if (!lp.advice.includes(t)) lp.advice.push(t);
        }
  }
  return files;
}

// ---------------------------------------------------------------- derived figures

export interface Figure {
  readonly label: string;
  readonly value: string;
}

/** A launch's derived figures: the profiler's when it gives them, else the ratios of its totals. */
export function derivedFigures(launch: ProfileLaunch): Figure[] {
  if (launch.derived && isRecord(launch.derived) && Object.keys(launch.derived).length) {
    return Object.entries(launch.derived).flatMap(([k, v]) => {
      // a fraction named an efficiency reads as a percentage; the roofline estimate has its own chart
      if (typeof v === "number" && Number.isFinite(v)) return [{ label: counterLabel(k), value: /efficiency/i.test(k) && v >= 0 && v <= 1 ? `${formatNumber(100 * v)} %` : formatNumber(v) }];
      if (typeof v === "string") return [{ label: counterLabel(k), value: v }];
      if (isRecord(v) && typeof v.value === "number") return [{ label: typeof v.label === "string" ? v.label : counterLabel(k), value: `${formatNumber(v.value)}${typeof v.ideal === "number" ? ` (ideal ${formatNumber(v.ideal)})` : ""}${typeof v.unit === "string" ? ` ${v.unit}` : ""}` }];
      return [];
    });
  }
  const t = launch.totals;
  const out: Figure[] = [];
  const ratio = (a: unknown, b: unknown) => (num(b) > 0 ? num(a) / num(b) : undefined);
  const spr = (label: string, s: unknown, r: unknown) => {
    const v = ratio(s, r);
    if (v !== undefined) out.push({ label, value: `${formatNumber(v)} (ideal ${IDEAL_SECTORS_PER_REQUEST} for 4-byte elements)` });
  };
  spr("sectors per global load request", t.globalLoadSectors, t.globalLoadRequests);
  spr("sectors per global store request", t.globalStoreSectors, t.globalStoreRequests);
  const shared = ratio(num(t.sharedLoadWavefronts) + num(t.sharedStoreWavefronts), num(t.sharedLoadRequests) + num(t.sharedStoreRequests));
  if (shared !== undefined) out.push({ label: "bank-conflict factor (wavefronts per shared request)", value: formatNumber(shared) });
  if (num(t.branches) > 0) out.push({ label: "branch efficiency", value: `${formatNumber(100 * (1 - num(t.divergentBranches) / num(t.branches)))} %` });
  return out;
}

export function formatNumber(v: number): string {
  if (Number.isInteger(v)) return v.toLocaleString("en-US");
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-3 || a >= 1e9)) return v.toExponential(2);
  return String(Number(v.toPrecision(4)));
}
