#!/usr/bin/env node
// Start-up cost of CudaScript, each against plain `node` doing the same work, side by side in one run:
// usage: node bench/startup.mjs [--runs N] [--run-runs N] [--json]      (build first: npx tsc -b)
//  - require("cudascript") from a CommonJS script   vs  the same script without the require
//  - import("cudascript") from an ES module file     vs  the same module without the import
//  - `cudascript run examples/saxpy.ts`, its sources unchanged since the last run (the build cache
//    reused)                                         vs  bench/saxpy-plain.mjs: the same computation in plain node
//  - the same with --timeout 60: the program then runs in a child process (as the VS Code extension runs it)
//  - `cudascript run examples/saxpy.ts` cold (build cache cleared before each run: an edit; the code
//    caches of TypeScript kept)   vs  the same
//  - … and the first run on a machine: every cache cleared, the code caches too
// Each figure is a whole process (spawn to exit: Node's own start-up included); for the require/import
// pairs also its peak RSS (process.resourceUsage().maxRSS, read by the child as it exits) and "load",
// the require/import alone, timed inside the child. The two commands of a pair run in turn (A B A B …)
// and the ratio is taken pair by pair, so a machine whose load drifts during the run slows both alike;
// medians are printed. `cudascript run` uses a private cache folder (CUDASCRIPT_CACHE_DIR), never yours.
// Targets (issue 11): require("cudascript") ≤ 150 ms and ≤ 60 MB RSS; `cudascript run` unchanged
// ≤ 2× plain node, cold ≤ 4×. Nothing here asserts; it reports.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const asJson = args.includes("--json");
const runsArg = args.indexOf("--runs");
const RUNS = runsArg >= 0 ? Math.max(1, Number(args[runsArg + 1]) || 1) : 15;
const runRunsArg = args.indexOf("--run-runs");
/** `cudascript run` takes seconds cold: fewer pairs by default. */
const RUN_RUNS = runRunsArg >= 0 ? Math.max(1, Number(args[runRunsArg + 1]) || 1) : 5;
const CLI = join(root, "runtime", "bin", "cudascript.js");
const SAXPY = join(root, "examples", "saxpy.ts");
const SAXPY_PLAIN = join(root, "bench", "saxpy-plain.mjs");

// The scripts live inside the repository so that the bare specifier "cudascript" resolves as it does
// in a user's project (through the workspace's node_modules and the package's exports).
const dir = mkdtempSync(join(root, "bench", "__startup-"));
const report = (load) => `const rss = process.resourceUsage().maxRSS * 1024; console.log(JSON.stringify({ loadMs: ${load}, rss }));`;
const scripts = {
  cjs: join(dir, "require.cjs"),
  cjsPlain: join(dir, "plain.cjs"),
  esm: join(dir, "import.mjs"),
  esmPlain: join(dir, "plain.mjs"),
};
writeFileSync(scripts.cjs, `const t0 = performance.now();\nrequire("cudascript");\nconst loadMs = performance.now() - t0;\n${report("loadMs")}\n`);
writeFileSync(scripts.cjsPlain, `${report("0")}\n`);
writeFileSync(scripts.esm, `const t0 = performance.now();\nawait import("cudascript");\nconst loadMs = performance.now() - t0;\n${report("loadMs")}\n`);
writeFileSync(scripts.esmPlain, `${report("0")}\n`);

