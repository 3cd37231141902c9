/** The kernel debugger's stepping backend and its in-process controller (docs/debugging.md). */
export { DebugSession, type BreakpointResult, type BreakpointSpec, type Command, type ConditionContext, type DataBreakpointInfo, type DataBreakpointResult, type DebugEvent, type DebugLaunch, type DebugOptions, type Dim3, type EndEvent, type EvaluateResult, type FocusView, type FrameView, type LaneValue, type LogEvent, type RunningEvent, type StopEvent, type VariableView, type WarpWatch } from "./session";
export type { ThreadStatus } from "./block-scheduler";
