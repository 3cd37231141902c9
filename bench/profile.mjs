#!/usr/bin/env node
// The profiler's cost (issue 34 item 4): every kernel of bench/sim.mjs runs plain and profiled (cuda.profile)
// on one executor, interleaved rep by rep (best of REPS each), side by side; then one 1M-thread launch
// profiled, with its time. Target: profiled ≤ 5× the plain run. Nothing here asserts; it reports.
// usage: node bench/profile.mjs [--quick]      (build first: npx tsc -b)
// The kernels are bench/sim.mjs's own source text (read from that file, so the two benches measure the
// same kernels).
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { rand, SIM_BENCH_KERNELS } from "./kernels.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(join(root, "package.json"));
const { KernelChecker, makeArtifact } = require("@cudascript/compiler");
const { cuda, configureSimulator, f32, f16, u32, i32, i64, Float16Array } = require("cudascript");

const quick = process.argv.includes("--quick");
const REPS = quick ? 3 : Number(process.env.CUDASCRIPT_BENCH_REPS ?? 10);

const checker = new KernelChecker();
const file = join(root, "bench", "__profile_bench_kernels.ts");
checker.setFileText(file, SIM_BENCH_KERNELS);
const check = checker.checkFile(file);
const errors = check.diagnostics.filter((d) => d.severity === "error");
if (errors.length) throw new Error(errors.map((d) => `${d.span.line}: ${d.message}`).join("\n"));
const artifact = makeArtifact(check.module, { staticSharedBytes: check.staticSharedBytes });
const K = (name) => cuda.jit(null, undefined, artifact, name);

// One executor: a profiled launch always runs in the calling thread, so the plain run does too.
configureSimulator({ workers: 1, inProcessThreshold: 2 ** 31 });

const N = quick ? 1 << 18 : 1 << 20;
const N_MM = quick ? 128 : 256;
/** Integers for the int mixes (bench/sim.mjs's randInts). */
const randInts = (n, seed, bits) => Array.from(rand(n, seed), (v) => Math.trunc(v * 2 ** bits));
const N_MIX = quick ? 1 << 18 : 1 << 20;
const workloads = [
  {
    name: "int mix i32",
    threads: N_MIX,
    setup: () => ({ da: cuda.toDevice(Int32Array.from(randInts(N_MIX, 8, 30))), db: cuda.toDevice(Int32Array.from(randInts(N_MIX, 9, 30))), dout: cuda.deviceArray(N_MIX, i32) }),
    run: (s) => K("mixI32").launch(N_MIX / 256, 256)(s.da, s.db, s.dout, 1000003),
  },
  {
    name: "int mix i64 (BigInt64Array)",
    threads: N_MIX,
    setup: () => ({ da: cuda.toDevice(BigInt64Array.from(randInts(N_MIX, 8, 40), BigInt)), db: cuda.toDevice(BigInt64Array.from(randInts(N_MIX, 9, 40), BigInt)), dout: cuda.deviceArray(N_MIX, i64) }),
    run: (s) => K("mixI64").launch(N_MIX / 256, 256)(s.da, s.db, s.dout, 1000003n),
  },
  {
    name: "vector add f16",
    threads: N,
    setup: () => ({ da: cuda.toDevice(Float16Array.from(rand(N, 1))), db: cuda.toDevice(Float16Array.from(rand(N, 2))), dout: cuda.deviceArray(N, f16) }),
    run: (s) => K("vecAddF16").launch(N / 256, 256)(s.da, s.db, s.dout),
  },
  {
    name: "vector add",
    threads: N,
    setup: () => ({ da: cuda.toDevice(rand(N, 1)), db: cuda.toDevice(rand(N, 2)), dout: cuda.deviceArray(N, f32) }),
    run: (s) => K("vecAdd").launch(N / 256, 256)(s.da, s.db, s.dout),
  },
  {
    name: "reduction (block 256, 8 barriers)",
    threads: N,
    setup: () => ({ dx: cuda.toDevice(rand(N, 3)), dp: cuda.deviceArray(N / 256, f32) }),
    run: (s) => K("reduce").launch(N / 256, 256)(s.dx, s.dp),
  },
  {
    name: `tiled matmul ${N_MM}×${N_MM} (16×16 tiles)`,
    threads: N_MM * N_MM,
    setup: () => ({ dA: cuda.toDevice(rand(N_MM * N_MM, 4)), dB: cuda.toDevice(rand(N_MM * N_MM, 5)), dC: cuda.deviceArray(N_MM * N_MM, f32) }),
    run: (s) => K("matmul").launch([N_MM / 16, N_MM / 16], [16, 16])(s.dA, s.dB, s.dC, N_MM),
  },
  {
    name: "histogram (global atomics)",
    threads: N,
    setup: () => ({ dd: cuda.toDevice(Uint8Array.from(rand(N, 6), (v) => Math.floor((v + 0.5) * 256))), dh: cuda.deviceArray(256, u32) }),
    run: (s) => K("histogram").launch(N / 256, 256)(s.dd, s.dh),
  },
];

const rate = (x) => (x >= 1e6 ? `${(x / 1e6).toFixed(1)}M` : `${(x / 1e3).toFixed(0)}k`);
console.log(`profiling cost, one executor, best of ${REPS} (threads per second)\n`);
console.log("| kernel | threads | plain | profiled | profiled / plain |");
console.log("|---|---|---|---|---|");
for (const w of workloads) {
  const s = w.setup();
  const modes = { plain: () => w.run(s), profiled: () => cuda.profile(() => w.run(s)) };
  const best = {};
  for (const [k, f] of Object.entries(modes)) {
    f(); // warm up
    best[k] = Infinity;
  }
  for (let r = 0; r < REPS; r++)
    for (const [k, f] of Object.entries(modes)) {
      const t0 = performance.now();
      f();
      best[k] = Math.min(best[k], (performance.now() - t0) / 1000);
    }
  console.log(`| ${w.name} | ${w.threads.toLocaleString("en-US")} | ${rate(w.threads / best.plain)} | ${rate(w.threads / best.profiled)} | ${(best.profiled / best.plain).toFixed(2)}× |`);
}

// One 1M-thread launch profiled, first time (cold: the profiling module is emitted from the IR too).
{
  const n = 1 << 20;
  const s = { dx: cuda.toDevice(rand(n, 7)), dp: cuda.deviceArray(n / 256, f32) };
  const artifact2 = makeArtifact(check.module, { staticSharedBytes: check.staticSharedBytes });
  const t0 = performance.now();
  const report = cuda.profile(() => cuda.jit(null, undefined, artifact2, "reduce").launch(n / 256, 256)(s.dx, s.dp));
  const ms = performance.now() - t0;
  const t = report.launches[0].totals;
  console.log(`\n1M-thread launch (reduction, 4096 blocks of 256) profiled in ${ms.toFixed(0)} ms: ${t.sharedLoadRequests.toLocaleString("en-US")} shared load requests, ${t.branches.toLocaleString("en-US")} branches counted`);
}
