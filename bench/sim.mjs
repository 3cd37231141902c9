#!/usr/bin/env node
// Simulator throughput: threads per second for four kernels and an i64 kernel beside its i32 twin, against a hand-written single-threaded
// JavaScript loop of the same algorithm, on 1 executor vs all workers, sanitizer off vs on.
// usage: node bench/sim.mjs [--quick] [--baseline <checkout>]      (build first: npx tsc -b)
// --baseline: also runs the kernels as another checkout's built compiler generates them (e.g. the main
// branch, for a change to the code generators), interleaved with this tree's, and prints the ratios.
// Then the fixed cost of a tiny launch (bench/sim-launch-overhead.mjs).
// The modes are interleaved rep by rep (best of REPS each), and the machine's parallel capacity is
// probed before and after: on a shared machine the 2-worker figure is only meaningful next to it.
// Targets (issue #4): ≥ 20M threads/s vector add, ≥ 5M threads/s reduction, within 3× of the
// hand-written loop, ≥ 1.6× on 2 workers, sanitizer ≤ 3×; (issue 13) the i64 kernel within 4× of its
// i32 twin; (issue 17) within 1.5× of the hand-written loop on every kernel. Nothing here asserts; it reports.
// The sanitizer's cost with global race tracking, in CPU time (steadier on a shared machine): bench/sanitize.mjs.
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as os from "node:os";
import { Worker } from "node:worker_threads";
import { rand, SIM_BENCH_KERNELS } from "./kernels.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(join(root, "package.json"));
const { KernelChecker, makeArtifact } = require("@cudascript/compiler");
const { cuda, configureSimulator, f32, f16, u32, i32, i64, Float16Array, f16round } = require("cudascript");
const { lastLaunch } = require("cudascript/dist/simulator/executor");

const quick = process.argv.includes("--quick");
const baselineAt = process.argv.indexOf("--baseline");
const baseline = baselineAt >= 0 ? resolve(process.argv[baselineAt + 1] ?? ".") : undefined;
const cores = typeof os.availableParallelism === "function" ? os.availableParallelism() : os.cpus().length;

const SOURCE = SIM_BENCH_KERNELS;

/** The kernels' artifact as a compiler (this tree's, or the baseline's) makes it. */
function compileKernels(compiler) {
  const checker = new compiler.KernelChecker();
  const file = join(root, "bench", "__sim_bench_kernels.ts");
  checker.setFileText(file, SOURCE);
  const check = checker.checkFile(file);
  const errors = check.diagnostics.filter((d) => d.severity === "error");
  if (errors.length) throw new Error(errors.map((d) => `${d.span.line}: ${d.message}`).join("\n"));
  return compiler.makeArtifact(check.module, { staticSharedBytes: check.staticSharedBytes });
}
const artifact = compileKernels({ KernelChecker, makeArtifact });
const baselineArtifact = baseline ? compileKernels(require(join(baseline, "compiler", "dist", "index.js"))) : undefined;
/** The artifact the running variant launches from (the modes switch it). */
let current = artifact;
const K = (name) => cuda.jit(null, undefined, current, name);

/**
 * Best time (s) of each variant, the variants interleaved rep by rep so that all of them see the same
 * machine (the development machine is shared: a second core comes and goes). `variants`: name → { setup, run }.
 */
function timeInterleaved(variants, reps) {
  const best = {};
  for (const [k, v] of Object.entries(variants)) {
    v.setup();
    v.run(); // warm up (JIT, workers)
    best[k] = Infinity;
  }
  for (let r = 0; r < reps; r++)
    for (const [k, v] of Object.entries(variants)) {
      v.setup();
      const t0 = performance.now();
      v.run();
      best[k] = Math.min(best[k], (performance.now() - t0) / 1000);
    }
  return best;
}

/** How much two threads get done next to one right now (2.0 on two free cores): best of 3 short probes. */
async function parallelCapacity() {
  const spin = "let x = 0; for (let i = 0; i < 5e7; i++) x = (x + i * 7) | 0; return x;";
  const f = new Function(spin);
  const one = () => { const t = performance.now(); f(); return performance.now() - t; };
  const w = new Worker(`const { parentPort } = require("node:worker_threads"); const f = new Function(${JSON.stringify(spin)}); parentPort.on("message", () => { f(); parentPort.postMessage(0); });`, { eval: true });
  const both = async () => {
    const done = new Promise((res) => w.once("message", res));
    const t0 = performance.now();
    w.postMessage(0);
    f();
    await done;
    return performance.now() - t0;
  };
  one();
  await both(); // warm up both threads
  let best = 0;
  for (let r = 0; r < 3; r++) {
    const t1 = one();
    best = Math.max(best, (2 * t1) / (await both()));
  }
  await w.terminate();
  return best;
}

