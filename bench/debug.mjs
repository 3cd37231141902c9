#!/usr/bin/env node
// The debugger's stepping backend against the fast simulator on the same launch, in one process:
// a launch with breakpoints set but never hit (a condition that is never true, so every block is
// stepped and every thread checks the breakpoint's line), and the fast simulator run in-process.
// Prints both throughputs and their ratio (target: stepping ≥ 1/10 of the fast simulator). Asserts
// nothing (machines here are noisy).
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

function stepped() {
  const out = new Float32Array(GRID);
  const s = new DebugSession({ module, kernel: "sumSquares", grid: [GRID, 1, 1], block: [BLOCK, 1, 1], args: [desc(a), desc(out)] }, { print: () => {} });
  s.setBreakpoints(file, [{ line: hotLine, condition: () => false }]);
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

// "never hit": the breakpoint's line yields and its condition is evaluated; stepping with no
// breakpoints at all (only the per-line checks) is the third row.
function steppedNoStops() {
  const out = new Float32Array(GRID);
  const s = new DebugSession({ module, kernel: "sumSquares", grid: [GRID, 1, 1], block: [BLOCK, 1, 1], args: [desc(a), desc(out)] }, { print: () => {}, fastBlocks: false });
  const t0 = performance.now();
  s.continue();
  return { ms: performance.now() - t0, out };
}

const f = best(fast), s = best(stepped), q = best(steppedNoStops);
const same = f.out.every((v, i) => Object.is(v, s.out[i]) && Object.is(v, q.out[i]));
const mt = (x) => ((threads / x.ms) * 1000 / 1e6).toFixed(2);
console.log(`launch: ${GRID} blocks × ${BLOCK} threads, ${N} elements (best of ${REPS})`);
console.log(`fast simulator (in-process)                      ${f.ms.toFixed(1).padStart(8)} ms  ${mt(f)} M threads/s`);
console.log(`stepping, a conditional breakpoint never hit    ${s.ms.toFixed(1).padStart(8)} ms  ${mt(s)} M threads/s  ratio ${(f.ms / s.ms).toFixed(3)} (target ≥ 0.1)`);
console.log(`stepping, no breakpoints (every block stepped)  ${q.ms.toFixed(1).padStart(8)} ms  ${mt(q)} M threads/s  ratio ${(f.ms / q.ms).toFixed(3)}`);
console.log(`outputs identical: ${same}`);
