/**
 * The focus thread's part of the debug adapter's protocol, beyond DAP (an editor's thread picker uses it):
 *
 * - event `cudascript.focus` — sent at every stop and after a focus change: the launch's `gridDim` and
 *   `blockDim` (what a picker validates against) and the focus `block` and `thread`, each [x, y, z];
 * - request `cudascript.focus` `{ thread: [x, y, z], block?: [x, y, z] }` — moves the focus to another
 *   thread of the block being debugged, answered with the new focus (the body of the event). The
 *   adapter then sends a `stopped` event for it, so the editor refreshes its threads and variables.
 *
 * Blocks run one at a time (the other blocks of the grid have run, or not yet started), so the focus
 * can move within the stopped block only; another block of the grid is a clear error saying how to
 * stop there (a breakpoint conditioned on `cuda.blockIdx`).
 */
import { CudaScriptError } from "../errors";
import type { DebugSession, Dim3 } from "./session";

/** What the focus needs of the session: a DebugSession, or the host program's stand-in for one (host/target.ts). */
type FocusTarget = Pick<DebugSession, "gridDim" | "blockDim" | "focusView" | "focus">;

export const FOCUS_EVENT = "cudascript.focus";
export const FOCUS_REQUEST = "cudascript.focus";

/** Body of the focus event and of the focus request's response. */
export interface FocusBody {
  readonly gridDim: Dim3;
  readonly blockDim: Dim3;
  readonly block: Dim3;
  readonly thread: Dim3;
}

export interface FocusRequestArgs {
  readonly thread?: unknown;
  readonly block?: unknown;
}

export function focusBody(session: FocusTarget, block: Dim3, thread: Dim3): FocusBody {
  return { gridDim: session.gridDim, blockDim: session.blockDim, block, thread };
}

const show = (d: readonly number[]) => `(${d.join(", ")})`;

/** `v` as an index [x, y, z] below `dims` (CSD025 otherwise, saying the valid range). */
function index(v: unknown, dims: Dim3, what: "thread" | "block"): Dim3 {
  const a = Array.isArray(v) ? v : undefined;
  const ok = a && a.length >= 1 && a.length <= 3 && a.every((x, i) => Number.isInteger(x) && x >= 0 && x < dims[i]!);
  if (!ok) {
    const dimName = what === "thread" ? "blockDim" : "gridDim";
    throw new CudaScriptError(
      "CSD025",
      `focus: ${what} ${JSON.stringify(v)} is not in the launch: a ${what} index is [x, y, z] with each value from 0 below ${dimName} ${show(dims)}, e.g. [${dims.map((d) => d - 1).join(", ")}]`,
    );
  }
  return [a![0], a![1] ?? 0, a![2] ?? 0];
}

/** Validates a focus request against the launch and moves the session's focus; returns the new focus. */
export function moveFocus(session: FocusTarget, args: FocusRequestArgs | undefined): FocusBody {
  const thread = index(args?.thread, session.blockDim, "thread");
  const current = session.focusView().block; // CSD011 when no block is stopped
  if (args?.block !== undefined) {
    const block = index(args.block, session.gridDim, "block");
    if (block.some((v, i) => v !== current[i]))
      throw new CudaScriptError(
        "CSD026",
        `focus: block ${show(block)} is not the block being debugged — blocks run one at a time, and the launch is stopped in block ${show(current)}; pick a thread of block ${show(current)}, or stop in block ${show(block)} with a breakpoint whose condition is ${block.map((v, i) => `cuda.blockIdx.${"xyz"[i]} === ${v}`).filter((_, i) => i === 0 || session.gridDim[i]! > 1).join(" && ")}`,
      );
  }
  const view = session.focus(thread);
  return focusBody(session, view.block, view.thread);
}
