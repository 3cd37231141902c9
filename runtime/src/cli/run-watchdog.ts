/**
 * A worker thread of the `cudascript run` child: makes the program die with its parent and never
 * outlive its deadline, even when the program's main thread is stuck (a host loop that never ends, a
 * kernel the simulator cannot interrupt). A worker keeps running while the main thread is blocked;
 * the parent alone cannot ensure this, because a parent that is SIGKILLed runs no clean-up, and its
 * child is then reparented and would run on.
 *
 * When the parent is gone (this process was reparented), the watchdog removes the parent's temporary
 * folder, which the parent can no longer remove, and kills the process. Past the deadline plus a
 * margin (the parent normally kills the child first, with its own message) it kills the process too.
 */
import * as fs from "node:fs";
import { workerData } from "node:worker_threads";

export interface WatchdogData {
  /** The `cudascript run` process; a different parent means it died. */
  readonly parentPid: number;
  /** Absolute time (ms since epoch) after which the program must not run; Infinity for none. */
  readonly stopAt: number;
  /** The parent's temporary folder (the bundle), removed when the parent cannot. */
  readonly tempDir?: string;
}

/** How often the parent and the clock are looked at: a bound on how long an orphan survives. */
const POLL_MS = 200;

const data = workerData as WatchdogData;

function stop(why: string, removeTemp: boolean): void {
  if (removeTemp && data.tempDir) {
    try {
      fs.rmSync(data.tempDir, { recursive: true, force: true });
    } catch {
      // Best effort: the next `cudascript run` removes folders whose owner is gone.
    }
  }
  try {
    fs.writeSync(2, `cudascript: ${why}\n`);
  } catch {
    // stderr may be a pipe nobody reads any more (the parent is gone).
  }
  // SIGKILL: the main thread may be in a loop that would never see a gentler signal's handler run.
  process.kill(process.pid, "SIGKILL");
}

setInterval(() => {
  if (process.ppid !== data.parentPid) stop("the `cudascript run` process ended, so the program was stopped", true);
  else if (Date.now() >= data.stopAt) stop("the program ran past its --timeout and was stopped", false);
}, POLL_MS);
