/**
 * What to do about a profiled line: one sentence per problem its counters show, worst first, with the
 * source text of the access or condition — the same text `cudascript profile` prints and the editor
 * shows (`lines[].advice` in the JSON). Also the line's severity, which ranks lines: the work wasted
 * — excess global sectors, excess shared wavefronts, divergent branches and serialised atomic lanes.
 */
import type { ProfileSite, SiteTotals } from "./counters";
import type { ProfileCounters } from "./report";

export interface SiteOfLine {
  readonly site: ProfileSite;
  readonly totals: SiteTotals;
  readonly text: string | undefined;
}

export interface LineAdvice {
  readonly messages: string[];
  readonly severity: number;
  /** The text of the worst site. */
  readonly text?: string;
}

/** Divergent executions of a condition below this share are not reported (the tail of a tree reduction). */
const MIN_DIVERGENT_SHARE = 0.2;

const fmt = (x: number): string => (Number.isInteger(x) ? String(x) : x.toFixed(1));

/** Advice for one line from its sites (counters.ts totals) and their source text. */
export function adviceFor(_line: ProfileCounters, sites: readonly SiteOfLine[]): LineAdvice {
  const found: { waste: number; message: string; text?: string }[] = [];
  for (const { site, totals: t, text } of sites) {
    if (t.requests === 0) continue;
    const quoted = text ? ` \`${text}\`` : "";
    switch (site.kind) {
      case "gld":
      case "gst": {
        const what = site.kind === "gld" ? "load" : "store";
        const per = t.units / t.requests, ideal = t.ideal / t.requests;
        if (t.units <= t.ideal * 1.05) break;
        const lanes = t.lanes / t.requests;
        let why: string;
        if (per >= lanes * 0.9 && lanes > 1)
          why = `each lane of a warp touches its own 32-byte sector: the index strides across rows, so consecutive threads (threadIdx.x) do not access consecutive elements; make threadIdx.x the fastest-varying index${site.kind === "gst" ? ", or stage through a shared tile (a transpose)" : ", or load a tile through shared memory"}`;
        else if (per - ideal <= 1.05)
          why = "the warp's elements straddle one more 32-byte boundary than needed: the accesses are not aligned (an offset such as `i + 1`, or rows not a multiple of 8 four-byte elements); align the start or pad the rows";
        else why = `the lanes' addresses are spread out (a stride of about ${fmt(per / Math.max(ideal, 1))} elements): have consecutive threads access consecutive elements`;
        found.push({ waste: (t.units - t.ideal) * 32, message: `${fmt(per)} sectors per request, ideal ${fmt(ideal)}: the ${what}${quoted} — ${why}`, text });
        break;
      }
      case "sld":
      case "sst": {
        const per = t.units / t.requests;
        if (per <= 1.001) break;
        const what = site.kind === "sld" ? "read" : "write";
        found.push({
          waste: (t.units - t.requests) * 4,
          message: `${fmt(per)}-way bank conflict (${fmt(per)} wavefronts per request): the shared ${what}${quoted} has lanes on different words of the same bank; pad the array's rows by one element (e.g. [32][33]), or index so consecutive lanes use consecutive words`,
          text,
        });
        break;
      }
      case "gatom":
      case "satom": {
        const mean = t.contentionSum / t.requests;
        if (mean <= 1.001) break;
        found.push({
          waste: (t.contentionSum - t.requests) * 2,
          message: `up to ${t.contentionMax} lanes of a warp update the same address (mean ${fmt(mean)} per request): the atomic${quoted} serialises them; combine in the warp (shflDownSync) or in shared memory first, then do one atomic per warp or block`,
          text,
        });
        break;
      }
      case "br": {
        // A few divergent executions are the tail of a tree (the last warp of a reduction, one thread
        // writing a block's result): worth a line only when a fifth or more of them diverge.
        const share = t.units / t.requests;
        if (t.units === 0 || share < MIN_DIVERGENT_SHARE) break;
        const fix = text && /%/.test(text)
          ? "select the working threads by a contiguous range instead of a remainder (sequential addressing: `t < s` with `tile[t] += tile[t + s]`), so whole warps take the same side"
          : "arrange the work so the condition changes at multiples of 32 threads, so whole warps take the same side";
        found.push({
          waste: t.units * 8,
          message: `${fmt(100 * share)}% of this ${site.what ?? "condition"}'s warp-level executions diverge (${t.units} of ${t.requests}):${quoted} the lanes of a warp disagree, so the warp runs both paths; ${fix}`,
          text,
        });
        break;
      }
    }
  }
  found.sort((a, b) => b.waste - a.waste);
  return { messages: found.map((f) => f.message), severity: found.reduce((s, f) => s + f.waste, 0), ...(found[0]?.text ? { text: found[0].text } : {}) };
}
