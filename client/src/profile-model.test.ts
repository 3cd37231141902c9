import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { adviceText, costSummary, counterEntries, derivedFigures, heatLevel, isProblem, lineCost, lineScore, linesByFile, parseProfile, type ProfileReport } from "./profile-model";
import { rooflineOf, rooflinePlot } from "./profile-roofline";
import { buildProfileView, lineHoverMarkdown } from "./profile-view";

/** The hand-written profile of test/e2e/workspace/transpose.ts (the shape of issue 34), also the e2e fixture. */
const WORKSPACE = path.join(__dirname, "..", "..", "test", "e2e", "workspace");
const FIXTURE = fs.readFileSync(path.join(WORKSPACE, "transpose.profile.json"), "utf8");
const SOURCE = fs.readFileSync(path.join(WORKSPACE, "transpose.ts"), "utf8");

function fixture(): ProfileReport {
  const r = parseProfile(FIXTURE);
  assert.ok(!isProblem(r), JSON.stringify(r));
  return r as ProfileReport;
}

test("a line's cost: the naive transpose's store strides by n — 32 sectors per request where 4 would do", () => {
  // without the profiler's exact ideal: 4 sectors per request. 32 warps of a 32×32 block; each warp's load a[y*n + x] touches 128 contiguous bytes (4 sectors), its
  // store out[x*n + y] 32 words 128 bytes apart (32 sectors): (128 + 1024) sectors for 64 requests, ideal 4 each
  const c = lineCost({ globalLoadRequests: 32, globalLoadSectors: 128, globalStoreRequests: 32, globalStoreSectors: 1024 });
  assert.equal(c.sectors, 1152);
  assert.equal(c.excessSectors, 1152 - 4 * 64);
  assert.equal(c.bankConflicts, 0);
  assert.equal(c.total, 896);
  assert.equal(costSummary(c), "global stores: 32 sectors per request, ideal 4 (896 extra sectors)", "the coalesced load is not blamed");
});

test("a line's cost: a column read of a [32][32] shared tile — 32 wavefronts per request, 31 conflicts each", () => {
  const c = lineCost({ sharedLoadRequests: 32, sharedLoadWavefronts: 1024, globalStoreRequests: 32, globalStoreSectors: 128 });
  assert.equal(c.bankConflicts, 1024 - 32);
  assert.equal(c.excessSectors, 0, "the coalesced store wastes nothing");
  assert.equal(c.total, 992);
  assert.equal(costSummary(c), "shared loads: 32 wavefronts per request, ideal 1 (992 bank conflicts)");
});

test("a line's cost: the profiler's exact ideal sectors (partial warps, 8-byte elements) win over 4 per request", () => {
  // 10 requests of 8 active lanes reading f64: ideal 2 sectors each
  const c = lineCost({ globalLoadRequests: 10, globalLoadSectors: 40, idealGlobalLoadSectors: 20 });
  assert.equal(c.excessSectors, 20);
  assert.equal(costSummary(c), "global loads: 4 sectors per request, ideal 2 (20 extra sectors)");
});

test("a line's cost: divergent branches count, a line may name its own ideal, and nothing wasted says nothing", () => {
  const d = lineCost({ branches: 40, divergentBranches: 8 });
  assert.equal(d.total, 8);
  assert.equal(costSummary(d), "8 divergent branches of 40");
  // 8-byte elements: 8 sectors per full-warp request is ideal
  const wide = lineCost({ globalLoadRequests: 10, globalLoadSectors: 80, idealSectorsPerRequest: 8 });
  assert.equal(wide.excessSectors, 0);
  assert.equal(costSummary(lineCost({ globalLoadRequests: 32, globalLoadSectors: 128, branches: 32 })), "");
});

test("heat levels: 0 for nothing, 5 for the costliest line, proportional between", () => {
  assert.equal(heatLevel(0, 100), 0);
  assert.equal(heatLevel(5, 0), 0);
  assert.equal(heatLevel(100, 100), 5);
  assert.equal(heatLevel(1, 100), 1, "any cost shows");
  assert.equal(heatLevel(50, 100), 3);
  assert.equal(heatLevel(61, 100), 4);
});

