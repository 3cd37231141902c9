/**
 * Replay to a fault in a host program being debugged (docs/debugging.md, "Replay to a fault"): the
 * program runs again as the run ran it, each launch first on the simulator as `cudascript run` runs
 * it (with `--sanitize` when the run had it; one executor, so the first fault is the first in block
 * order, as the debugger runs blocks), from a copy of the memory it may write. Launches that run clean
 * keep their results and cost no debugging. The first launch that faults is put back and debugged with
 * the replay target (replay-launch.ts): its session stops at the faulting thread and line. Later
 * launches (a program that catches the fault and goes on) are debugged as usual.
 */
import type { SimulatorOptions } from "../simulator/options";
import type { CudaScriptError } from "../errors";
import type { DebugOptions } from "./session-types";
import { firstFault, replayTarget, type ReplayedLaunch } from "./replay-launch";
import { didNotRecur, faultMatches, type FaultDescriptor, type ReplayTarget } from "./replay-target";

/** What the replay of a host program is for (a debug configuration's `onFault`, `sanitize`, `uninitializedShared`). */
export interface HostReplayOptions {
  /** `true`: the run's first fault; else the fault the run reported (checked against the one the replay meets). */
  readonly fault: FaultDescriptor | true;
  readonly sanitize: boolean;
  readonly uninitializedShared?: "warn" | "error";
}

/** How long a replayed launch that ran away runs in the debugger before it pauses in its loop (CSD019). */
const RUNAWAY_PAUSE_MS = 1000;

export class HostReplay {
  private met: CudaScriptError | undefined;

  constructor(
    private readonly options: HostReplayOptions,
    /** What the debugger says (a fault other than the one asked for, CSR089): to the program's stderr. */
    private readonly warn: (text: string) => void,
  ) {}

  /** The simulator settings the run had (and one executor: the first fault is the first in block order). */
  get simulatorOptions(): Partial<SimulatorOptions> {
    return { sanitize: this.options.sanitize, workers: 1, ...(this.options.uninitializedShared ? { uninitializedShared: this.options.uninitializedShared } : {}) };
  }

  /** Whether the next launch is replayed (no fault met yet). */
  get pending(): boolean {
    return this.met === undefined;
  }

  /**
   * Runs a launch (`run`: the simulator's own launch) before it is debugged: `clean` when it ran
   * without a fault (its results kept: nothing to debug), else the memory is as before it and
   * `target` is where its session stops (none when it cannot: then break on fault stops where it can).
   */
  launch(launch: Omit<ReplayedLaunch, "sanitize" | "uninitializedShared">, run: () => void): { readonly clean: true } | { readonly clean: false; readonly target?: ReplayTarget; readonly options?: Pick<DebugOptions, "fastBlocks" | "timeLimitMs"> } {
    const full: ReplayedLaunch = { ...launch, sanitize: this.options.sanitize, uninitializedShared: this.options.uninitializedShared ?? "warn" };
    const fault = firstFault(full, run);
    if (!fault) return { clean: true };
    this.met = fault;
    if (!faultMatches(fault, this.options.fault))
      this.warn(`cudascript debug: ${didNotRecur(`the run reported ${describe(this.options.fault)}, the replay met ${fault.message}`).message}. Stopping at the fault the replay met.\n`);
    const { target, problem } = replayTarget(full, fault);
    if (problem) this.warn(`cudascript debug: ${problem.message}\n`);
    // A runaway loop is known to run forever: every block is stepped (no fast run to time out first) and
    // the session pauses in the loop after a short while, not the usual 30 s.
    return { clean: false, ...(target ? { target } : {}), ...(fault.details?.kind === "timeout" ? { options: { fastBlocks: false, timeLimitMs: RUNAWAY_PAUSE_MS } } : {}) };
  }

  /** The first fault is one the debugger cannot replay (a cooperative kernel's): said, and the program ends with it. */
  notReplayed(fault: CudaScriptError, why: string): void {
    this.met = fault;
    this.warn(`cudascript debug: not replayed: ${why}\n`);
  }

  /** At the program's end: what to say when the replay never met a fault (CSR089), else nothing. */
  finish(): string | undefined {
    if (this.met) return undefined;
    const hint = this.options.sanitize ? "" : "; if the run's fault was a sanitizer finding, debug with the sanitizer on (--sanitize, \"sanitize\": true)";
    if (this.options.fault === true) return `cudascript debug: the program ended without a kernel fault: nothing to replay${hint}\n`;
    return `cudascript debug: ${didNotRecur(`the program ended without a kernel fault (the run reported ${describe(this.options.fault)})${hint}`).message}\n`;
  }
}

function describe(f: FaultDescriptor | true): string {
  if (f === true) return "a fault";
  const where = [f.kernel ? `kernel '${f.kernel}'` : "", f.line ? `line ${f.line}` : "", f.block ? `block (${f.block.join(", ")})` : "", f.thread ? `thread (${f.thread.join(", ")})` : ""].filter(Boolean).join(", ");
  return `${f.code ?? "a fault"}${where ? ` (${where})` : ""}`;
}
