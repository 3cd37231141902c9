/** bench/sim-launch-overhead.mjs (printed by bench/sim.mjs) still runs and reports every row (not its numbers). */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { test } from "node:test";
import { REPO } from "./helpers";

test("the simulator launch-overhead benchmark runs and reports each launch path with the targets", () => {
  const r = spawnSync(process.execPath, [path.join(REPO, "bench", "sim-launch-overhead.mjs"), "--quick"], {
    encoding: "utf8",
    env: { ...process.env, CUDASCRIPT_BACKEND: "simulator" },
    timeout: 120_000,
  });
  assert.equal(r.status, 0, r.stderr);
  for (const row of ["plain JavaScript call", "k.launch(1, 32)(deviceArray, x), in-process", "configured launcher", "with a barrier", "host Float32Array argument", "on workers (forced)"])
    assert.match(r.stdout, new RegExp(`${row.replace(/[()]/g, "\\$&")}.* \\d+\\.\\d\\d µs`), row);
  assert.match(r.stdout, /targets: ≤ 20 µs in-process \((meets|misses): [\d.]+\), ≤ 100 µs on workers/);
});
