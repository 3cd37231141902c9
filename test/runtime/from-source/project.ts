/**
 * Temporary projects for the compile-from-source tests: a folder of files whose node_modules links to
 * this repository's packages (cudascript and the real runners: tsx, Vitest, TypeScript), and runs of a
 * real runner in it, on the simulator, with the kernel cache in the folder.
 */
import * as assert from "node:assert/strict";
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { REPO } from "../../simulator/helpers";

export { REPO };

/** A saxpy and a shared-memory tree reduction, as arrow functions (no `fn.name`). */
export const KERNELS_TS = `import { cuda, f32 } from "cudascript";
import { TPB } from "./sizes";

export const saxpy = cuda.jit((a: f32, x: Float32Array, y: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = a * x[i] + y[i];
});

export const blockSum = cuda.jit((x: Float32Array, partial: Float32Array) => {
  const tile = cuda.shared.array(TPB, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  tile[t] = i < x.length ? x[i] : 0;
  cuda.syncthreads();
  for (let s = TPB >> 1; s > 0; s >>= 1) {
    if (t < s) tile[t] += tile[t + s];
    cuda.syncthreads();
  }
  if (t === 0) partial[cuda.blockIdx.x] = tile[0];
});
`;

export const SIZES_TS = "export const TPB = 64;\n";

/** Launches both kernels and prints what they computed. */
export const MAIN_TS = `import { blockSum, saxpy } from "./kernels";
import { TPB } from "./sizes";

const n = 1000;
const x = Float32Array.from({ length: n }, (_, i) => i);
const y = new Float32Array(n).fill(1);
const out = new Float32Array(n);
saxpy.launch(Math.ceil(n / TPB), TPB)(2, x, y, out);
const partial = new Float32Array(Math.ceil(n / TPB));
blockSum.launch(partial.length, TPB)(x, partial);
console.log(JSON.stringify(report(out, partial)));

export function report(out: Float32Array, partial: Float32Array) {
  return { saxpyOk: out.every((v, i) => v === 2 * i + 1), sum: partial.reduce((a, b) => a + b, 0), blocks: partial.length, names: [saxpy.name, blockSum.name] };
}
`;

/** What MAIN_TS prints with TPB = 64: every saxpy element right, the reduction's total 0 + … + 999. */
export const EXPECTED = { saxpyOk: true, sum: 499500, blocks: 16, names: ["saxpy", "blockSum"] };

export interface Project {
  readonly dir: string;
  write(file: string, text: string): string;
  /** Runs `args` with this node (or `command`) in the project; the kernel cache is `<dir>/cache`. */
  run(args: readonly string[], opts?: { env?: NodeJS.ProcessEnv; command?: string }): SpawnSyncReturns<string>;
  /** Runs and parses the last line printed, failing with the output when the run failed. */
  runJson(args: readonly string[], opts?: { env?: NodeJS.ProcessEnv }): unknown;
  remove(): void;
}

/** A temporary project; `links` are packages of the repository's node_modules to link into it. */
export function makeProject(files: Record<string, string>, links: readonly string[] = ["cudascript"]): Project {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "cudascript-from-source-")));
  for (const name of links) {
    const link = path.join(dir, "node_modules", name);
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.symlinkSync(fs.realpathSync(path.join(REPO, "node_modules", name)), link, "dir");
  }
  const project: Project = {
    dir,
    write(file, text) {
      const p = path.join(dir, file);
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, text);
      return p;
    },
    run(args, opts = {}) {
      return spawnSync(opts.command ?? process.execPath, args, {
        cwd: dir,
        encoding: "utf8",
        timeout: 120_000,
        env: { ...process.env, CUDASCRIPT_BACKEND: "simulator", CUDASCRIPT_CACHE_DIR: path.join(dir, "cache"), NO_COLOR: "1", ...opts.env },
      });
    },
    runJson(args, opts) {
      const r = project.run(args, opts);
      assert.equal(r.status, 0, `${args.join(" ")} failed:\n${r.stdout}\n${r.stderr}`);
      const lines = r.stdout.trim().split("\n");
      return JSON.parse(lines[lines.length - 1]!);
    },
    remove() {
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  for (const [file, text] of Object.entries(files)) project.write(file, text);
  return project;
}

/** Compiles the project's TypeScript with the real tsc CLI (`tsc ...args`). */
export function tsc(project: Project, args: readonly string[]): void {
  const r = project.run([path.join(REPO, "node_modules", "typescript", "bin", "tsc"), ...args]);
  assert.equal(r.status, 0, `tsc failed:\n${r.stdout}\n${r.stderr}`);
}

/** tsc options for a CommonJS program (link "@types/node" into the project for console and process). */
export const TSC_CJS = ["--module", "commonjs", "--target", "es2022", "--strict", "--skipLibCheck"];
