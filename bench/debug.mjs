#!/usr/bin/env node
// The debugger's stepping backend against the fast simulator on the same launch, in one process:
// a launch with a breakpoint in the hot loop that is never hit — its condition on the block index or
// over a local: either way every block runs on the fast simulator with the condition compiled in as a
// probe, which never fires — every block stepped with no breakpoint, and the fast simulator run
// in-process.
// Prints both throughputs and their ratio (target: stepping ≥ 1/10 of the fast simulator). Asserts
// nothing (machines here are noisy). Then the step latency: thread 0 of a 1,024-thread block stepped
// over and over through a loop with barriers.
//
//   node bench/debug.mjs [--reps 5]
import * as path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { KernelChecker, emitSimulatorModule } = require(path.join(root, "compiler/dist/index.js"));
const { DebugSession } = require(path.join(root, "runtime/dist/debugger/index.js"));
const { createRt } = require(path.join(root, "runtime/dist/simulator/rt.js"));

const repsArg = process.argv.indexOf("--reps");
const REPS = repsArg > 0 ? Number(process.argv[repsArg + 1]) : 5;

// A tiled reduction: shared memory, a barrier loop, a device function, a warp shuffle.
const SOURCE = `import { cuda, f32 } from "cudascript";
const sq = cuda.device((x: f32): f32 => x * x);
export const sumSquares = cuda.jit((a: Float32Array, out: Float32Array) => {
  const s = cuda.shared.array(256, f32);
  const t = cuda.threadIdx.x;
  let acc: f32 = 0;
  for (let i = cuda.grid(1); i < a.length; i += cuda.gridsize(1)) {
    acc += sq(a[i]); // hot line
  }
  s[t] = acc;
  cuda.syncthreads();
  for (let half = 128; half >= 32; half >>= 1) {
    if (t < half) s[t] += s[t + half];
    cuda.syncthreads();
  }
  if (t < 32) {
    let v = s[t];
    for (let d = 16; d > 0; d >>= 1) v += cuda.shflDownSync(0xffffffff, v, d);
    if (t === 0) out[cuda.blockIdx.x] = v;
  }
});
`;
const file = path.join(root, "bench", "__debug_bench.ts");
const checker = new KernelChecker();
checker.setFileText(file, SOURCE);
const { module, diagnostics } = checker.checkFile(file);
const errors = diagnostics.filter((d) => d.severity === "error");
if (errors.length) throw new Error(errors.map((d) => `${d.span.line}: ${d.code} ${d.message}`).join("\n"));
const hotLine = SOURCE.split("\n").findIndex((l) => l.includes("hot line")) + 1;

const GRID = 64, BLOCK = 256, N = GRID * BLOCK * 8;
const a = Float32Array.from({ length: N }, (_, i) => (i % 17) / 17);
const threads = GRID * BLOCK;
const desc = (arr) => ({ kind: "array", buffer: arr.buffer, byteOffset: 0, length: arr.length, dtype: "f32", shape: [arr.length] });

function fast() {
  const out = new Float32Array(GRID);
  const rt = createRt({ concurrent: false, deadline: Infinity, print: () => {}, uninitializedShared: "warn", warn: () => {} });
  const mod = new Function("rt", emitSimulatorModule(module).source)(rt);
  const t0 = performance.now();
  mod.kernels.sumSquares.run({ args: [a, out], grid: [GRID, 1, 1], block: [BLOCK, 1, 1], dynBuf: new ArrayBuffer(0) }, 0, GRID);
  return { ms: performance.now() - t0, out };
}

function stepped(condition) {
  const out = new Float32Array(GRID);
  // The file is not on disk: the conditions are compiled against its text.
  const s = new DebugSession({ module, kernel: "sumSquares", grid: [GRID, 1, 1], block: [BLOCK, 1, 1], args: [desc(a), desc(out)], source: SOURCE }, { print: () => {} });
  const [bp] = s.setBreakpoints(file, [{ line: hotLine, condition }]);
  if (!bp.verified) throw new Error(`the breakpoint was not set: ${bp.message}`);
  const t0 = performance.now();
  const end = s.continue();
  const ms = performance.now() - t0;
  if (end.kind !== "end" || end.error) throw new Error(`the stepped launch did not end cleanly: ${JSON.stringify(end)}`);
  return { ms, out };
}

