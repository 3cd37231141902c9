/** Simulator device memory: what free() gives back, and the device-memory budget (CSR016). */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, it, test } from "node:test";
import { configureSimulator, cuda, f32, u8 } from "cudascript";
import { compileSource, REPO, throwsCode } from "./helpers";

const RUNTIME = path.join(REPO, "runtime", "dist", "index.js");

/** Runs `body` (CommonJS, `cuda` and `f32` in scope) in a fresh Node with --expose-gc; returns its stdout parsed as JSON. */
function inChild(body: string, env: NodeJS.ProcessEnv = {}): unknown {
  const script = `const { cuda, f32, u8 } = require(${JSON.stringify(RUNTIME)});\n(async () => {\n${body}\n})().catch((e) => { console.error(e); process.exit(1); });`;
  const r = spawnSync(process.execPath, ["--expose-gc", "-e", script], { encoding: "utf8", env: { ...process.env, CUDASCRIPT_BACKEND: "simulator", ...env } });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test("free() releases a simulator device array's memory even while the array object is still referenced", () => {
  const MiB = 1 << 20;
  const out = inChild(`
    const settle = async () => { for (let i = 0; i < 3; i++) { global.gc(); await new Promise((r) => setImmediate(r)); } };
    const used = () => process.memoryUsage().arrayBuffers;
    await settle();
    const before = used();
    const arrays = [];
    for (let i = 0; i < 8; i++) arrays.push(cuda.deviceArray(16 * ${MiB}, u8));
    await settle();
    const live = used();
    for (const a of arrays) a.free();
    await settle();
    // 'arrays' is still reachable here: freeing must not wait for the program to drop its references.
    console.log(JSON.stringify({ before, live, after: used(), kept: arrays.length }));
  `) as { before: number; live: number; after: number; kept: number };
  assert.equal(out.kept, 8);
  assert.ok(out.live - out.before >= 128 * MiB, `the arrays were allocated (${out.live - out.before} bytes)`);
  assert.ok(out.after - out.before < 16 * MiB, `after free() ${((out.after - out.before) / MiB).toFixed(1)} MiB of 128 MiB are still held`);
});

/**
 * 64 MiB device arrays allocated and freed in a loop, in a child process started WITHOUT --expose-gc
 * (as a user's program is): the peak RSS while the loop runs. Before free() reclaimed the memory
 * (simulator/reclaim.ts), 30 rounds took RSS from 112 MiB to 2 GiB: nothing in the loop made V8 collect.
 */
function loopPeakGrowth(rounds: number, setup: string, round: string): { start: number; peak: number; rounds: number } {
  const script = `const { cuda, f32, configureSimulator } = require(${JSON.stringify(RUNTIME)});
${setup}
const rss = () => process.memoryUsage().rss;
const start = rss();
let peak = start;
for (let i = 0; i < ${rounds}; i++) {
  const d = cuda.deviceArray(16 * 2 ** 20, f32); // 64 MiB, zeroed: every page touched
  ${round}
  peak = Math.max(peak, rss());
  d.free();
  peak = Math.max(peak, rss());
}
console.log(JSON.stringify({ start, peak, rounds: ${rounds} }));`;
  const r = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 300_000, env: { ...process.env, CUDASCRIPT_BACKEND: "simulator" } });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as { start: number; peak: number; rounds: number };
}

const ARRAY_BYTES = 64 * 2 ** 20;

test("free() gives a simulator array's memory back to the system: 30 × (64 MiB array + free()) stays under 3 arrays' worth of RSS", () => {
  const out = loopPeakGrowth(30, "", "");
  const growth = out.peak - out.start;
  console.log(`# RSS ${(out.start / 2 ** 20).toFixed(0)} MiB → peak ${(out.peak / 2 ** 20).toFixed(0)} MiB over ${out.rounds} rounds`);
  assert.ok(growth < 3 * ARRAY_BYTES, `peak RSS grew by ${(growth / 2 ** 20).toFixed(0)} MiB over ${out.rounds} rounds of a 64 MiB array and free()`);
});

