/**
 * The launch records a run writes for the results panel (CUDASCRIPT_RESULTS_FILE): the first launch of
 * a kernel carries the time spent making it runnable ("compile"), and a launch that fails (CSR020) is a
 * launch record too, with its error, so the panel lists it instead of "No kernel launches were reported".
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { parseResults, type ResultRecord } from "cudascript/dist/report/protocol";
import { makeProject, REPO } from "./from-source/project";

type Launch = Extract<ResultRecord, { type: "launch" }>;

const PROGRAM_TS = [
  'import { cuda, f32, type Array1D } from "cudascript";',
  "",
  "export const fill = cuda.jit((out: Array1D<f32>) => {",
  "  const i = cuda.grid(1);",
  "  if (i < out.length) out[i] = 1;",
  "});",
  "",
  "export const bad = cuda.jit((out: Array1D<f32>) => {",
  "  const i = cuda.grid(1);",
  "  out[i + 1] = 1;",
  "});",
  "",
  "const out = new Float32Array(32);",
  "fill.launch(1, 32)(out);",
  "fill.launch(1, 32)(out);",
  "bad.launch(1, 32)(out);",
  "",
].join("\n");

const TSX_CLI = path.join(REPO, "node_modules", "tsx", "dist", "cli.mjs");
const CLI = path.join(REPO, "runtime", "bin", "cudascript.js");

function launches(file: string): Launch[] {
  return parseResults(fs.readFileSync(file, "utf8")).filter((r): r is Launch => r.type === "launch");
}

describe("launch records for the results panel", () => {
  for (const [runner, args] of [
    ["cudascript run (as VS Code runs a program)", [CLI, "run", "--timeout", "60", "main.ts"]],
    ["tsx (kernels compiled from source)", [TSX_CLI, "main.ts"]],
  ] as const) {
    it(`${runner}: the first launch has its compile time, later ones none, and the failed launch is listed with CSR020`, () => {
      const p = makeProject({ "main.ts": PROGRAM_TS });
      try {
        const results = path.join(p.dir, "results.jsonl");
        const r = p.run([...args], { env: { CUDASCRIPT_RESULTS_FILE: results } });
        assert.equal(r.status, 1, `the program ends with the kernel fault:\n${r.stdout}\n${r.stderr}`);
        const [first, second, failed, ...rest] = launches(results);
        assert.deepEqual(rest, []);
        assert.equal(first?.kernel, "fill");
        assert.equal(typeof first?.timings.compileMs, "number", JSON.stringify(first));
        assert.ok(first!.timings.compileMs! > 0);
        assert.equal(first?.error, undefined);
        assert.equal(second?.kernel, "fill");
        assert.equal(second?.timings.compileMs, undefined, "the kernel was compiled once");
        assert.equal(failed?.kernel, "bad");
        assert.equal(failed?.error?.code, "CSR020", JSON.stringify(failed));
        assert.match(failed?.error?.message ?? "", /^CSR020: out-of-bounds write of array 'out' at .*main\.ts:10:3 in kernel 'bad'/);
        assert.equal(failed?.timings.kernelMs, undefined);
      } finally {
        p.remove();
      }
    });
  }
});