function best(f) {
  let b;
  for (let r = 0; r < REPS; r++) {
    const x = f();
    if (!b || x.ms < b.ms) b = x;
  }
  return b;
}

// Every block on the stepping backend with no breakpoint (only the per-line checks).
function steppedNoStops() {
  const out = new Float32Array(GRID);
  const s = new DebugSession({ module, kernel: "sumSquares", grid: [GRID, 1, 1], block: [BLOCK, 1, 1], args: [desc(a), desc(out)] }, { print: () => {}, fastBlocks: false });
  const t0 = performance.now();
  s.continue();
  return { ms: performance.now() - t0, out };
}

// Step latency: thread 0 of a 1,024-thread block stepped through a loop whose body has a barrier
// (every other step crosses it: the other 1,023 threads run to the barrier first).
const LAT_SOURCE = `import { cuda, f32 } from "cudascript";
export const smooth = cuda.jit((a: Float32Array) => {
  const s = cuda.shared.array(1024, f32);
  const t = cuda.threadIdx.x;
  s[t] = a[t]; // start
  for (let k = 0; k < 1000; k++) {
    cuda.syncthreads();
    const v = (s[t] + s[(t + 1) % 1024]) * 0.5;
    cuda.syncthreads();
    s[t] = v;
  }
  a[t] = s[t];
});
`;
const latFile = path.join(root, "bench", "__debug_latency.ts");
checker.setFileText(latFile, LAT_SOURCE);
const lat = checker.checkFile(latFile);
function stepLatency(steps) {
  const arr = Float32Array.from({ length: 1024 }, (_, i) => i);
  const s = new DebugSession({ module: lat.module, kernel: "smooth", grid: [1, 1, 1], block: [1024, 1, 1], args: [desc(arr)] }, { print: () => {} });
  s.setBreakpoints(latFile, [{ line: LAT_SOURCE.split("\n").findIndex((l) => l.includes("// start")) + 1 }]);
  s.continue();
  s.setBreakpoints(latFile, []);
  const times = [];
  let across = 0;
  for (let i = 0; i < steps; i++) {
    const t0 = performance.now();
    const e = s.stepOver();
    times.push(performance.now() - t0);
    if (e.acrossBarrier) across++;
  }
  times.sort((x, y) => x - y);
  return { p50: times[Math.floor(steps * 0.5)], p95: times[Math.floor(steps * 0.95)], across, steps };
}

const f = best(fast), q = best(steppedNoStops);
// Never true: on the block index, and over a variable (tried at each pass of the hot line, in the
// probed fast simulator module).
const si = best(() => stepped("cuda.blockIdx.x === 1000")), sv = best(() => stepped("acc < 0"));
const l = stepLatency(200);
const same = f.out.every((v, i) => Object.is(v, si.out[i]) && Object.is(v, sv.out[i]) && Object.is(v, q.out[i]));
const mt = (x) => ((threads / x.ms) * 1000 / 1e6).toFixed(2);
console.log(`launch: ${GRID} blocks × ${BLOCK} threads, ${N} elements (best of ${REPS})`);
console.log(`fast simulator (in-process)                      ${f.ms.toFixed(1).padStart(8)} ms  ${mt(f)} M threads/s`);
console.log(`breakpoint in the hot loop, never hit:`);
console.log(`  condition on the block index (probed, fast)    ${si.ms.toFixed(1).padStart(8)} ms  ${mt(si)} M threads/s  ratio ${(f.ms / si.ms).toFixed(3)} (target ≥ 0.1)`);
console.log(`  condition over a local (probed, fast)         ${sv.ms.toFixed(1).padStart(8)} ms  ${mt(sv)} M threads/s  ratio ${(f.ms / sv.ms).toFixed(3)} (target ≥ 0.1)`);
console.log(`stepping, no breakpoints (every block stepped)  ${q.ms.toFixed(1).padStart(8)} ms  ${mt(q)} M threads/s  ratio ${(f.ms / q.ms).toFixed(3)}`);
console.log(`outputs identical: ${same}`);
console.log(`step over, thread 0 of a 1,024-thread block: p50 ${l.p50.toFixed(2)} ms, p95 ${l.p95.toFixed(2)} ms over ${l.steps} steps (${l.across} across a barrier; target p95 ≤ 50 ms)`);
