/**
 * The simulator notice under the runners that compile kernels from source: when `auto` finds no GPU
 * driver (here: CUDASCRIPT_LIBCUDA=off, so that a machine with a driver tests the same), tsx and a
 * Vitest run print `cudascript: running on the simulator: no GPU driver — cudascript doctor` once, on
 * stderr, as plain node and `cudascript run` do (test/gpu/selection.test.ts).
 */
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { describe, it } from "node:test";
import { makeProject, REPO } from "./project";

const TSX_CLI = path.join(REPO, "node_modules", "tsx", "dist", "cli.mjs");
const VITEST_CLI = path.join(REPO, "node_modules", "vitest", "vitest.mjs");
const NOTICE = "cudascript: running on the simulator: no GPU driver — cudascript doctor";
const NO_DRIVER = { CUDASCRIPT_BACKEND: "auto", CUDASCRIPT_LIBCUDA: "off" };

const KERNEL_TS = [
  'import { cuda, f32, type Array1D } from "cudascript";',
  "export const fill = cuda.jit((out: Array1D<f32>) => {",
  "  const i = cuda.grid(1);",
  "  if (i < out.length) out[i] = 1;",
  "});",
  "",
].join("\n");

const occurrences = (text: string) => text.split(NOTICE).length - 1;

describe("the simulator notice under tsx and Vitest", () => {
  it("tsx: once on stderr for two launches", () => {
    const p = makeProject({ "fill.ts": KERNEL_TS, "main.ts": 'import { fill } from "./fill";\nconst out = new Float32Array(4);\nfill.launch(1, 4)(out);\nfill.launch(1, 4)(out);\nconsole.log(JSON.stringify([...out]));\n' });
    try {
      const r = p.run([TSX_CLI, "main.ts"], { env: NO_DRIVER });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout.trim(), "[1,1,1,1]");
      assert.equal(occurrences(r.stderr), 1, r.stderr);
      assert.equal(occurrences(r.stdout), 0, "on stderr only");
    } finally {
      p.remove();
    }
  });

  it("vitest run: once", () => {
    const test = 'import { expect, test } from "vitest";\nimport { fill } from "./fill";\ntest("fill", () => {\n  const out = new Float32Array(4);\n  fill.launch(1, 4)(out);\n  fill.launch(1, 4)(out);\n  expect([...out]).toEqual([1, 1, 1, 1]);\n});\n';
    const p = makeProject({ "fill.ts": KERNEL_TS, "fill.test.ts": test, "vitest.config.mjs": 'export default { test: { include: ["fill.test.ts"] } };\n' }, ["cudascript", "vitest"]);
    try {
      const r = p.run([VITEST_CLI, "run", "--config", "vitest.config.mjs"], { env: NO_DRIVER });
      assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
      assert.equal(occurrences(`${r.stdout}\n${r.stderr}`), 1, `${r.stdout}\n${r.stderr}`);
    } finally {
      p.remove();
    }
  });
});
