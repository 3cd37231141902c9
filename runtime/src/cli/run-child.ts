/**
 * The child process of `cudascript run --timeout s`: runs the bundled program (run-program.ts) under a
 * watchdog thread that makes it die with its parent and never outlive its deadline.
 */
import * as path from "node:path";
import { Worker } from "node:worker_threads";
import { KILL_GRACE_MS, PARENT_PID_ENV, TEMP_DIR_ENV, WATCHDOG_MARGIN_MS } from "./run-limits";
import type { WatchdogData } from "./run-watchdog";
import { runProgram } from "./run-program";

startWatchdog();
const [bundle, ...rest] = process.argv.slice(2);
runProgram(bundle!, rest);

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
