/**
 * `cudascript profile` end to end (the real build and run path, in child processes) and
 * CUDASCRIPT_PROFILE under tsx: the JSON contract's names, the text report's worst line, and the
 * profiler's error codes. Counts are those of examples/transpose.ts, worked out in its comments: 8×8
 * blocks of 32×32 threads = 2,048 warps; the naive store touches 32 sectors per warp (65,536), the
 * tiled kernel's column read of a [32][32] tile 32 wavefronts per warp (65,536), the padded one 1.
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, it } from "node:test";
import { REPO } from "../simulator/helpers";
import type { ProfileReport } from "cudascript";

const CLI = path.join(REPO, "runtime", "dist", "cli", "main.js");
const env = { ...process.env, CUDASCRIPT_BACKEND: "", CUDASCRIPT_PROFILE: "", NO_COLOR: "1" };
function cli(args: string[]) {
  return spawnSync(process.execPath, [CLI, "profile", ...args], { cwd: REPO, encoding: "utf8", timeout: 180_000, env });
}

function checkTranspose(report: ProfileReport): void {
  assert.equal(report.version, 1);
  assert.deepEqual(
    report.launches.map((l) => l.kernel),
    ["transposeNaive", "transposeTiled", "transposePadded"],
  );
  const [naive, tiled, padded] = report.launches;
  assert.deepEqual([naive!.grid, naive!.block], [[8, 8, 1], [32, 32, 1]]);
  const keys = ["globalLoadRequests", "globalLoadSectors", "globalStoreRequests", "globalStoreSectors", "sharedLoadRequests", "sharedLoadWavefronts", "sharedStoreRequests", "sharedStoreWavefronts", "branches", "divergentBranches"];
  for (const k of keys) assert.equal(typeof (naive!.totals as unknown as Record<string, unknown>)[k], "number", k);
  assert.deepEqual([naive!.totals.globalStoreRequests, naive!.totals.globalStoreSectors, naive!.totals.globalLoadSectors], [2048, 65536, 8192]);
  assert.deepEqual([tiled!.totals.sharedLoadRequests, tiled!.totals.sharedLoadWavefronts], [2048, 65536]);
  assert.deepEqual([padded!.totals.sharedLoadWavefronts, padded!.derived.sharedBankConflicts], [2048, 0]);
  const worst = naive!.lines[0]!;
  assert.equal(path.basename(worst.file), "transpose.ts");
  assert.equal(worst.globalStoreSectors, 65536);
  assert.match(worst.advice[0]!, /^32 sectors per request, ideal 4: the store `out\[x\]\[y\]`/);
}

describe("cudascript profile", () => {
  it("--format json: the report alone on stdout (the program's output on stderr)", () => {
    const r = cli(["--format", "json", "examples/transpose.ts"]);
    assert.equal(r.status, 0, r.stderr);
    checkTranspose(JSON.parse(r.stdout) as ProfileReport);
    assert.match(r.stderr, /all three transposes are correct/);
  });

  it("text: per launch the counts, the estimate, and the worst lines with what to do; -o writes the JSON", () => {
    const r = cli(["--gpu", "h100", "examples/transpose.ts"]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /transposeNaive {2}grid \[8, 8, 1\] {2}block \[32, 32, 1\]/);
    assert.match(r.stdout, /global stores +2,048 requests, 65,536 sectors \(32 per request, ideal 4\)/);
    assert.match(r.stdout, /estimate +H100 SXM5: memory-bound, at least .* an estimate from the counts/);
    assert.match(r.stdout, /worst lines:\n {4}examples\/transpose\.ts:20\n {6}32 sectors per request, ideal 4: the store `out\[x\]\[y\]`/);
    assert.match(r.stdout, /32-way bank conflict/);
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "cs-prof-")), "p.json");
    const o = cli(["--format", "json", "-o", out, "examples/transpose.ts"]);
    assert.equal(o.status, 0, o.stderr);
    checkTranspose(JSON.parse(fs.readFileSync(out, "utf8")) as ProfileReport);
  });

  it("refuses an unknown GPU (CSR090), the GPU backend (CSR091) and an unwritable -o (CSR093)", () => {
    const g = cli(["--gpu", "b9000", "examples/transpose.ts"]);
    assert.equal(g.status, 2);
    assert.match(g.stderr, /CSR090: --gpu b9000: .*a100/);
    const b = cli(["--backend", "gpu", "examples/transpose.ts"]);
    assert.equal(b.status, 2);
    assert.match(b.stderr, /CSR091/);
    const o = cli(["--format", "json", "-o", "/nonexistent-dir/p.json", "examples/transpose.ts"]);
    assert.equal(o.status, 1);
    assert.match(o.stderr, /CSR093: -o \/nonexistent-dir\/p.json/);
  });

  it("a program that launches no kernel: an empty report, the program's exit code", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cs-prof-"));
    const file = path.join(dir, "nothing.ts");
    fs.writeFileSync(file, 'console.log("no kernel here");\n');
    const t = cli([file]);
    assert.equal(t.status, 0, t.stderr);
    assert.match(t.stdout, /no kernel here/);
    assert.match(t.stdout, /the program launched no kernel/);
    const j = cli(["--format", "json", file]);
    assert.equal(j.status, 0, j.stderr);
    assert.deepEqual((JSON.parse(j.stdout) as ProfileReport).launches, []);
  });

  it("CUDASCRIPT_PROFILE=out-%p.json under tsx (kernels compiled from source at their first launch)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cs-prof-"));
    const tsx = path.join(REPO, "node_modules", ".bin", "tsx");
    const r = spawnSync(tsx, ["examples/transpose.ts"], { cwd: REPO, encoding: "utf8", timeout: 180_000, env: { ...env, CUDASCRIPT_BACKEND: "simulator", CUDASCRIPT_PROFILE: path.join(dir, "out-%p.json") } });
    assert.equal(r.status, 0, r.stderr);
    const files = fs.readdirSync(dir);
    assert.equal(files.length, 1);
    assert.match(files[0]!, /^out-\d+\.json$/);
    checkTranspose(JSON.parse(fs.readFileSync(path.join(dir, files[0]!), "utf8")) as ProfileReport);
  });
});
