// The simulator's fixed cost per launch (issue #17 item 2): a tiny kernel (1 block of 32 threads, one
// device array and one scalar) launched many times, in the calling thread and on workers, beside a
// plain JavaScript call doing the same 32 stores — all interleaved rep by rep in one run. bench/sim.mjs
// prints it after its throughput table; `node bench/sim-launch-overhead.mjs` prints it alone.
// Targets: ≤ 20 µs per launch in-process, ≤ 100 µs when workers are used. Nothing here asserts.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(join(root, "package.json"));

export function simulatorLaunchOverhead({ quick = false } = {}) {
  const { KernelChecker, makeArtifact } = require("@cudascript/compiler");
  const { cuda, configureSimulator, f32 } = require("cudascript");
  const checker = new KernelChecker();
  const file = join(root, "bench", "__sim_launch_kernels.ts");
  checker.setFileText(
    file,
    `import { cuda, f32 } from "cudascript";
export const tiny = cuda.jit((a: Float32Array, x: f32) => { const i = cuda.grid(1); if (i < a.length) a[i] = x; });
export const tinySync = cuda.jit((a: Float32Array, x: f32) => { const i = cuda.grid(1); cuda.syncthreads(); if (i < a.length) a[i] = x; });
`,
  );
  const check = checker.checkFile(file);
  const artifact = makeArtifact(check.module, { staticSharedBytes: check.staticSharedBytes });
  const K = (name) => cuda.jit(null, undefined, artifact, name);
  const tiny = K("tiny"), tinySync = K("tinySync");
  const d = cuda.deviceArray(32, f32);
  const host = new Float32Array(32);
  const plain = (a, x) => {
    for (let i = 0; i < 32; i++) if (i < a.length) a[i] = x;
  };
  const configured = tiny.launch(1, 32);
  const inProcess = { workers: 1, inProcessThreshold: 32768, sanitize: false };
  const onWorkers = { workers: 2, inProcessThreshold: 0, mainThreadExecutes: false, sanitize: false };
  const cases = [
    ["plain JavaScript call (the same 32 stores)", inProcess, (x) => plain(host, x)],
    ["k.launch(1, 32)(deviceArray, x), in-process", inProcess, (x) => tiny.launch(1, 32)(d, x)],
    ["configured launcher l(deviceArray, x), in-process", inProcess, (x) => configured(d, x)],
    ["with a barrier (fission kernel), in-process", inProcess, (x) => tinySync.launch(1, 32)(d, x)],
    ["host Float32Array argument (copied in and out), in-process", inProcess, (x) => configured(host, x)],
    ["k.launch(1, 32)(deviceArray, x) on workers (forced)", onWorkers, (x) => tiny.launch(1, 32)(d, x)],
  ];
  const N = quick ? 2000 : 20000;
  const best = cases.map(() => Infinity);
  for (let rep = 0; rep < (quick ? 2 : 5); rep++)
    cases.forEach(([, opts, launch], c) => {
      configureSimulator(opts);
      const n = c === 5 ? N / 10 : N; // worker hand-offs are slower: fewer of them
      for (let i = 0; i < 50; i++) launch(i); // warm up
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < n; i++) launch(i);
      best[c] = Math.min(best[c], Number(process.hrtime.bigint() - t0) / n / 1000);
    });
  configureSimulator(inProcess);
  d.free();
  return cases.map(([name], c) => ({ name, micros: best[c] }));
}

export function printSimulatorLaunchOverhead(rows) {
  console.log("\nSimulator launch overhead (µs per launch, 1 block of 32 threads; best of the interleaved reps):");
  for (const r of rows) console.log(`  ${r.name.padEnd(62)} ${r.micros.toFixed(2).padStart(8)} µs`);
  const inProc = rows[2].micros, workers = rows[5].micros;
  console.log(`  targets: ≤ 20 µs in-process (${inProc <= 20 ? "meets" : "misses"}: ${inProc.toFixed(1)}), ≤ 100 µs on workers (${workers <= 100 ? "meets" : "misses"}: ${workers.toFixed(1)}); a launch this small stays in the calling thread by default (inProcessThreshold 32768 threads).`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  printSimulatorLaunchOverhead(simulatorLaunchOverhead({ quick: process.argv.includes("--quick") }));
  process.exit(0);
}
