/**
 * `cudascript run` and `doctor` where koffi's and esbuild's binaries are not installed for this platform
 * (a .vsix packed for another one, an install with --omit=optional): a message that says what to install,
 * never an internal error; `run` then runs the program from its source on the simulator. The simulator's worker script doctor checks is the one the simulator starts.
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { REPO } from "../simulator/helpers";

const CLI = path.join(REPO, "runtime", "dist", "cli", "main.js");
const HIDE = path.join(REPO, "test", "runtime", "fixtures", "no-natives", "hide-natives.cjs");

function cli(args: string[], hideNatives: boolean) {
  const r = spawnSync(process.execPath, [...(hideNatives ? ["--require", HIDE] : []), CLI, ...args], {
    cwd: REPO,
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, CUDASCRIPT_BACKEND: "", NO_COLOR: "1" },
  });
  return { code: r.status, out: r.stdout, err: r.stderr, all: r.stdout + r.stderr };
}

describe("without the platform's native packages", () => {
  it("run says esbuild for this platform is missing and what to install, and runs the program from its TypeScript source (run-from-source.test.ts)", () => {
    const r = cli(["run", "examples/saxpy.ts"], true);
    assert.equal(r.code, 0, r.all);
    assert.doesNotMatch(r.all, /internal error/);
    assert.match(r.err, new RegExp(`esbuild for ${process.platform}-${process.arch} is not installed here .*: running examples/saxpy\\.ts from its TypeScript source`));
    assert.match(r.err, /npm install --save-dev cudascript/);
    assert.match(r.out, /saxpy: .* — OK/);
  });

  it("doctor reports the native bindings as one problem with its fix and still checks the simulator", () => {
    const r = cli(["doctor"], true);
    assert.equal(r.code, 0, r.all);
    assert.doesNotMatch(r.all, /internal error/);
    assert.match(r.out, new RegExp(`\\[native\\] CudaScript's native bindings do not load on ${process.platform}-${process.arch}`));
    assert.match(r.out, /fix: install cudascript with npm on this machine/);
    assert.doesNotMatch(r.out, /\[nvrtc\] NVRTC could not be loaded/, "the same cause is not reported twice");
    assert.match(r.out, /worker script\s+\S+worker\.js\n/);
  });
});

describe("doctor's simulator check", () => {
  it("names the worker script the simulator starts, and finds it", () => {
    const r = cli(["doctor", "--json"], false);
    const report = JSON.parse(r.out) as { simulator: { workerScript: string; workerScriptFound: boolean } };
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { SIMULATOR_WORKER_FILE } = require(path.join(REPO, "runtime", "dist", "simulator", "backend.js")) as { SIMULATOR_WORKER_FILE: string };
    assert.equal(report.simulator.workerScript, SIMULATOR_WORKER_FILE);
    assert.equal(report.simulator.workerScriptFound, true);
    assert.ok(fs.existsSync(report.simulator.workerScript));
  });
});
