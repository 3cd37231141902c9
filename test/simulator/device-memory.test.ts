/** Simulator device memory: what free() gives back, and the device-memory budget (CSR016). */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { test } from "node:test";
import { REPO } from "./helpers";

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