const f = Math.fround;
const REPS = quick ? 3 : Number(process.env.CUDASCRIPT_BENCH_REPS ?? 6);

// ── workloads ──
const N_ADD = quick ? 1 << 22 : 1 << 24;
const N_RED = quick ? 1 << 21 : 1 << 23;
const N_MM = quick ? 256 : 512;
const N_HIST = quick ? 1 << 21 : 1 << 23;
const N_MIX = quick ? 1 << 20 : 1 << 22;
const BITS64 = Number(process.env.CUDASCRIPT_BENCH_I64_BITS ?? 40);


/** Integers for the i32/i64 twins: the i64 ones up to ±2^40 (products past 2^53 take the bigint path, as on a GPU they simply wrap). */
function randInts(n, seed, bits) {
  const r = rand(n, seed);
  return Array.from(r, (v) => Math.trunc(v * 2 ** bits));
}

const workloads = [
  {
    name: "int mix i32 (twin of the i64 one)",
    threads: N_MIX,
    setup() {
      const a = Int32Array.from(randInts(N_MIX, 8, 30)), b = Int32Array.from(randInts(N_MIX, 9, 30));
      return { a, b, out: new Int32Array(N_MIX), da: cuda.toDevice(a), db: cuda.toDevice(b), dout: cuda.deviceArray(N_MIX, i32) };
    },
    sim: (s) => K("mixI32").launch(Math.ceil(N_MIX / 256), 256)(s.da, s.db, s.dout, 1000003),
    hand(s) {
      const { a, b, out } = s;
      for (let i = 0; i < out.length; i++) out[i] = ((Math.imul(a[i], 1000003) + b[i]) ^ (a[i] >> 3)) - (b[i] & 1023);
    },
  },
  {
    name: "int mix i64 (BigInt64Array)",
    threads: N_MIX,
    setup() {
      const a = BigInt64Array.from(randInts(N_MIX, 8, BITS64), BigInt), b = BigInt64Array.from(randInts(N_MIX, 9, BITS64), BigInt);
      return { a, b, out: new BigInt64Array(N_MIX), da: cuda.toDevice(a), db: cuda.toDevice(b), dout: cuda.deviceArray(N_MIX, i64) };
    },
    sim: (s) => K("mixI64").launch(Math.ceil(N_MIX / 256), 256)(s.da, s.db, s.dout, 1000003n),
    hand(s) {
      const { a, b, out } = s;
      for (let i = 0; i < out.length; i++) out[i] = BigInt.asIntN(64, ((a[i] * 1000003n + b[i]) ^ (a[i] >> 3n)) - (b[i] & 1023n));
    },
  },
  {
    name: "vector add",
    threads: N_ADD,
    setup() {
      const a = rand(N_ADD, 1), b = rand(N_ADD, 2);
      return { a, b, out: new Float32Array(N_ADD), da: cuda.toDevice(a), db: cuda.toDevice(b), dout: cuda.deviceArray(N_ADD, f32) };
    },
    sim: (s) => K("vecAdd").launch(Math.ceil(N_ADD / 256), 256)(s.da, s.db, s.dout),
    hand(s) {
      const { a, b, out } = s;
      for (let i = 0; i < out.length; i++) out[i] = a[i] + b[i];
    },
  },
  {
    // The f16 twin of "vector add", reported beside it (see the ratio line below the table).
    name: "vector add f16",
    threads: N_ADD,
    setup() {
      const a = Float16Array.from(rand(N_ADD, 1)), b = Float16Array.from(rand(N_ADD, 2));
      return { a, b, out: new Float16Array(N_ADD), da: cuda.toDevice(a), db: cuda.toDevice(b), dout: cuda.deviceArray(N_ADD, f16) };
    },
    sim: (s) => K("vecAddF16").launch(Math.ceil(N_ADD / 256), 256)(s.da, s.db, s.dout),
    hand(s) {
      const { a, b, out } = s;
      for (let i = 0; i < out.length; i++) out[i] = f16round(a[i] + b[i]);
    },
  },
  {
    name: "reduction (block 256, 8 barriers)",
    threads: N_RED,
    setup() {
      const x = rand(N_RED, 3);
      const blocks = Math.ceil(N_RED / 256);
      return { x, partial: new Float32Array(blocks), dx: cuda.toDevice(x), dp: cuda.deviceArray(blocks, f32), blocks };
    },
    sim: (s) => K("reduce").launch(s.blocks, 256)(s.dx, s.dp),
    hand(s) {
      const { x, partial, blocks } = s;
      const tile = new Float32Array(256);
      for (let b = 0; b < blocks; b++) {
        for (let t = 0; t < 256; t++) tile[t] = b * 256 + t < x.length ? x[b * 256 + t] : 0;
        for (let st = 128; st > 0; st >>= 1) for (let t = 0; t < st; t++) tile[t] = tile[t] + tile[t + st];
        partial[b] = tile[0];
      }
    },
  },
  {
    name: `tiled matmul ${N_MM}×${N_MM} (16×16 tiles)`,
    threads: N_MM * N_MM,
    setup() {
      const A = rand(N_MM * N_MM, 4), B = rand(N_MM * N_MM, 5);
      return { A, B, C: new Float32Array(N_MM * N_MM), dA: cuda.toDevice(A), dB: cuda.toDevice(B), dC: cuda.deviceArray(N_MM * N_MM, f32) };
    },
    sim: (s) => K("matmul").launch([N_MM / 16, N_MM / 16], [16, 16])(s.dA, s.dB, s.dC, N_MM),
    hand(s) {
      // The same tiled algorithm, one block after the other, one thread after the other.
      const { A, B, C } = s;
      const n = N_MM, T = 16;
      const sA = new Float32Array(T * T), sB = new Float32Array(T * T), acc = new Float32Array(T * T);
      for (let by = 0; by < n / T; by++)
        for (let bx = 0; bx < n / T; bx++) {
          acc.fill(0);
          for (let t = 0; t < n; t += T) {
            for (let ty = 0; ty < T; ty++)
              for (let tx = 0; tx < T; tx++) {
                sA[ty * T + tx] = A[(by * T + ty) * n + t + tx];
                sB[ty * T + tx] = B[(t + ty) * n + bx * T + tx];
              }
            for (let ty = 0; ty < T; ty++)
              for (let tx = 0; tx < T; tx++) {
                let a = acc[ty * T + tx];
                for (let k = 0; k < T; k++) a = f(a + f(sA[ty * T + k] * sB[k * T + tx]));
                acc[ty * T + tx] = a;
              }
          }
          for (let ty = 0; ty < T; ty++) for (let tx = 0; tx < T; tx++) C[(by * T + ty) * n + bx * T + tx] = acc[ty * T + tx];
        }
    },
  },
  {
    name: "histogram (global atomics)",
    threads: N_HIST,
    setup() {
      const data = new Uint8Array(N_HIST);
      let s = 7;
      for (let i = 0; i < N_HIST; i++) {
        s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
        data[i] = s >>> 24;
      }
      // The bins are zeroed explicitly, as a CUDA program must: the atomics add into what the memory holds.
      return { data, hist: new Uint32Array(256), dd: cuda.toDevice(data), dh: cuda.toDevice(new Uint32Array(256)) };
    },
    sim: (s) => K("histogram").launch(Math.ceil(N_HIST / 256), 256)(s.dd, s.dh),
    hand(s) {
      const { data, hist } = s;
      for (let i = 0; i < data.length; i++) hist[data[i]]++;
    },
  },
];

