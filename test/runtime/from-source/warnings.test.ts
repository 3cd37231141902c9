/**
 * Checker warnings of kernels compiled from source reach the user as they do under `cudascript run`:
 * printed on stderr once per kernel (not per launch), also when the kernels come from the disk cache,
 * and made errors (CSR052, the launch throws, the Vitest test fails) by CUDASCRIPT_WARNINGS=error,
 * which also fails `cudascript run`'s build.
 */
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { describe, it } from "node:test";
import { makeProject, REPO } from "./project";

const TSX_CLI = path.join(REPO, "node_modules", "tsx", "dist", "cli.mjs");
const VITEST_CLI = path.join(REPO, "node_modules", "vitest", "vitest.mjs");
const CLI = path.join(REPO, "runtime", "bin", "cudascript.js");

/** A kernel with a barrier only some threads reach: CS5001, a warning (it runs on the simulator). */
const DIVERGENT_TS = [
  'import { cuda, f32, type Array1D } from "cudascript";',
  "",
  "export const fill = cuda.jit((out: Array1D<f32>) => {",
  "  const i = cuda.grid(1);",
  "  if (i < 16) {",
  "    cuda.syncthreads();",
  "  }",
  "  if (i < out.length) out[i] = 1;",
  "});",
  "",
].join("\n");

const MAIN_TS = [
  'import { fill } from "./divergent";',
  "const out = new Float32Array(32);",
  "fill.launch(1, 32)(out);",
  "fill.launch(1, 32)(out);",
  "console.log(JSON.stringify(out.reduce((a, b) => a + b, 0)));",
  "",
].join("\n");

const WARNING = /^divergent\.ts:6:5 - warning CS5001: cuda\.syncthreads\(\) may not be reached by every thread .*on a GPU this hangs/m;

const count = (text: string, re: RegExp) => text.split("\n").filter((line) => re.test(line)).length;

describe("checker warnings of kernels compiled from source", () => {
  it("tsx prints the CS5001 warning once for two launches, and again from the disk cache", () => {
    const p = makeProject({ "divergent.ts": DIVERGENT_TS, "main.ts": MAIN_TS });
    try {
      for (const run of ["compiled", "cached"]) {
        const r = p.run([TSX_CLI, "main.ts"]);
        assert.equal(r.status, 0, r.stderr);
        assert.equal(r.stdout.trim(), "32", `${run}: the program runs`);
        assert.equal(count(r.stderr, WARNING), 1, `${run}: the warning once:\n${r.stderr}`);
      }
    } finally {
      p.remove();
    }
  });

  it("CUDASCRIPT_WARNINGS=error makes the launch throw CSR052 with the warning as an error, from the cache too", () => {
    const p = makeProject({ "divergent.ts": DIVERGENT_TS, "main.ts": MAIN_TS });
    try {
      assert.equal(p.run([TSX_CLI, "main.ts"]).status, 0, "warm the cache");
      const r = p.run([TSX_CLI, "main.ts"], { env: { CUDASCRIPT_WARNINGS: "error" } });
      assert.notEqual(r.status, 0, r.stdout);
      assert.match(r.stderr, /CSR052/);
      assert.match(r.stderr, /divergent\.ts:6:5 - error CS5001: /);
      assert.equal(r.stdout, "", "no launch ran");
    } finally {
      p.remove();
    }
  });

  it("a Vitest test of the kernel fails under CUDASCRIPT_WARNINGS=error, and prints the warning without it", () => {
    const test = [
      'import { expect, test } from "vitest";',
      'import { fill } from "./divergent";',
      'test("fill", () => {',
      "  const out = new Float32Array(32);",
      "  fill.launch(1, 32)(out);",
      "  expect(out.every((v) => v === 1)).toBe(true);",
      "});",
      "",
    ].join("\n");
    const p = makeProject(
      { "divergent.ts": DIVERGENT_TS, "fill.test.ts": test, "vitest.config.mjs": 'export default { test: { include: ["fill.test.ts"] } };\n' },
      ["cudascript", "vitest"],
    );
    try {
      const green = p.run([VITEST_CLI, "run", "--config", "vitest.config.mjs"]);
      assert.equal(green.status, 0, `${green.stdout}\n${green.stderr}`);
      assert.match(`${green.stdout}\n${green.stderr}`, /warning CS5001: /);
      const red = p.run([VITEST_CLI, "run", "--config", "vitest.config.mjs"], { env: { CUDASCRIPT_WARNINGS: "error" } });
      assert.notEqual(red.status, 0, `${red.stdout}\n${red.stderr}`);
      assert.match(`${red.stdout}\n${red.stderr}`, /CSR052[\s\S]*error CS5001: /);
    } finally {
      p.remove();
    }
  });

  it("cudascript run: CUDASCRIPT_WARNINGS=error fails the build with error CS5001, also when a build without it is cached", () => {
    const p = makeProject({ "divergent.ts": DIVERGENT_TS, "main.ts": MAIN_TS });
    try {
      const warm = p.run([CLI, "run", "main.ts"]);
      assert.equal(warm.status, 0, warm.stderr);
      assert.equal(count(warm.stderr, WARNING), 1, warm.stderr);
      const r = p.run([CLI, "run", "main.ts"], { env: { CUDASCRIPT_WARNINGS: "error" } });
      assert.equal(r.status, 1, r.stderr);
      assert.match(r.stderr, /^divergent\.ts:6:5 - error CS5001: /m);
      assert.match(r.stderr, /main\.ts was not run: 1 error/);
      assert.equal(r.stdout, "", "the program did not run");
      const bad = p.run([CLI, "run", "main.ts"], { env: { CUDASCRIPT_WARNINGS: "loud" } });
      assert.equal(bad.status, 1, bad.stderr);
      assert.match(bad.stderr, /^cudascript: error CSR018: CUDASCRIPT_WARNINGS=loud is not a setting/m);
    } finally {
      p.remove();
    }
  });

  it("CUDASCRIPT_WARNINGS with another value is CSR018, naming the values it takes", () => {
    const p = makeProject({ "divergent.ts": DIVERGENT_TS, "main.ts": MAIN_TS });
    try {
      const r = p.run([TSX_CLI, "main.ts"], { env: { CUDASCRIPT_WARNINGS: "loud" } });
      assert.notEqual(r.status, 0);
      assert.match(r.stderr, /CSR018.*CUDASCRIPT_WARNINGS=loud.*"warn".*"error"/);
    } finally {
      p.remove();
    }
  });
});
