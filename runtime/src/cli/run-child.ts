/**
 * The child process of `cudascript run`: runs the bundled program and turns a CudaScript error that
 * escapes it (a kernel fault, a sanitizer finding, a bad launch) into one clear message with the
 * TypeScript location of the launch, instead of a stack trace. Exit code 1 then.
 */
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { KILL_GRACE_MS, PARENT_PID_ENV, TEMP_DIR_ENV, WATCHDOG_MARGIN_MS } from "./run-limits";
import type { WatchdogData } from "./run-watchdog";

startWatchdog();

const [bundle, ...rest] = process.argv.slice(2);
process.argv = [process.argv[0]!, bundle!, ...rest];

const BUNDLE = path.resolve(bundle!);

/** The runtime package (its dist, and its src that source maps point to). */
const RUNTIME_DIR = path.join(__dirname, "..", "..") + path.sep;

function callSite(e: Error): string | undefined {
  for (const line of (e.stack ?? "").split("\n").slice(1)) {
    const m = /\(?((?:file:\/\/)?\/[^():]+|[A-Za-z]:\\[^():]+):(\d+):(\d+)\)?\s*$/.exec(line.trim());
    if (!m) continue;
    let file = m[1]!.replace(/^file:\/\//, "");
    // The bundle's own lines (its banner) are not the program's: its frames are mapped to the sources.
    if (file.startsWith(RUNTIME_DIR) || file.startsWith("node:") || file.includes("/node_modules/") || file === BUNDLE) continue;
    file = path.relative(process.cwd(), file) || file;
    return `${file}:${m[2]}:${m[3]}`;
  }
  return undefined;
}

let reported = false;
function report(e: unknown): void {
  if (reported) return;
  reported = true;
  const err = e as Error & { code?: string };
  if (err && err.name === "CudaScriptError") {
    const site = callSite(err);
    process.stderr.write(`cudascript: error ${err.message}\n${site ? `  (from the host program at ${site})\n` : ""}`);
  } else if (err instanceof Error) {
    process.stderr.write(`${err.stack ?? err.message}\n`);
  } else {
    process.stderr.write(`cudascript: the program threw ${String(e)}\n`);
  }
  process.exit(1);
}

process.on("uncaughtException", report);
process.on("unhandledRejection", report);

// The program's `cudascript` is this runtime (run-command marks it external): set up what the backend
// chosen by the parent (CUDASCRIPT_BACKEND) needs before the program's first line, e.g. page-locked
// memory for cuda.pinnedArray on the GPU.
// eslint-disable-next-line @typescript-eslint/no-require-imports

import(pathToFileURL(bundle!).href).catch(report);

/** Dies with the parent and at the deadline, whatever the program's main thread is doing (see run-watchdog.ts). */
function startWatchdog(): void {
  const parentPid = Number(process.env[PARENT_PID_ENV]);
  if (!Number.isInteger(parentPid) || parentPid <= 0) return; // not started by `cudascript run`
  const deadline = process.env.CUDASCRIPT_DEADLINE && /^\d+$/.test(process.env.CUDASCRIPT_DEADLINE) ? Number(process.env.CUDASCRIPT_DEADLINE) : Infinity;
  const data: WatchdogData = { parentPid, stopAt: deadline + KILL_GRACE_MS + WATCHDOG_MARGIN_MS, tempDir: process.env[TEMP_DIR_ENV] || undefined };
  // The program's own variables should not tell a program it starts that it is a `cudascript run` child.
  delete process.env[PARENT_PID_ENV];
  delete process.env[TEMP_DIR_ENV];
  const watchdog = new Worker(path.join(__dirname, "run-watchdog.js"), { workerData: data });
  watchdog.unref(); // the program ends when its own work does
}