const modes = [
  { key: "one", opts: { workers: 1, inProcessThreshold: 1 << 30, sanitize: false } },
  { key: "all", opts: { workers: cores, inProcessThreshold: 0, mainThreadExecutes: true, sanitize: false } },
  { key: "san", opts: { workers: 1, inProcessThreshold: 1 << 30, sanitize: true } },
];
if (baselineArtifact)
  modes.push(
    { key: "baseOne", opts: modes[0].opts, artifact: baselineArtifact },
    { key: "baseSan", opts: modes[2].opts, artifact: baselineArtifact },
  );

const load0 = os.loadavg()[0];
const capacity0 = await parallelCapacity();
const rows = [];
const notes = [];
for (const w of workloads.filter((w) => !process.env.CUDASCRIPT_BENCH_ONLY || w.name.startsWith(process.env.CUDASCRIPT_BENCH_ONLY))) {
  const s = w.setup();
  const variants = { hand: { setup() {}, run: () => w.hand(s) } };
  for (const m of modes)
    variants[m.key] = {
      setup: () => {
        configureSimulator(m.opts);
        current = m.artifact ?? artifact;
      },
      run: () => w.sim(s),
    };
  const best = timeInterleaved(variants, REPS);
  const r = { name: w.name };
  for (const [k, t] of Object.entries(best)) r[k] = w.threads / t;
  configureSimulator(modes[1].opts);
  current = artifact;
  w.sim(s);
  const l = lastLaunch();
  if (l?.privatized.length) notes.push(`${w.name}: ${l.executors} executors, '${l.privatized.join("', '")}' privatized`);
  rows.push(r);
  configureSimulator({ sanitize: false });
}
const capacity1 = await parallelCapacity();

