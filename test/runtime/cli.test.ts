/** `cudascript run` end to end, in child processes. */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { REPO } from "../simulator/helpers";

const CLI = path.join(REPO, "runtime", "dist", "cli", "main.js");
const FIX = path.join(REPO, "test", "runtime", "fixtures");

function run(args: string[], timeoutMs = 60_000) {
  const r = spawnSync(process.execPath, [CLI, "run", ...args], { cwd: REPO, encoding: "utf8", timeout: timeoutMs, env: { ...process.env, CUDASCRIPT_BACKEND: "" } });
  return { code: r.status, out: r.stdout, err: r.stderr, all: r.stdout + r.stderr };
}

describe("cudascript run", () => {
  it("runs examples/saxpy.ts on the simulator and prints OK", () => {
    const r = run(["examples/saxpy.ts"]);
    assert.equal(r.code, 0, r.all);
    assert.match(r.out, /^saxpy: 1048576 elements .* max \|error\| 0 — OK$/m);
    assert.equal(r.err, "cudascript: running on the simulator: no GPU driver — cudascript doctor\n", "the simulator notice, once");
  });
  it("CUDASCRIPT_RESULTS_FILE naming a FIFO (no reader) runs the program without results, in bounded time", (t) => {
    const dir = fs.mkdtempSync(path.join(REPO, "test", "dist", "runtime", "__results-fifo-"));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const fifo = path.join(dir, "results.jsonl");
    assert.equal(spawnSync("mkfifo", [fifo]).status, 0, "mkfifo");
    const r = spawnSync(process.execPath, [CLI, "run", "examples/saxpy.ts"], { cwd: REPO, encoding: "utf8", timeout: 60_000, env: { ...process.env, CUDASCRIPT_BACKEND: "", CUDASCRIPT_RESULTS_FILE: fifo } });
    assert.equal(r.signal, null, "the run with a FIFO as its results file did not finish");
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /— OK$/m);
    assert.match(r.stderr, /CUDASCRIPT_RESULTS_FILE=.*results\.jsonl is not a regular file \(a FIFO\): launch results are not recorded/);
  });
  it("--sanitize runs the sanitizer build", () => {
    const r = run(["--sanitize", "--workers", "2", "examples/histogram.ts"]);
    assert.equal(r.code, 0, r.all);
    assert.match(r.err, /sanitizer on/);
    assert.match(r.out, /— OK$/m);
  });
  it("runs examples/montecarlo-pi.ts (cuda.random) under the sanitizer on two workers: π, the TypeScript reference and a rerun agree", () => {
    const r = run(["--sanitize", "--workers", "2", "examples/montecarlo-pi.ts"]);
    assert.equal(r.code, 0, r.all);
    assert.match(r.out, /^montecarlo-pi: 1536 threads .* 64 threads match the TypeScript reference; repeatable — OK$/m);
  });
  it("--timeout 1 stops a runaway kernel with a message and a non-zero exit", () => {
    const t0 = Date.now();
    const r = run(["--timeout", "1", path.join(FIX, "runaway.ts")], 20_000);
    assert.notEqual(r.code, 0, r.all);
    assert.ok(Date.now() - t0 < 10_000, "stopped promptly");
    assert.match(r.out, /launching a kernel that never ends/);
    assert.doesNotMatch(r.out, /unreachable/);
    assert.match(r.err, /CSR024.*kernel 'spin'.*--timeout 1 s/);
    assert.doesNotMatch(r.err, /^\s+at /m, "no stack trace");
  });
  it("--timeout 1 --sanitize names the runaway loop's line", () => {
    const r = run(["--timeout", "1", "--sanitize", path.join(FIX, "runaway.ts")], 20_000);
    assert.notEqual(r.code, 0, r.all);
    assert.match(r.err, /CSR024: runaway loop at test\/runtime\/fixtures\/runaway\.ts:7:3 in kernel 'spin'/);
  });
  it("--sanitize: GPU-Puzzles' matmul (unwritten tile elements read, never stored) runs clean, exit 0, in both --uninitialized-shared modes", () => {
    for (const mode of [[], ["--uninitialized-shared", "error"], ["--uninitialized-shared", "warn"]]) {
      const r = run(["--sanitize", ...mode, path.join(FIX, "puzzles-matmul.ts")]);
      assert.equal(r.code, 0, r.all);
      assert.match(r.out, /^matmul: OK$/m);
      assert.doesNotMatch(r.err, /CSR0\d\d/, r.err);
    }
  });
  it("--sanitize stops where an unwritten shared value is stored (CSR068 naming the read), exit 1; with warn it goes on", () => {
    const r = run(["--sanitize", path.join(FIX, "unwritten-shared.ts")]);
    assert.equal(r.code, 1, r.all);
    assert.match(r.err, /cudascript: error CSR068: undefined value used as a value stored to global memory at test\/runtime\/fixtures\/unwritten-shared\.ts:16:\d+ in kernel 'blockSum', block \(0, 0, 0\), thread \(0, 0, 0\): it comes from the read of shared memory 'tile' at test\/runtime\/fixtures\/unwritten-shared\.ts:15:\d+/);
    assert.doesNotMatch(r.out, /sum:/);
    const w = run(["--sanitize", "--uninitialized-shared", "warn", path.join(FIX, "unwritten-shared.ts")]);
    assert.equal(w.code, 0, w.all);
    assert.match(w.err, /cudascript: CSR068 warning: undefined value used as a value stored to global memory at test\/runtime\/fixtures\/unwritten-shared\.ts:16:/);
    assert.match(w.out, /^sum: 31$/m);
  });
  it("--uninitialized poison: the plain run shows the garbage (NaN) a GPU could give; the default shows 0 filled in", () => {
    const p = run(["--uninitialized", "poison", path.join(FIX, "unwritten-shared.ts")]);
    assert.equal(p.code, 0, p.all);
    assert.match(p.out, /^sum: NaN$/m);
    const z = run(["--backend", "simulator", path.join(FIX, "unwritten-shared.ts")]);
    assert.match(z.out, /^sum: 31$/m);
    const m = run(["--uninitialized", "poison", path.join(FIX, "puzzles-matmul.ts")]);
    assert.match(m.out, /^matmul: OK$/m, "unwritten reads that never reach a result change nothing");
  });
  it("a kernel fault is one clear message with the TypeScript line, exit 1", () => {
    const r = run([path.join(FIX, "oob.ts")]);
    assert.equal(r.code, 1, r.all);
    assert.match(r.err, /cudascript: error CSR020: out-of-bounds read of array 'x' at test\/runtime\/fixtures\/oob\.ts:7:14 in kernel 'shift', block \(7, 0, 0\), thread \(103, 0, 0\): index 1000 is outside 0\.\.999/);
    assert.match(r.err, /from the host program at test\/runtime\/fixtures\/oob\.ts:12:/);
    assert.doesNotMatch(r.err, /^\s+at /m, "no stack trace");
  });
  it("checker errors fail the build with file and line", () => {
    const r = run([path.join(FIX, "check-error.ts")]);
    assert.equal(r.code, 1, r.all);
    assert.match(r.err, /CS1001/);
    assert.match(r.err, /check-error\.ts:6:/);
    assert.match(r.err, /was not run/);
  });
  it("a TypeScript syntax error fails the build with CS1020 on the user's line, not in esbuild at inserted text", () => {
    const r = run([path.join(REPO, "test", "corpus", "invalid", "cs1020-missing-paren.ts")]);
    assert.equal(r.code, 1, r.all);
    assert.match(r.err, /CS1020: TS1005: '\)' expected\./);
    assert.match(r.err, /cs1020-missing-paren\.ts:5:/);
    assert.doesNotMatch(r.err, /__cudascript_artifact/, "no error in the text the plugin inserts");
    assert.equal(r.err.match(/TS1005/g)?.length, 1, "reported once");
  });
  it("1,000 nested ifs in a kernel stop the build with CS1021 on their line, not a RangeError", () => {
    // In the repository, so that the program's import of "cudascript" resolves.
    const src = path.join(REPO, "test", "runtime", `__deep_ifs_${process.pid}.ts`);
    const ifs = "  if (i < a.length) {\n".repeat(1000);
    fs.writeFileSync(src, `import { cuda } from "cudascript";\nexport const k = cuda.jit((a: Float32Array) => {\n  const i = cuda.grid(1);\n${ifs}  a[i] = 1;\n${"  }\n".repeat(1000)}});\nk.launch(1, 32)(new Float32Array(32));\n`);
    try {
      const r = run([src]);
      assert.equal(r.code, 1, r.all);
      assert.match(r.err, /CS1021: this code is nested more than \d+ levels deep/);
      assert.match(r.err, new RegExp(`__deep_ifs_${process.pid}\\.ts:\\d+:`));
      assert.doesNotMatch(r.all, /RangeError|Maximum call stack/);
    } finally {
      fs.rmSync(src, { force: true });
    }
  });
  it("recursion across files stops the build with CS1007 instead of printing a wrong answer", () => {
    const r = run([path.join(REPO, "test", "corpus", "invalid", "cs1007-cross-file-even.ts")]);
    assert.equal(r.code, 1, r.all);
    assert.match(r.err, /CS1007: 'isOdd' cannot be compiled: .*'isEven' is called recursively/);
    assert.match(r.err, /cs1007-cross-file-even\.ts:8:/);
    assert.doesNotMatch(r.out, /parity:/, "the program did not run");
  });
  it("--backend gpu fails clearly without a CUDA driver", () => {
    const r = run(["--backend", "gpu", "examples/saxpy.ts"]);
    assert.equal(r.code, 1, r.all);
    assert.match(r.err, /CSR015.*no CUDA driver was found.*--backend simulator/);
  });
  it("--timeout longer than Node's timers can hold (3,000,000 s) lets the program finish", () => {
    const r = run(["--timeout", "3000000", "examples/saxpy.ts"]);
    assert.equal(r.code, 0, r.all);
    assert.match(r.out, /— OK$/m);
    assert.doesNotMatch(r.err, /was stopped/);
  });
  it("a fractional --timeout (2.0005 s) reaches the simulator, which stops the kernel itself (CSR024)", () => {
    const r = run(["--timeout", "2.0005", path.join(FIX, "runaway.ts")], 20_000);
    assert.notEqual(r.code, 0, r.all);
    assert.match(r.err, /CSR024.*kernel 'spin'.*--timeout 2\.0005 s/);
  });
  it("empty, malformed or out-of-range numeric options are usage errors that say what to write", () => {
    for (const [args, expected] of [
      [["--timeout="], /option '--timeout' needs a value, got an empty one/],
      [["--timeout", ""], /option '--timeout' needs a value, got an empty one/],
      [["--timeout=1e3"], /--timeout takes a number of seconds \(0 = no limit\) from 0 to 1,000,000,000, not '1e3'/],
      [["--timeout=Infinity"], /--timeout takes a number/],
      [["--timeout=-1"], /--timeout takes a number/],
      [["--timeout=99999999999"], /--timeout takes a number .* not '99999999999'/],
      [["--workers=0"], /--workers takes a whole number from 1 to 1,024, not '0'/],
      [["--workers", "99999999999999999999"], /--workers takes a whole number from 1 to 1,024/],
      [["--workers="], /option '--workers' needs a value/],
    ] as const) {
      const r = run([...args, "examples/saxpy.ts"]);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.all}`);
      assert.match(r.err, expected, args.join(" "));
    }
  });
  it("usage errors", () => {
    assert.equal(run([]).code, 2);
    assert.equal(run(["--backend", "tpu", "examples/saxpy.ts"]).code, 2);
    assert.equal(run(["examples/nope.ts"]).code, 2);
    const bad = run(["--sanitize", "--uninitialized-shared", "ignore", "examples/saxpy.ts"]);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--uninitialized-shared takes warn or error, not 'ignore'/);
    const fill = run(["--uninitialized", "nan", "examples/saxpy.ts"]);
    assert.equal(fill.code, 2);
    assert.match(fill.err, /--uninitialized takes zero or poison, not 'nan'/);
    const alone = run(["--uninitialized-shared", "error", "examples/saxpy.ts"]);
    assert.equal(alone.code, 2);
    assert.match(alone.err, /only applies with --sanitize/);
  });
});
