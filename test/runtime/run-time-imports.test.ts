/**
 * Build time and run time are separate: a program built with the CudaScript esbuild plugin runs its
 * kernels (on simulator worker threads, or on the GPU backend, which compiles them to PTX with NVRTC)
 * and reports their occupancy without loading TypeScript, esbuild or the compiler's front end. Checked structurally — every module any thread of
 * the program loads is logged by a `--require` hook — so a future import that drags the compiler into
 * the run-time path fails here, however fast the machine.
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { build } from "esbuild";
import { cudascriptPlugin } from "cudascript/esbuild";
import { driverDoubleOrSkip } from "../driver-double/test-double";
import { nvrtcOrSkip } from "../support/toolchain-or-skip";
import { REPO } from "../simulator/helpers";
import { assertNoBuildTimeModules, LOAD_LOGGER, type LoadRecord } from "./load-log";

const PROGRAM = [
  'import { cuda, f32 } from "cudascript";',
  "const scale = cuda.jit((x: Float32Array, k: f32) => {",
  "  const i = cuda.grid(1);",
  "  if (i < x.length) x[i] = x[i] * k;",
  "});",
  "const x = new Float32Array(4096).fill(1);",
  "scale.launch(16, 256)(x, 3);",
  "console.log(JSON.stringify({ sum: x.reduce((a, b) => a + b, 0) }));",
  "",
].join("\n");

interface LoggedRun {
  /** What the program printed. */
  output: { sum: number };
  loads: LoadRecord[];
  /** The results file's launch record of the kernel. */
  launch: { kernel: string; occupancy?: { percent: number; source: string } } | undefined;
}

/**
 * Builds PROGRAM with the esbuild plugin (in this process: build time), then runs the bundle in a fresh
 * node whose every thread logs the modules it loads.
 */
async function buildAndRunLogged(env: NodeJS.ProcessEnv): Promise<LoggedRun> {
  // Inside the repository, so that the bundle's require("cudascript") resolves.
  const dir = fs.mkdtempSync(path.join(REPO, "test", "dist", "runtime", "__run-time-imports-"));
  const src = path.join(REPO, "test", "runtime", `__run_time_imports_${process.pid}.ts`);
  try {
    fs.writeFileSync(src, PROGRAM);
    const bundle = path.join(dir, "program.js");
    try {
      await build({ entryPoints: [src], outfile: bundle, bundle: true, platform: "node", format: "cjs", external: ["cudascript"], logLevel: "silent", plugins: [cudascriptPlugin()] });
    } finally {
      fs.rmSync(src, { force: true });
    }
    const logger = path.join(dir, "load-logger.cjs");
    fs.writeFileSync(logger, LOAD_LOGGER);
    const loadLog = path.join(dir, "loads.jsonl");
    const resultsFile = path.join(dir, "results.jsonl");
    const run = spawnSync(process.execPath, ["--require", logger, bundle], {
      cwd: dir,
      encoding: "utf8",
      timeout: 60_000,
      env: { ...process.env, CUDASCRIPT_CACHE_DIR: path.join(dir, "cache"), ...env, CUDASCRIPT_RESULTS_FILE: resultsFile, CUDASCRIPT_TEST_LOAD_LOG: loadLog },
    });
    assert.equal(run.status, 0, `the program failed:\n${run.stderr}`);
    const lines = (file: string) => fs.readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    return {
      output: JSON.parse(run.stdout.trim()),
      loads: lines(loadLog) as LoadRecord[],
      launch: lines(resultsFile).find((r) => r.type === "launch" && r.kernel === "scale"),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe("run-time imports of cudascript", () => {
  it("a built program runs a kernel on simulator workers and reports occupancy without loading typescript, esbuild or the compiler front end", async () => {
    const run = await buildAndRunLogged({
      CUDASCRIPT_BACKEND: "simulator",
      // Every launch on two worker threads, so that the workers' imports are checked too.
      CUDASCRIPT_WORKERS: "2",
      CUDASCRIPT_INPROCESS_THRESHOLD: "0",
      CUDASCRIPT_MAIN_EXECUTES: "0",
    });
    assert.deepEqual(run.output, { sum: 4096 * 3 });
    // The hook ran where the kernel ran: in simulator worker threads as well as the main thread.
    assert.ok(run.loads.some((r) => r.started && r.thread !== 0), "the launch did not run on simulator worker threads");
    assert.ok(run.loads.some((r) => r.thread !== 0 && /[\\/]simulator[\\/]worker\.js$/.test(r.file ?? "")), "no worker thread loaded the simulator worker");
    assert.equal(run.launch?.occupancy?.source, "calculator");
    assert.equal(typeof run.launch?.occupancy?.percent, "number");
    assertNoBuildTimeModules(run.loads);
  });

  it("on the GPU backend (libcuda TEST DOUBLE), compiling the kernel with NVRTC at its first launch loads no typescript, esbuild or compiler front end", async (t) => {
    // The double runs nothing on a GPU (the array comes back unchanged); NVRTC is the real one.
    const double = driverDoubleOrSkip(t);
    if (!double || !nvrtcOrSkip(t)) return;
    const run = await buildAndRunLogged({ CUDASCRIPT_BACKEND: "gpu", CUDASCRIPT_LIBCUDA: double.path });
    assert.deepEqual(run.output, { sum: 4096 });
    assert.ok(run.loads.some((r) => /[\\/]compiler[\\/]dist[\\/]compile[\\/]compile\.js$/.test(r.file ?? "")), "the kernel was not compiled at run time");
    assert.equal(run.launch?.occupancy?.source, "driver");
    assertNoBuildTimeModules(run.loads);
  });
});