test("parsing: bad inputs become one clear sentence each", () => {
  assert.match((parseProfile("") as { problem: string }).problem, /empty file/);
  assert.match((parseProfile("{not json") as { problem: string }).problem, /not JSON/);
  assert.match((parseProfile("[1]") as { problem: string }).problem, /not a JSON object/);
  assert.match((parseProfile('{"version": 2, "launches": []}') as { problem: string }).problem, /reads profile version 1.*version 2/);
  assert.match((parseProfile('{"version": 1}') as { problem: string }).problem, /no "launches"/);
  assert.match((parseProfile('{"version": 1, "launches": [{"grid": []}]}') as { problem: string }).problem, /launch 1 .* no kernel name/);
  // lines without a file or a line number are left out, not drawn wrong
  const r = parseProfile('{"version": 1, "launches": [{"kernel": "k", "totals": {}, "lines": [{"line": 3}, {"file": "a.ts", "line": 0}, {"file": "a.ts", "line": 2, "branches": 1}]}]}') as ProfileReport;
  assert.deepEqual(r.launches[0]!.lines.map((l) => l.line), [2]);
});

test("counters: known ones in Nsight's order, then the ones the profiler adds; lines summed over launches with their advice once", () => {
  const c = { branches: 2, globalLoadSectors: 4, divergentBranches: 0, flopsSingle: 3, flopsDouble: 0, severity: 9, file: "x", line: 1 };
  assert.deepEqual(counterEntries(c), [
    ["globalLoadSectors", 4],
    ["branches", 2],
    ["divergentBranches", 0],
    ["flopsSingle", 3],
  ]);
  assert.deepEqual(counterEntries(c, true), [
    ["globalLoadSectors", 4],
    ["branches", 2],
    ["flopsSingle", 3],
  ]);
  const twice: ProfileReport = {
    version: 1,
    launches: [1, 2].map(() => ({ kernel: "k", grid: [1], block: [32], totals: {}, lines: [{ file: "a.ts", line: 5, globalStoreRequests: 1, globalStoreSectors: 32, advice: ["stage it"] }] })),
  };
  const lp = linesByFile(twice).get("a.ts")!.get(5)!;
  assert.deepEqual(lp.counters, { globalStoreRequests: 2, globalStoreSectors: 64 });
  // no severity from the profiler: the line's excess sectors (2 × (32 − 4))
  assert.equal(lp.severity, undefined);
  assert.equal(lineScore(lp), 56);
  const ranked: ProfileReport = { version: 1, launches: [7, 9].map((severity) => ({ kernel: "k", grid: [1], block: [32], totals: {}, lines: [{ file: "a.ts", line: 5, globalStoreRequests: 1, globalStoreSectors: 32, severity }] })) };
  assert.equal(lineScore(linesByFile(ranked).get("a.ts")!.get(5)!), 16, "the profiler's severity, summed over launches");
  assert.deepEqual(lp.advice, ["stage it"]);
  assert.deepEqual(adviceText([{ text: "a" }, "b", { message: "c" }, 3]), ["a", "b", "c"]);
});

test("derived figures: the profiler's when given (nulls left out, efficiencies as percentages), else the ratios of the totals", () => {
  const r = fixture();
  const naive = derivedFigures(r.launches[0]!);
  assert.deepEqual(
    naive.filter((f) => /store sectors|efficiency|intensity|shared load conflict/.test(f.label)),
    [
      { label: "store sectors per request", value: "32" },
      { label: "ideal store sectors per request", value: "4" },
      { label: "branch efficiency", value: "100 %" },
      { label: "arithmetic intensity", value: "0" },
    ],
  );
  const { derived: _, ...bare } = r.launches[1]!;
  const tiled = derivedFigures(bare);
  assert.deepEqual(tiled, [
    { label: "sectors per global load request", value: "4 (ideal 4 for 4-byte elements)" },
    { label: "sectors per global store request", value: "4 (ideal 4 for 4-byte elements)" },
    // (1024 + 32) wavefronts for 64 shared requests
    { label: "bank-conflict factor (wavefronts per shared request)", value: "16.5" },
    { label: "branch efficiency", value: "100 %" },
  ]);
});

test("the view of the transpose profile: heat on the strided store and the conflicting column read, ranked as the profiler ranks them (bytes wasted), with advice", () => {
  const view = buildProfileView(fixture(), (file) => (file === "transpose.ts" ? { path: "/ws/transpose.ts", text: SOURCE } : undefined));
  assert.equal(view.launches.length, 2);
  assert.equal(view.launches[0]!.dims, "1 × 32×32");
  assert.deepEqual(view.launches[0]!.totals.find((t) => t.label === "global store sectors"), { label: "global store sectors", value: "1,024" });
  const file = view.files[0]!;
  assert.equal(file.path, "/ws/transpose.ts");
  // lines 11..33 (13..31 profiled, 2 of context each side; the file has 33 lines with its final newline)
  assert.equal(file.lines[0]!.n, 11);
  const line = (n: number) => file.lines.find((l) => l.n === n)!;
  assert.match(line(14).text, /out\[x \* n \+ y\] = a\[y \* n \+ x\]/);
  assert.equal(line(14).metrics!.excessSectors, 896);
  assert.equal(line(31).metrics!.bankConflicts, 992);
  assert.equal(line(13).metrics!.total, 0);
  assert.deepEqual(line(12).counters, [], "an unprofiled line has no counters");
  // the profiler's severity: 896 excess sectors × 32 bytes; 992 excess wavefronts × 4 bytes
  assert.deepEqual(
    view.worst.map((w) => [w.line, w.cost]),
    [
      [14, 28672],
      [31, 3968],
    ],
  );
  assert.equal(line(14).metrics!.total, 28672);
  assert.match(view.worst[0]!.advice[0]!, /strides by n .*stage through a shared tile/);
  assert.equal(view.worst[0]!.text, "out[x * n + y] = a[y * n + x];");
  assert.equal(view.note, undefined);
});

