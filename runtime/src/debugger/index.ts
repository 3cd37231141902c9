/** The kernel debugger's stepping backend and its in-process controller (docs/debugging.md). */
export { DebugSession, type BreakpointSpec, type ConditionContext, type DebugEvent, type DebugLaunch, type DebugOptions, type Dim3, type EndEvent, type FocusView, type FrameView, type StopEvent, type VariableView } from "./session";
export type { ThreadStatus } from "./block-scheduler";
