/**
 * Which modules a program loads, every thread of it: LOAD_LOGGER is a `--require` preload that logs
 * each module load as a JSON line to $CUDASCRIPT_TEST_LOAD_LOG; assertNoBuildTimeModules fails on any
 * module only the build needs (TypeScript, esbuild, the compiler's front end).
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { REPO } from "../simulator/helpers";

/** Logs every module each thread loads (workers run `--require` preloads too) as JSON lines. */
export const LOAD_LOGGER = `
const Module = require("node:module");
const fs = require("node:fs");
const { threadId } = require("node:worker_threads");
const log = process.env.CUDASCRIPT_TEST_LOAD_LOG;
const write = (record) => fs.appendFileSync(log, JSON.stringify({ thread: threadId, ...record }) + "\\n");
write({ started: true });
const load = Module._load;
Module._load = function (request, parent, isMain) {
  let file = request;
  try { file = Module._resolveFilename(request, parent, isMain); } catch {}
  write({ request, file, parent: parent && parent.filename });
  return load.apply(this, arguments);
};
`;

export interface LoadRecord {
  thread: number;
  started?: true;
  request?: string;
  file?: string;
  parent?: string;
}

const COMPILER_DIR = fs.realpathSync(path.join(REPO, "compiler"));
/**
 * The parts of the compiler package the run time may load: the dtype table and the synchronisation semantics (intrinsics/sync; both import nothing) always; the occupancy calculator on every reported
 * launch; the layout parser of cuda.guvectorize (gufunc, which imports nothing) at a gufunc's first call; on the GPU backend, when a kernel is first compiled, the CUDA C++ generator and the NVRTC
 * driver (with the IR and diagnostics types they share). None of them imports the front end.
 */
const COMPILER_RUN_TIME_PARTS = ["dtypes", "intrinsics", "occupancy", "cuda", "compile", "ir", "diagnostics", "gufunc"].map((dir) => path.join(COMPILER_DIR, "dist", dir) + path.sep);

/** Why a loaded module is build-time only, or undefined when the run time may load it. */
export function buildTimeOnly(file: string): string | undefined {
  const pkg = /[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(file)?.[1]?.replace(/\\/g, "/");
  if (pkg && /^(typescript|esbuild|@esbuild\/.*)$/.test(pkg)) return pkg;
  let real = file;
  try {
    real = fs.realpathSync(file);
  } catch {
    // a builtin ("node:fs") or an unresolvable request: not a file of any package
  }
  if (real.startsWith(COMPILER_DIR + path.sep) && !COMPILER_RUN_TIME_PARTS.some((part) => real.startsWith(part))) return "@cudascript/compiler";
  return undefined;
}

export function assertNoBuildTimeModules(loads: readonly LoadRecord[]): void {
  const buildTime = loads
    .filter((r) => r.file !== undefined && buildTimeOnly(r.file) !== undefined)
    .map((r) => `thread ${r.thread}: ${buildTimeOnly(r.file!)} (${r.request}) loaded by ${r.parent}`);
  assert.deepEqual(buildTime, [], "the run-time path loaded build-time modules");
}
