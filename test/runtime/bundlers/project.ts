/**
 * A small TypeScript project for the bundler tests, in a temp dir laid out like a user's: the
 * runtime installed under node_modules (links to this repository's packages), a program with a
 * saxpy, and a kernel library under node_modules that ships TypeScript (a shared-memory reduction).
 * `runBundle` runs a bundle with `node` on the simulator with two worker threads and reports which
 * worker scripts it started, to prove the runtime found its simulator worker (a bundled runtime
 * silently falls back to one thread).
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { REPO } from "../../simulator/helpers";

export const N = 5000;
const TPB = 128;

const PROGRAM = `import { cuda, f32 } from "cudascript";
import { blockSum } from "kernel-lib";

const saxpy = cuda.jit((a: f32, x: Float32Array, y: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = a * x[i] + y[i];
});

const n = ${N};
const x = new Float32Array(n).map((_, i) => i);
const y = new Float32Array(n).fill(1);
const out = new Float32Array(n);
saxpy.launch(Math.ceil(n / 128), 128)(2, x, y, out);
console.log("saxpy", out[7], out[n - 1]);

const blocks = Math.ceil(n / ${TPB});
const partial = new Float32Array(blocks);
blockSum.launch(blocks, ${TPB})(x.map((v) => v % 7), partial);
console.log("sum", partial.reduce((s, v) => s + v, 0));
`;

const LIBRARY = `import { cuda, f32 } from "cudascript";

export const blockSum = cuda.jit((x: Float32Array, partial: Float32Array) => {
  const tile = cuda.shared.array(${TPB}, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  tile[t] = i < x.length ? x[i] : 0;
  cuda.syncthreads();
  for (let s = ${TPB} >> 1; s > 0; s >>= 1) {
    if (t < s) tile[t] += tile[t + s];
    cuda.syncthreads();
  }
  if (t === 0) partial[cuda.blockIdx.x] = tile[0];
});
`;

/** A kernel with a checker error (CS1001, a string in a kernel) on line 3. */
const BAD = `import { cuda } from "cudascript";
export const k = cuda.jit((x: Float32Array) => {
  x[0] = "a".length;
});
`;

/** A kernel with a checker warning (CS5001, a barrier only some threads reach) on line 3; it still builds. */
const WARN = `import { cuda } from "cudascript";
export const k = cuda.jit((x: Float32Array) => {
  if (cuda.threadIdx.x < 5) cuda.syncthreads();
  x[0] = 1;
});
`;

/** What the program prints, computed here in plain TypeScript. */
export function expectedOutput(): string {
  let sum = 0;
  for (let i = 0; i < N; i++) sum += i % 7;
  return `saxpy ${2 * 7 + 1} ${2 * (N - 1) + 1}\nsum ${sum}\n`;
}

export interface Project {
  readonly dir: string;
  readonly main: string;
  readonly bad: string;
  readonly warn: string;
  readonly out: string;
  remove(): void;
}

export function makeProject(bundler: string): Project {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `cudascript-${bundler}-`));
  const modules = path.join(dir, "node_modules");
  fs.mkdirSync(path.join(modules, "@cudascript"), { recursive: true });
  fs.symlinkSync(path.join(REPO, "runtime"), path.join(modules, "cudascript"), "dir");
  for (const p of ["compiler", "native-bindings"]) fs.symlinkSync(path.join(REPO, p), path.join(modules, "@cudascript", p), "dir");
  const lib = path.join(modules, "kernel-lib");
  fs.mkdirSync(lib);
  fs.writeFileSync(path.join(lib, "package.json"), JSON.stringify({ name: "kernel-lib", version: "1.0.0", main: "index.ts", types: "index.ts" }));
  fs.writeFileSync(path.join(lib, "index.ts"), LIBRARY);
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "app", private: true }));
  fs.writeFileSync(path.join(dir, "main.ts"), PROGRAM);
  fs.writeFileSync(path.join(dir, "bad.ts"), BAD);
  fs.writeFileSync(path.join(dir, "warn.ts"), WARN);
  return { dir, main: path.join(dir, "main.ts"), bad: path.join(dir, "bad.ts"), warn: path.join(dir, "warn.ts"), out: path.join(dir, "out"), remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

const COUNT_WORKERS = `const wt = require("node:worker_threads");
const Worker = wt.Worker;
const started = [];
wt.Worker = class extends Worker { constructor(file, options) { super(file, options); started.push(String(file)); } };
process.on("exit", () => process.stderr.write("\\n[workers] " + JSON.stringify(started) + "\\n"));
`;

/** Runs `bundle` with node; checks its output and that it ran on the installed runtime's worker threads. */
export function runBundle(project: Project, bundle: string): void {
  const preload = path.join(project.dir, "count-workers.cjs");
  fs.writeFileSync(preload, COUNT_WORKERS);
  const env = { ...process.env, CUDASCRIPT_BACKEND: "simulator", CUDASCRIPT_WORKERS: "2", CUDASCRIPT_INPROCESS_THRESHOLD: "0" };
  const r = spawnSync(process.execPath, ["--require", preload, bundle], { cwd: project.dir, env, encoding: "utf8", timeout: 60_000 });
  assert.equal(r.status, 0, `${bundle} failed:\n${r.stdout}\n${r.stderr}`);
  assert.equal(r.stdout, expectedOutput());
  const started = JSON.parse(/\[workers\] (.*)/.exec(r.stderr)?.[1] ?? "[]") as string[];
  assert.ok(started.length >= 1, `no simulator worker thread started:\n${r.stderr}`);
  for (const file of started) assert.equal(fs.realpathSync(file), path.join(REPO, "runtime", "dist", "simulator", "worker.js"));
  // The runtime is not in the bundle (it weighs ~15 MB bundled).
  assert.ok(fs.statSync(bundle).size < 200_000, `${bundle} is ${fs.statSync(bundle).size} bytes: the runtime was bundled`);
}

/** Checks that `messages` (a bundler's warnings) hold the warning kernel's, with its file, line and code. */
export function assertNamesWarning(messages: readonly string[]): void {
  assert.equal(messages.filter((m) => /CS5001/.test(m)).length, 1, messages.join("\n"));
  assert.match(messages.find((m) => /CS5001/.test(m))!, /warn\.ts:3:\d+ CS5001: /);
}

/** Checks that `message` (a bundler's error text) names the bad kernel's file, line and code. */
export function assertNamesBadKernel(message: string): void {
  assert.match(message, /bad\.ts:3:\d+ CS1001: /);
}
