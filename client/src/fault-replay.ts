/**
 * "Debug this fault" (docs/vscode.md, docs/debugging.md "Replay to a fault"): a run that ended with a
 * kernel fault — out of bounds, a sanitizer finding, a thrown error — offers to debug it; the debug
 * session runs the program again with the run's settings (`sanitize`) and stops at the faulting thread
 * and line (the adapter's `onFault`, the fault as the run reported it). The simulator is deterministic,
 * so the replay meets the same fault.
 *
 * The fault is read from the run's output, the CLI's one coded line:
 *   cudascript: error CSR021: shared-memory race on 's[0]' at kernels.ts:8:15 in kernel 'racy', block (0, 0, 0), thread (1, 0, 0): …
 * Nothing here needs `vscode` but `debugThisFault` (so the parser is tested in plain Node).
 */
import * as path from "node:path";
import type * as vscodeTypes from "vscode";

/** The action of the failed run's notification (and what the e2e test clicks). */
export const DEBUG_THIS_FAULT = "Debug this fault";

/** A kernel fault as the run reported it: what the debug configuration's `onFault` names. */
export interface RunFault {
  readonly code: string;
  readonly kernel: string;
  /** As printed (relative to the run's folder, or absolute). */
  readonly file?: string;
  readonly line?: number;
  readonly block: [number, number, number];
  readonly thread: [number, number, number];
  /**
   * The run was on a GPU (not "running … on the simulator"): the replay (on the simulator) meets the
   * same fault at the same line, but which thread a GPU reports first (of several that fault, or raise)
   * is its scheduling's, so the replay is not held to the thread.
   */
  readonly gpu: boolean;
}

const FAULT_LINE = /\berror (CSR\d{3}): .*? in kernel '([^']+)'(?: \(device function '[^']+'\))?, block \((\d+), (\d+), (\d+)\), thread \((\d+), (\d+), (\d+)\)/;
const AT = / at (.+?):(\d+):\d+ in kernel '/;
/** The CLI's line naming the backend: `cudascript: running main.ts on the simulator (--sanitize), sanitizer on`, or `cudascript: running on the simulator: no GPU driver — …`. */
const ON_SIMULATOR = /^cudascript: running (.* )?on the simulator/m;

/** The first kernel fault (with a block and a thread: one the debugger can stop at) the run's output reports. */
export function runFault(output: string): RunFault | undefined {
  for (const l of output.split("\n")) {
    const m = FAULT_LINE.exec(l);
    if (!m) continue;
    const at = AT.exec(l);
    const n = (i: number) => Number(m[i]);
    return { code: m[1]!, kernel: m[2]!, ...(at ? { file: at[1]!, line: Number(at[2]) } : {}), block: [n(3), n(4), n(5)], thread: [n(6), n(7), n(8)], gpu: !ON_SIMULATOR.test(output) };
  }
  return undefined;
}

/** The debug configuration that replays `program` (as the run ran it, in `cwd`) to `fault`. */
export function faultDebugConfiguration(run: { program: string; cwd: string; sanitize: boolean }, fault: RunFault): vscodeTypes.DebugConfiguration {
  const file = fault.file === undefined ? undefined : path.isAbsolute(fault.file) ? fault.file : path.join(run.cwd, fault.file);
  return {
    type: "cudascript",
    request: "launch",
    name: `Debug this fault: ${fault.code} in ${fault.kernel}`,
    program: run.program,
    cwd: run.cwd,
    sanitize: run.sanitize,
    onFault: { code: fault.code, kernel: fault.kernel, ...(file ? { file } : {}), ...(fault.line ? { line: fault.line } : {}), ...(fault.gpu ? {} : { block: fault.block, thread: fault.thread }) },
  };
}

/** Starts the debug session of `faultDebugConfiguration` in the program's workspace folder. */
export function debugThisFault(run: { program: string; cwd: string; sanitize: boolean }, fault: RunFault): Thenable<boolean> {
  const vscode = require("vscode") as typeof vscodeTypes;
  const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(run.program));
  return vscode.debug.startDebugging(folder, faultDebugConfiguration(run, fault));
}
