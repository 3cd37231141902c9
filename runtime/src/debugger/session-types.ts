/** The debugger controller's data: a launch, its options, and what its commands return (all plain data but the launch's memory). */
import type { IrModule } from "@cudascript/compiler";
import type { CudaScriptError } from "../errors";
import type { ArgDesc } from "../simulator/executor";
import type { LogEvent } from "./breakpoints";
import type { ThreadStatus } from "./block-scheduler";
import type { Dim3 } from "./expressions";
import type { ReplayTarget } from "./replay-target";

export interface DebugLaunch {
  readonly module: IrModule;
  readonly kernel: string;
  readonly grid: Dim3;
  readonly block: Dim3;
  /** Dynamic shared memory bytes. */
  readonly sharedMem?: number;
  /** The arguments as the simulator's executor gets them (device memory, dtype, shape; scalars as values). */
  readonly args: readonly ArgDesc[];
  /** The kernel file's text, where it is not on disk (debugger expressions are compiled against it). */
  readonly source?: string;
}

export interface DebugOptions {
  /** Stop at the fault's line with the faulting thread in focus (default true); else the launch ends with the fault. */
  readonly breakOnFault?: boolean;
  /** Stop at the first statement of thread (0, 0, 0) of block (0, 0, 0). */
  readonly stopOnEntry?: boolean;
  /** Blocks where nothing can stop run on the fast simulator (default true); false steps every block (tests, benchmarks). */
  readonly fastBlocks?: boolean;
  /** Kernel console.log output (default: process.stdout). */
  readonly print?: (text: string) => void;
  /** Logpoint output (default: `print`, the message after the thread's block and thread index). */
  readonly log?: (e: LogEvent) => void;
  /** A command that runs this long without a stop pauses itself (default 30 s). */
  readonly timeLimitMs?: number;
  /**
   * Blocks run on the fast simulator are stopped after this long (default 2 s), their memory restored,
   * and run again on the stepping backend, where a pause can stop a loop that never ends.
   */
  readonly fastBlockTimeoutMs?: number;
  /**
   * Replay to a fault (replay-launch.ts makes it): the faulting thread stops, reason "exception", at the
   * pass over the fault's line where it faulted, before the statement runs; `replayOther()` is a race's
   * other thread as it was at its access.
   */
  readonly replay?: ReplayTarget;
}

/** A variable of a frame: scalars as their values (i64 as bigints, complex as { re, im }), arrays as their storage and shape. */
export interface VariableView {
  readonly name: string;
  readonly kind: "scalar" | "array";
  readonly dtype: string;
  readonly isParam: boolean;
  readonly value: unknown;
  readonly space?: string;
  /** An array of records: its type's name, size and fields (record-values.ts decodes its elements). */
  readonly record?: { readonly name: string; readonly size: number; readonly fields: readonly { readonly name: string; readonly dtype: string; readonly offset: number }[] };
}

export interface FrameView {
  readonly function: string;
  readonly file: string;
  readonly line: number;
  readonly col: number;
  readonly variables: readonly VariableView[];
}

export interface StopEvent {
  readonly kind: "stop";
  readonly reason: "entry" | "breakpoint" | "step" | "exception" | "pause" | "data breakpoint";
  /** What happened, for a data breakpoint (the element, old → new value) or a pause at the time limit. */
  readonly description?: string;
  readonly file: string;
  readonly line: number;
  readonly block: Dim3;
  readonly thread: Dim3;
  /** The focus thread's call stack, innermost first (empty after a fault in a block the fast simulator ran). */
  readonly frames: readonly FrameView[];
  /** The step went across a barrier: the rest of the block ran up to it. */
  readonly acrossBarrier?: boolean;
  /** The fault (reason "exception"). */
  readonly error?: CudaScriptError;
}

export interface EndEvent {
  readonly kind: "end";
  /** The fault the launch ended with, as the fast simulator reports it. */
  readonly error?: CudaScriptError;
}

export type DebugEvent = StopEvent | EndEvent;

/** A time slice ended before the command did: call runSlice again (or pause). */
export interface RunningEvent {
  readonly kind: "running";
}

export type Command = "continue" | "stepOver" | "stepIn" | "stepOut";

/** An evaluated expression: its value as text and its dtype; an array variable names it (`array`) for a pager. */
export interface EvaluateResult {
  readonly result: string;
  readonly type: string;
  readonly array?: { readonly name: string; readonly frame: number };
}

/** One lane of a warp watch. */
export interface LaneValue {
  readonly lane: number;
  readonly thread: Dim3;
  readonly status: ThreadStatus;
  /** At the focus thread's statement (converged with it): the lanes a warp operation there would have active. */
  readonly active: boolean;
  readonly line?: number;
  readonly result?: string;
  readonly error?: string;
}

export interface WarpWatch {
  readonly expression: string;
  readonly type?: string;
  readonly lanes: readonly LaneValue[];
}

/** A focus thread's state for a debugger view. */
export interface FocusView {
  readonly block: Dim3;
  readonly thread: Dim3;
  readonly status: ThreadStatus;
  readonly frames: readonly FrameView[];
}