const M = (x) => (x >= 1e6 ? `${(x / 1e6).toFixed(1)}M` : `${(x / 1e3).toFixed(0)}k`);
const header = ["kernel", "hand-written JS", "sim 1 executor", `sim ${cores} workers`, "speed-up", "hand / sim", "sanitizer", "sanitizer cost"];
const table = [header, ...rows.map((r) => [r.name, M(r.hand), M(r.one), M(r.all), `${(r.all / r.one).toFixed(2)}×`, `${(r.hand / r.one).toFixed(2)}×`, M(r.san), `${(r.one / r.san).toFixed(2)}×`])];
const widths = header.map((_, i) => Math.max(...table.map((row) => row[i].length)));
console.log(`Simulator threads per second (node ${process.version}, ${cores} cores${quick ? ", --quick" : ""}; best of ${REPS})\n`);
for (const [i, row] of table.entries()) {
  console.log(`| ${row.map((c, j) => c.padEnd(widths[j])).join(" | ")} |`);
  if (i === 0) console.log(`|${widths.map((n) => "-".repeat(n + 2)).join("|")}|`);
}
if (baselineArtifact) {
  const head = ["kernel", "baseline 1 executor", "this 1 executor", "this / baseline", "baseline sanitizer", "this sanitizer", "this / baseline"];
  const t = [head, ...rows.map((r) => [r.name, M(r.baseOne), M(r.one), `${(r.one / r.baseOne).toFixed(2)}×`, M(r.baseSan), M(r.san), `${(r.san / r.baseSan).toFixed(2)}×`])];
  const wd = head.map((_, i) => Math.max(...t.map((row) => row[i].length)));
  console.log(`\nThis tree against ${baseline} (threads per second, interleaved; above 1× = this tree faster)\n`);
  for (const [i, row] of t.entries()) {
    console.log(`| ${row.map((c, j) => c.padEnd(wd[j])).join(" | ")} |`);
    if (i === 0) console.log(`|${wd.map((n) => "-".repeat(n + 2)).join("|")}|`);
  }
}
console.log(`\nLoad average ${load0.toFixed(2)} → ${os.loadavg()[0].toFixed(2)}; two threads ran ${capacity0.toFixed(2)}× / ${capacity1.toFixed(2)}× one thread's work (before / after; 2.00 = two free cores).`);
for (const n of notes) console.log(n);
console.log(`\nTargets: vector add ≥ 20M/s, reduction ≥ 5M/s, hand/sim ≤ 3×, speed-up on 2 workers ≥ 1.6×, sanitizer cost ≤ 3×.`);
const add = rows.find((r) => r.name.startsWith("vector add")), red = rows.find((r) => r.name.startsWith("reduction"));
const half = rows.find((r) => r.name === "vector add f16");
if (add && half) console.log(`vector add f16 runs at ${(half.one / add.one).toPrecision(2)}× its f32 twin's rate (1 executor; ${(half.hand / add.hand).toPrecision(2)}× for the hand-written loops).`);
if (add) console.log(`vector add ${M(add.one)}/s (1 executor) ${add.one >= 20e6 ? "meets" : "misses"} 20M.`);
if (red) console.log(`reduction ${M(red.one)}/s (1 executor) ${red.one >= 5e6 ? "meets" : "misses"} 5M.`);
const mix32 = rows.find((r) => r.name.startsWith("int mix i32")), mix64 = rows.find((r) => r.name.startsWith("int mix i64"));
if (mix32 && mix64) console.log(`i64 kernel vs its i32 twin (1 executor): ${(mix32.one / mix64.one).toFixed(2)}× slower, ${mix32.one / mix64.one <= 4 ? "meets" : "misses"} the 4× target.`);
const over = rows.filter((r) => r.hand / r.one > 1.5);
console.log(`hand/sim ≤ 1.5× on every kernel (issue 17, 1 executor): ${over.length ? `misses on ${over.map((r) => `${r.name} ${(r.hand / r.one).toFixed(2)}×`).join(", ")}` : `meets (highest ${Math.max(...rows.map((r) => r.hand / r.one)).toFixed(2)}×)`}.`);
const { simulatorLaunchOverhead, printSimulatorLaunchOverhead } = await import("./sim-launch-overhead.mjs");
printSimulatorLaunchOverhead(simulatorLaunchOverhead({ quick }));
process.exit(0);