test("the view without sources lists the counts by line number, and a clean profile says so", () => {
  const view = buildProfileView(fixture(), () => undefined);
  assert.match(view.files[0]!.missing!, /transpose\.ts was not found/);
  assert.deepEqual(view.files[0]!.lines.map((l) => l.n), [13, 14, 28, 31]);
  const clean = buildProfileView({ version: 1, launches: [{ kernel: "k", grid: [1], block: [32], totals: {}, lines: [{ file: "a.ts", line: 1, globalLoadRequests: 1, globalLoadSectors: 4 }] }] }, () => undefined);
  assert.deepEqual(clean.worst, []);
  assert.match(clean.note!, /every access is coalesced/);
  const totalsOnly = buildProfileView({ version: 1, launches: [{ kernel: "k", grid: [1], block: [32], totals: { branches: 1 }, lines: [] }] }, () => undefined);
  assert.match(totalsOnly.note!, /no per-line counts/);
});

test("the hover of a profiled line: its counters, what is wrong, the advice", () => {
  const lp = linesByFile(fixture()).get("transpose.ts")!.get(14)!;
  const md = lineHoverMarkdown(lp);
  assert.match(md, /`transposeNaive`/);
  assert.match(md, /\| global store sectors \| 1,024 \|/);
  assert.match(md, /\*\*Cost:\*\* global stores: 32 sectors per request, ideal 4 \(896 extra sectors\)/);
  assert.match(md, /\*\*What to do:\*\* 32 sectors per request, ideal 4: the store `out\[x \* n \+ y\]` strides by n/);
});

test("the roofline: read from the profile's estimate, placed on log-log axes", () => {
  // 1555 GB/s, 19.5 TFLOP/s: the ridge at 19500 / 1555 ≈ 12.54 FLOP/byte
  const r = rooflineOf({ roofline: { gpu: "A100", memoryBandwidthGBs: 1555, peakGflops: 19500, arithmeticIntensity: 0.25 } })!;
  assert.equal(r.attainableGflops, 1555 * 0.25);
  assert.equal(r.bound, "memory");
  const p = rooflinePlot(r);
  assert.ok(Math.abs(p.ridge.intensity - 19500 / 1555) < 1e-9);
  // the point lies on the slope: left of the ridge and below the flat roof
  assert.ok(p.point.x < p.ridge.x && p.point.y > p.ridge.y);
  assert.ok(p.point.x > p.area.x && p.point.x < p.area.x + p.area.width && p.point.y > p.area.y && p.point.y < p.area.y + p.area.height);
  assert.deepEqual(p.xTicks.map((t) => t.label), ["0.01", "0.1", "1", "10", "100"]);
  // compute-bound above the ridge; bytes per second and FLOP/s spelled out are read too
  const c = rooflineOf({ roofline: { gpu: { name: "H100" }, bandwidth: 3.35e12, peakFlops: 6.7e13, arithmeticIntensity: 100 } })!;
  assert.equal(c.gpu, "H100");
  assert.equal(c.bound, "compute");
  assert.equal(c.attainableGflops, 67000);
  // a transpose does no floating-point work: memory-bound, drawn at the left edge
  const t = rooflineOf(fixture().launches[0]!)!;
  assert.equal(t.intensity, 0);
  assert.equal(t.bound, "memory");
  assert.equal(t.time, "≥ 0.024 µs");
  assert.equal(t.gpu, "A100 SXM4 40GB");
  assert.match(t.label!, /^estimate from the counts/);
  assert.equal(rooflinePlot(t).point.x, rooflinePlot(t).area.x);
  assert.equal(rooflineOf({ roofline: { gpu: "x" } }), undefined, "not enough to draw");
  assert.equal(rooflineOf({}), undefined);
});
