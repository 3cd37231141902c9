#!/usr/bin/env node
// The sanitizer's cost per kernel, side by side: plain run vs --sanitize, on one executor, measured in
// CPU time of this process (process.cpuUsage), not wall time: the development machine is shared, and a
// wall-clock ratio there mostly measures the other jobs. Issue 32 item 6: ≤ 4× with global-memory race
// tracking. With --baseline <checkout>, the same kernels are also compiled by that checkout's compiler
// (main's, say: its sanitizer has no global race tracking) and run interleaved, so both costs print.
// usage: node bench/sanitize.mjs [--quick] [--baseline <checkout>]      (build first: npx tsc -b)
// Nothing here asserts; it reports.
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { rand, SIM_BENCH_KERNELS } from "./kernels.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(join(root, "package.json"));
const { cuda, configureSimulator, f32 } = require("cudascript");

const quick = process.argv.includes("--quick");
const at = process.argv.indexOf("--baseline");
const baseline = at >= 0 ? resolve(process.argv[at + 1] ?? ".") : undefined;
const REPS = quick ? 3 : 6;

// bench/sim.mjs's kernels (vector add, reduction, tiled matmul, histogram, …) and a stencil whose every
// access is to global memory.
const SOURCE = `${SIM_BENCH_KERNELS}
export const stencil = cuda.jit((x: Float32Array, y: Float32Array) => {
  const i = cuda.grid(1);
  if (i > 0 && i < y.length - 1) y[i] = 0.25 * x[i - 1] + 0.5 * x[i] + 0.25 * x[i + 1];
});
`;

function compile(compilerPath) {
  const compiler = require(compilerPath);
  const checker = new compiler.KernelChecker();
  const file = join(root, "bench", `__sanitize_bench_${compilerPath === join(root, "compiler", "dist", "index.js") ? "this" : "base"}.ts`);
  checker.setFileText(file, SOURCE);
  const check = checker.checkFile(file);
  const errors = check.diagnostics.filter((d) => d.severity === "error");
  if (errors.length) throw new Error(errors.map((d) => `${d.span.line}: ${d.message}`).join("\n"));
  return compiler.makeArtifact(check.module, { staticSharedBytes: check.staticSharedBytes });
}
const trees = { this: compile(join(root, "compiler", "dist", "index.js")) };
if (baseline) trees.baseline = compile(join(baseline, "compiler", "dist", "index.js"));

const N = quick ? 1 << 20 : 1 << 22;
const NM = quick ? 128 : 256;
const x = cuda.toDevice(rand(N, 1)), y = cuda.toDevice(rand(N, 2)), out = cuda.toDevice(new Float32Array(N));
const partial = cuda.toDevice(new Float32Array(N / 256));
const A = cuda.toDevice(rand(NM * NM, 3)), B = cuda.toDevice(rand(NM * NM, 4)), C = cuda.toDevice(new Float32Array(NM * NM));
const bytes = cuda.toDevice(Uint8Array.from({ length: N }, (_, i) => (Math.imul(i, 2654435761) >>> 24) & 255));
const hist = cuda.toDevice(new Uint32Array(256)); // zeroed explicitly: the atomics add into what the memory holds
const workloads = [
  { name: "vector add", threads: N, run: (K) => K("vecAdd").launch(N / 256, 256)(x, y, out) },
  { name: "reduction (block 256, 8 barriers)", threads: N, run: (K) => K("reduce").launch(N / 256, 256)(x, partial) },
  { name: `tiled matmul ${NM}×${NM}`, threads: NM * NM, run: (K) => K("matmul").launch([NM / 16, NM / 16], [16, 16])(A, B, C, NM) },
  { name: "histogram (global atomics)", threads: N, run: (K) => K("histogram").launch(N / 256, 256)(bytes, hist) },
  { name: "3-point stencil (global only)", threads: N, run: (K) => K("stencil").launch(N / 256, 256)(x, out) },
];

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const rows = [];
for (const w of workloads) {
  const variants = [];
  for (const tree of Object.keys(trees)) for (const sanitize of [false, true]) variants.push({ key: `${tree}:${sanitize}`, tree, sanitize });
  const best = {};
  for (let r = 0; r <= REPS; r++)
    for (const v of variants) {
      configureSimulator({ workers: 1, inProcessThreshold: 1 << 30, mainThreadExecutes: true, sanitize: v.sanitize });
      const K = (name) => cuda.jit(null, undefined, trees[v.tree], name);
      const t0 = cpuMs();
      w.run(K);
      const t = cpuMs() - t0;
      if (r > 0) best[v.key] = Math.min(best[v.key] ?? Infinity, t); // rep 0 warms up
    }
  rows.push({ name: w.name, threads: w.threads, best });
}
configureSimulator({ sanitize: false });

const M = (x) => (x >= 1e6 ? `${(x / 1e6).toFixed(1)}M` : `${(x / 1e3).toFixed(0)}k`);
const header = ["kernel", "plain", "sanitizer", "sanitizer cost"];
if (baseline) header.push("baseline sanitizer", "baseline cost");
const table = [header];
for (const r of rows) {
  const rate = (k) => r.threads / (r.best[k] / 1000);
  const row = [r.name, M(rate("this:false")), M(rate("this:true")), `${(r.best["this:true"] / r.best["this:false"]).toFixed(2)}×`];
  if (baseline) row.push(M(rate("baseline:true")), `${(r.best["baseline:true"] / r.best["baseline:false"]).toFixed(2)}×`);
  table.push(row);
}
const widths = header.map((_, i) => Math.max(...table.map((row) => row[i].length)));
console.log(`Sanitizer cost: threads per CPU-second on one executor (node ${process.version}${quick ? ", --quick" : ""}; best of ${REPS}${baseline ? `; baseline ${baseline}` : ""})\n`);
for (const [i, row] of table.entries()) {
  console.log(`| ${row.map((c, j) => c.padEnd(widths[j])).join(" | ")} |`);
  if (i === 0) console.log(`|${widths.map((n) => "-".repeat(n + 2)).join("|")}|`);
}
const worst = Math.max(...rows.map((r) => r.best["this:true"] / r.best["this:false"]));
console.log(`\nTarget (issue 32): sanitizer with global race tracking ≤ 4× the plain run on every kernel: ${worst <= 4 ? "meets" : "misses"} (highest ${worst.toFixed(2)}×).`);
process.exit(0);
