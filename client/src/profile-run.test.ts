import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { launchesKernels, readProfile, runProblem } from "./profile-run";
import type { RunResult } from "./runner";

const run = (state: RunResult["state"], message: string, output = ""): RunResult => ({ state, exitCode: state === "ok" ? 0 : 1, output, resultsFile: "", records: 0, durationMs: 1, message });

test("a file that launches kernels is profiled as a program; a file of kernels through a kernel's @run tag", () => {
  assert.equal(launchesKernels("saxpy.launch(n / 256, 256)(2, x, y, out);"), true);
  assert.equal(launchesKernels("k.launch ([1, 1], [32, 32])(a)"), true);
  assert.equal(launchesKernels("solveHeatEquation.forall(size)(buf0, buf1, niter, k);"), true);
  assert.equal(launchesKernels('import { saxpyUfunc } from "./ufuncs";\nconsole.log(saxpyUfunc(x, y));'), true, "no kernel defined here: a program");
  assert.equal(launchesKernels("export const k = cuda.jit((a: Float32Array) => { a[0] = 1; });"), false);
});

test("why a profiler run gave no profile: an old CLI, a timeout, a coded failure, a cancel — each in one sentence", () => {
  assert.match(runProblem(run("failed", "exited with code 2", "cudascript: unknown command 'profile'\n\nUsage: …")), /no `profile` command: update it \(npm install --save-dev cudascript@latest\)/);
  assert.match(runProblem(run("timeout", "timed out after 120 s and was stopped (setting cudascript.run.timeoutSeconds)")), /^The profile timed out after 120 s .* profile a smaller launch/);
  assert.equal(
    runProblem(run("failed", "exited with code 1: error CSR020: out-of-bounds write of array 'out'")),
    "The profiler did not finish: exited with code 1: error CSR020: out-of-bounds write of array 'out'. Nothing to show; the run's output is below.",
  );
  assert.equal(runProblem(run("cancelled", "cancelled")), "The profile was cancelled.");
  // cudascript profile on a program that finished without a launch
  assert.match(runProblem(run("failed", "exited with code 1: cudascript: the program ended (exit code 0) before any profile was written", "no kernel launched\ncudascript: the program ended (exit code 0) before any profile was written\n")), /^The program launched no kernel, so there is nothing to profile/);
  // the GPU backend forced: the profiler's coded error is the reason
  assert.match(runProblem(run("failed", "exited with code 1: error CSR091: the profiler counts on the simulator")), /did not finish: exited with code 1: error CSR091/);
});

test("reading the profile file: missing, empty, not a profile, no launches, a profile", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "profile-run-"));
  try {
    const file = (name: string, text: string) => (fs.writeFileSync(path.join(dir, name), text), path.join(dir, name));
    assert.match((readProfile(path.join(dir, "none.json")) as { problem: string }).problem, /wrote no profile \(.*none\.json is missing\)/);
    assert.match((readProfile(file("empty.json", "")) as { problem: string }).problem, /^The profile cannot be shown: the profiler wrote an empty file/);
    assert.match((readProfile(file("v2.json", '{"version": 2, "launches": []}')) as { problem: string }).problem, /reads profile version 1/);
    assert.match((readProfile(file("none-launched.json", '{"version": 1, "launches": []}')) as { problem: string }).problem, /^The program launched no kernel, so there is nothing to profile/);
    const ok = readProfile(file("ok.json", '{"version": 1, "launches": [{"kernel": "k", "grid": [1, 1, 1], "block": [32, 1, 1], "totals": {}, "lines": []}]}'));
    assert.ok(!("problem" in ok));
    assert.equal(ok.launches[0]!.kernel, "k");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
