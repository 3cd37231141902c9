/**
 * Replay to a fault, one launch (docs/debugging.md, "Replay to a fault"): the launch runs as the run
 * ran it (the simulator, with the sanitizer when the run had it), from a copy of the device memory it
 * may write; a clean launch is kept as it ran. A faulting one is put back, and the replay target is
 * found: on which pass over the fault's line the faulting thread faulted (and the other thread of a
 * race reached its line), by the counting run of replay-count.ts, the memory put back after each. The
 * launch is then debugged from its original memory with the target (DebugOptions.replay).
 */
import { writtenArrayParams, type IrModule } from "@cudascript/compiler";
import { CudaScriptError } from "../errors";
import type { Dim3 } from "./expressions";
import { copyWritten, putBack } from "./fast-blocks";
import { DebugSession } from "./session";
import type { DebugOptions } from "./session-types";
import { countPasses, statementLine, type CountedLaunch } from "./replay-count";
import { didNotRecur, faultMatches, otherAccessOf, type FaultDescriptor, type ReplayPoint, type ReplayTarget } from "./replay-target";

export interface ReplayedLaunch extends CountedLaunch {
  readonly module: IrModule;
  /** The run's sanitizer setting: the replay counts on the same module variant. */
  readonly sanitize: boolean;
  readonly uninitializedShared: "warn" | "error";
}

/** A copy of the device memory the kernel may write (as the debugger's speculative fast runs take it). */
function snapshot(launch: ReplayedLaunch): ReturnType<typeof copyWritten> {
  const k = launch.module.kernels.find((f) => f.name === launch.kernel);
  return copyWritten(launch.args, k ? writtenArrayParams(k) : launch.args.map((_, i) => i));
}

/**
 * Runs the launch (`run`: the simulator's own launch) and returns its kernel fault, with the device
 * memory put back as it was before; undefined when it ran clean (its results kept). Errors that are
 * not a kernel's fault (a bad launch) pass through.
 */
export function firstFault(launch: ReplayedLaunch, run: () => void): CudaScriptError | undefined {
  const saved = snapshot(launch);
  try {
    run();
    return undefined;
  } catch (e) {
    if (!(e instanceof CudaScriptError) || !e.details) throw e;
    putBack(saved);
    return e;
  }
}

/**
 * Where the replay of the faulting launch stops, or why it cannot stop there (`problem`): the fault
 * has no thread or line (then the launch is debugged with break on fault only), or the counting run
 * did not meet the same fault (CSR089). The device memory is as before the launch on return.
 */
export function replayTarget(launch: ReplayedLaunch, error: CudaScriptError): { target?: ReplayTarget; problem?: CudaScriptError } {
  const d = error.details;
  // A loop that never ends would not end in the counting run either: the session pauses in it (CSD019).
  if (d?.kind === "timeout")
    return { problem: new CudaScriptError(error.code, `a runaway loop is not counted to its pass: the launch is debugged and pauses in the loop at the debugger's time limit (CSD019), the thread in focus — ${error.message}`) };
  if (!d?.file || !d.line || !d.block || !d.thread) return { problem: didNotRecur(`${error.code} names no thread and line to stop at (${error.message})`) };
  const fault = count(launch, d.file, d.line, d.col ?? 1, d.block as Dim3, d.thread as Dim3);
  if (!fault) return { problem: didNotRecur(`line ${d.line} of ${d.file} has no statement the debugger can stop at`) };
  const again = fault.error;
  if (!again || again.code !== error.code || again.details?.line !== d.line || again.details?.thread?.join() !== d.thread.join() || again.details?.block?.join() !== d.block.join())
    return { problem: didNotRecur(`the launch replayed ${again ? `faults with ${again.message}` : "runs clean"}, the run faulted with ${error.message}`) };
  if (fault.point.hits === 0) return { problem: didNotRecur(`thread (${d.thread.join(", ")}) faulted before reaching a statement of line ${fault.point.line}`) };
  const o = otherAccessOf(error);
  const other = o ? count(launch, o.file ?? d.file, o.line, o.col ?? Number.MAX_SAFE_INTEGER, o.block, o.thread) : undefined;
  return { target: { fault: fault.point, error, ...(other && other.point.hits > 0 ? { other: other.point } : {}) } };
}

/**
 * One launch replayed in-process (a kernel launch written out in a debug configuration, tests): runs
 * it on the simulator's module (the sanitizer's with `sanitize`) and, if it faults, returns a
 * DebugSession of it from its original memory that stops at the fault (`problem`: where it cannot,
 * the session then stops only on a fault the stepping backend raises itself). Without a fault the
 * launch's results are kept and there is no session.
 */
export function replayLaunch(launch: ReplayedLaunch, options: Omit<DebugOptions, "replay"> = {}): { fault?: CudaScriptError; session?: DebugSession; problem?: CudaScriptError } {
  const fault = firstFault(launch, () => {
    const r = countPasses(launch.module, launch, undefined, launch);
    if (r?.error) throw r.error;
  });
  if (!fault) return {};
  const { target, problem } = replayTarget(launch, fault);
  const session = new DebugSession(
    { module: launch.module, kernel: launch.kernel, grid: launch.grid, block: launch.block, args: launch.args, ...(launch.sharedMem !== undefined ? { sharedMem: launch.sharedMem } : {}) },
    { ...options, ...(target ? { replay: target } : {}) },
  );
  return { fault, session, ...(problem ? { problem } : {}) };
}

/**
 * `replayLaunch` for a debug configuration's `onFault` (a kernel launch written out): the session, or
 * none when the launch ran clean; and what the debugger has to say (no fault, another fault than the
 * one named, a CSR089), as lines for the client's console.
 */
export function replayForConfiguration(launch: ReplayedLaunch, descriptor: FaultDescriptor | true, options: Omit<DebugOptions, "replay">): { session?: DebugSession; notes: string[] } {
  const r = replayLaunch(launch, options);
  const notes: string[] = [];
  if (!r.fault) notes.push(`cudascript debug: the launch ran without a kernel fault: nothing to replay${launch.sanitize ? "" : ' (sanitizer findings are faults only with "sanitize": true)'}`);
  else if (!faultMatches(r.fault, descriptor)) notes.push(`cudascript debug: ${didNotRecur(`the launch faulted with ${r.fault.message}, not with the fault named in "onFault"`).message}. Stopping at the fault the replay met.`);
  if (r.problem) notes.push(`cudascript debug: ${r.problem.message}`);
  return { ...(r.session ? { session: r.session } : {}), notes };
}

/** The passes of a thread over the statement line of (line, col) up to the fault, with the fault (memory put back). */
function count(launch: ReplayedLaunch, file: string, line: number, col: number, block: Dim3, thread: Dim3): { point: ReplayPoint; error: CudaScriptError | undefined } | undefined {
  const at = statementLine(launch.module, file, line, col);
  if (at === undefined) return undefined;
  const saved = snapshot(launch);
  try {
    const c = countPasses(launch.module, launch, { file, line: at, block, thread }, { sanitize: launch.sanitize, uninitializedShared: launch.uninitializedShared });
    return c && { point: { file, line: at, block, thread, hits: c.hits }, error: c.error };
  } finally {
    putBack(saved);
  }
}