/** One fresh process: wall milliseconds from spawn to exit, plus what the child measured. */
function runOnce(script) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [script], { cwd: dir, encoding: "utf8", env: { ...process.env, CUDASCRIPT_RESULTS_FILE: "" } });
  const wallMs = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${script} failed (exit ${r.status}):\n${r.stderr}`);
  const { loadMs, rss } = JSON.parse(r.stdout.trim().split("\n").pop());
  return { wallMs, loadMs, rssMB: rss / 1e6 };
}

/** One fresh process running `argv` (wall milliseconds from spawn to exit); `before` runs first, untimed. */
function timeCommand(argv, env = {}, before = () => {}) {
  return () => {
    before();
    const t0 = performance.now();
    const r = spawnSync(process.execPath, argv, { cwd: root, encoding: "utf8", env: { ...process.env, CUDASCRIPT_RESULTS_FILE: "", ...env } });
    const wallMs = performance.now() - t0;
    if (r.status !== 0) throw new Error(`${argv.join(" ")} failed (exit ${r.status}):\n${r.stderr}`);
    if (!/— OK$/m.test(r.stdout)) throw new Error(`${argv.join(" ")} did not print OK:\n${r.stdout}`);
    return { wallMs, loadMs: NaN, rssMB: NaN };
  };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** A and B in turn, one warm-up pair first (disk cache), then `runs` pairs; a and b are scripts or runner functions. */
function pair(name, a, b, runs = RUNS) {
  const once = (x) => (typeof x === "function" ? x() : runOnce(x));
  once(a);
  once(b);
  const A = [];
  const B = [];
  for (let i = 0; i < runs; i++) {
    A.push(once(a));
    B.push(once(b));
  }
  const med = (runs, key) => median(runs.map((r) => r[key]));
  return {
    name,
    runs,
    wallMs: med(A, "wallMs"),
    wallMsMin: Math.min(...A.map((r) => r.wallMs)),
    wallMsMax: Math.max(...A.map((r) => r.wallMs)),
    loadMs: med(A, "loadMs"),
    rssMB: med(A, "rssMB"),
    plainWallMs: med(B, "wallMs"),
    plainRssMB: med(B, "rssMB"),
    wallRatio: median(A.map((r, i) => r.wallMs / B[i].wallMs)),
    rssRatio: median(A.map((r, i) => r.rssMB / B[i].rssMB)),
  };
}

/** `cudascript run examples/saxpy.ts` with the build cache kept (after the warm-up run) and cleared before each run. */
function runPairs() {
  const cache = join(dir, "cache");
  // V8's code cache (Node 22.1+, enabled by the CLI): in its own folder, so "first run" can clear it.
  const codeCache = join(dir, "v8-code-cache");
  const env = { CUDASCRIPT_CACHE_DIR: cache, NODE_COMPILE_CACHE: codeCache };
  const plain = timeCommand([SAXPY_PLAIN]);
  // After an edit: the build cache misses; the code caches of TypeScript (ours in <cache>/v8-code-cache,
  // Node's own on 22.1+) are kept. The first run on a machine has neither.
  const clear = () => rmSync(join(cache, "run-v1"), { recursive: true, force: true });
  const clearAll = () => {
    rmSync(cache, { recursive: true, force: true });
    rmSync(codeCache, { recursive: true, force: true });
  };
  return [
    pair("cudascript run saxpy.ts (unchanged)", timeCommand([CLI, "run", SAXPY], env), plain, RUN_RUNS),
    // With a time limit the program runs in a child process (the VS Code extension always sets one).
    pair("  … --timeout 60 (child process)", timeCommand([CLI, "run", "--timeout", "60", SAXPY], env), plain, RUN_RUNS),
    pair("cudascript run saxpy.ts (cold)", timeCommand([CLI, "run", SAXPY], env, clear), plain, RUN_RUNS),
    pair("  … first run (no code cache)", timeCommand([CLI, "run", SAXPY], env, clearAll), plain, RUN_RUNS),
  ];
}

/**
 * examples/saxpy.ts run by `node --import tsx` (no build step): its kernel has no artifact, so the first
 * launch compiles it from source (runtime/src/host/from-source) — cold (disk cache cleared before each
 * run: the compiler is loaded and the file checked) and cached (the artifact read from the disk cache,
 * no compiler loaded). tsx's own start-up is part of both figures.
 */
function compileFromSourcePairs() {
  const cache = join(dir, "from-source-cache");
  const env = { CUDASCRIPT_CACHE_DIR: cache };
  const plain = timeCommand([SAXPY_PLAIN]);
  const clear = () => rmSync(cache, { recursive: true, force: true });
  const tsx = ["--import", "tsx", SAXPY];
  return [
    pair("node --import tsx saxpy.ts (cached)", timeCommand(tsx, env), plain, RUN_RUNS),
    pair("node --import tsx saxpy.ts (cold)", timeCommand(tsx, env, clear), plain, RUN_RUNS),
  ];
}

let results;
try {
  results = [
    pair('require("cudascript")  (CommonJS)', scripts.cjs, scripts.cjsPlain),
    pair('import("cudascript")   (ES module)', scripts.esm, scripts.esmPlain),
    ...runPairs(),
    ...compileFromSourcePairs(),
  ];
} catch (e) {
  console.error(`bench/startup: ${e.message}\n(build first: npx tsc -b)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
if (!results) process.exit(1);

if (asJson) {
  console.log(JSON.stringify(results, null, 2));
} else {
  const f = (x) => (Number.isNaN(x) ? "—" : x.toFixed(0)).padStart(5);
  console.log(`start-up of a fresh node process (median of ${RUNS} pairs, ${RUN_RUNS} for cudascript run; node ${process.version})`);
  console.log(`${"".padEnd(36)}  wall ms (min–max)    load ms   RSS MB |  plain node: wall ms  RSS MB |  ratio: wall   RSS`);
  for (const r of results) {
    const spread = `${r.wallMsMin.toFixed(0)}–${r.wallMsMax.toFixed(0)}`.padEnd(11);
    console.log(`${r.name.padEnd(36)}  ${f(r.wallMs)} (${spread})   ${f(r.loadMs)}    ${f(r.rssMB)} |              ${f(r.plainWallMs)}   ${f(r.plainRssMB)} |        ${r.wallRatio.toFixed(2).padStart(5)}× ${(Number.isNaN(r.rssRatio) ? "—" : r.rssRatio.toFixed(2)).padStart(5)}×`);
  }
  console.log("targets (issue 11): require(\"cudascript\") ≤ 150 ms and ≤ 60 MB RSS; cudascript run unchanged ≤ 2× plain node, cold ≤ 4×");
}