test("free() also gives back memory that worker threads ran a kernel on (each worker holds its own handle on the buffer)", () => {
  const artifact = compileSource(`import { cuda, f32 } from "cudascript";
export const fill = cuda.jit((x: Float32Array, v: f32) => {
  for (let i = cuda.grid(1); i < x.length; i += cuda.gridsize(1)) x[i] = v;
});
`);
  const setup = `configureSimulator({ workers: 2, inProcessThreshold: 0, mainThreadExecutes: false });
const fill = cuda.jit(null, undefined, ${JSON.stringify(artifact)}, "fill");`;
  const out = loopPeakGrowth(10, setup, "fill.launch(64, 256)(d, i);");
  const growth = out.peak - out.start;
  console.log(`# RSS ${(out.start / 2 ** 20).toFixed(0)} MiB → peak ${(out.peak / 2 ** 20).toFixed(0)} MiB over ${out.rounds} rounds on 2 workers`);
  assert.ok(growth < 3 * ARRAY_BYTES, `peak RSS grew by ${(growth / 2 ** 20).toFixed(0)} MiB over ${out.rounds} rounds of a 64 MiB array filled by workers and free()`);
});

describe("the simulator's device memory budget (CSR016) and huge or invalid sizes", () => {
  const MiB = 2 ** 20;
  before(() => configureSimulator({ memoryLimit: 64 * MiB }));
  after(() => configureSimulator({ memoryLimit: Math.floor(os.totalmem() / 2) }));

  it("an allocation past the budget is CSR016 saying how much was asked and how much is in use; free() gives it back", () => {
    const held = cuda.deviceArray(12 * MiB, f32); // 48 MiB
    try {
      throwsCode(() => cuda.deviceArray(8 * MiB, f32), "CSR016", /out of device memory: asked 32 MiB, 48 MiB of 64 MiB in use .*\.free\(\).*CUDASCRIPT_SIM_MEMORY/);
      throwsCode(() => cuda.toDevice(new Float32Array(8 * MiB)), "CSR016", /asked 32 MiB, 48 MiB of 64 MiB in use/);
      throwsCode(() => cuda.deviceArrayLike(held), "CSR016", /asked 48 MiB, 48 MiB of 64 MiB in use/);
    } finally {
      held.free();
    }
    const again = cuda.deviceArray(8 * MiB, f32);
    assert.equal(again.nbytes, 32 * MiB);
    again.free();
  });

  it("deviceArray(1e12, f32) is CSR016 in readable units, not a RangeError", () => {
    throwsCode(() => cuda.deviceArray(1e12, f32), "CSR016", /asked 3\.6 TiB, 0 B of 64 MiB in use/);
    throwsCode(() => cuda.deviceArray([1e6, 1e6, 1e6], u8), "CSR016", /asked 888 PiB/);
  });

  it("NaN and Infinity in a shape are named, not printed as null", () => {
    throwsCode(() => cuda.deviceArray(NaN, f32), "CSR013", /got NaN$/);
    throwsCode(() => cuda.deviceArray([Infinity, 2], f32), "CSR013", /got \[Infinity, 2\]$/);
    throwsCode(() => cuda.pinnedArray([2, NaN], f32), "CSR013", /got \[2, NaN\]$/);
  });

  it("pinnedArray too big for the host is CSR017 with the size asked and the machine's memory", () => {
    throwsCode(() => cuda.pinnedArray(1e12, f32), "CSR017", /out of host memory: cuda\.pinnedArray asked 3\.6 TiB \(1,000,000,000,000 f32 elements\), the machine has .* free of .*: use smaller arrays/);
  });

  it("a bad memory size is CSR018 that says how to write one", () => {
    throwsCode(() => configureSimulator({ memoryLimit: -1 }), "CSR018", /memoryLimit .* whole number > 0/);
    const r = spawnSync(process.execPath, ["-e", `const { cuda, f32 } = require(${JSON.stringify(RUNTIME)}); try { cuda.deviceArray(4, f32) } catch (e) { console.log(e.message) }`], {
      encoding: "utf8",
      env: { ...process.env, CUDASCRIPT_BACKEND: "simulator", CUDASCRIPT_SIM_MEMORY: "lots" },
    });
    assert.match(r.stdout, /^CSR018: CUDASCRIPT_SIM_MEMORY=lots is not a memory size: .* 8GiB/);
  });

  it("CUDASCRIPT_SIM_MEMORY sets the budget the device reports", () => {
    const out = inChild(`
      let message = "";
      try { cuda.deviceArray(2 * 2 ** 20, f32); } catch (e) { message = e.message; }
      console.log(JSON.stringify({ message, total: cuda.gpus[0].totalMemory }));`, { CUDASCRIPT_SIM_MEMORY: "4MiB" }) as { message: string; total: number };
    assert.equal(out.total, 4 * MiB);
    assert.match(out.message, /^CSR016: out of device memory: asked 8 MiB, 0 B of 4 MiB in use/);
  });
});

