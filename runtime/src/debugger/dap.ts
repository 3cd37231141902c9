/**
 * The Debug Adapter (DAP, on @vscode/debugadapter) over the in-process controller (session.ts):
 * `cudascript debug-adapter` speaks it over stdio, so VS Code, nvim-dap and tests drive the same code.
 *
 * Three launch configurations (docs/debugging.md):
 * - one kernel of a file with the launch written out:
 *   { "type": "cudascript", "request": "launch", "program": "kernels.ts", "kernel": "saxpy",
 *     "grid": 4, "block": [256, 1, 1], "args": [2.5, { "dtype": "f32", "range": 1024 }, { "dtype": "f32", "zeros": 1024 }] }
 *   An argument is a number (a scalar) or an array: `{ dtype, data: [...] }`, `{ dtype, zeros: n }` or
 *   `{ dtype, range: n }`, with an optional `shape` for an N-D parameter;
 * - a host program: { "program": "main.ts", "args"?: [...], "cwd"?, "env"? }, run in a worker thread as
 *   `cudascript run` runs it, each kernel launch a DebugSession there (host/host-program.ts);
 * - one kernel from its `@run` tag: { "program": "kernels.ts", "kernel": "saxpy" } without grid/block:
 *   the host program "Run Kernel" generates, debugged as above (host/host-launch.ts).
 *
 * DAP threads are the lanes of the focus thread's warp (ids: linear thread index + 1), not the whole
 * block; a request naming a thread (stackTrace, next, …) moves the focus to it. Scopes: the frame's
 * variables in scope (parameters included), and the thread's cuda.threadIdx / blockIdx / blockDim /
 * gridDim. Arrays are paged (`indexedVariables`), N-D ones by rows. Kernel console.log output is
 * DAP output (stdout is the protocol).
 */
import { formatRecord, recordElement } from "./record-values";
import * as fs from "node:fs";
import * as path from "node:path";
import { BreakpointEvent, DebugSession as DapSession, ErrorDestination, Event, ExitedEvent, Handles, InitializedEvent, OutputEvent, Scope, Source, StackFrame, StoppedEvent, TerminatedEvent, Thread } from "@vscode/debugadapter";
import type { DebugProtocol } from "@vscode/debugprotocol";
import { KernelChecker } from "@cudascript/compiler";
import { CudaScriptError } from "../errors";
import { DebugSession, type Command, type DebugEvent, type Dim3, type FocusView, type LogEvent, type StopEvent, type VariableView, type WarpWatch } from "./session";
import { logpointLine } from "./breakpoints";
import { formatValue } from "./expressions";
import { element } from "./values";
import type { DebugTarget } from "./host/target";
import { HostProgram } from "./host/host-program";
import { hostProgramOptions, isHostLaunch, type HostLaunchArguments } from "./host/host-launch";
import { DapFrameGuard } from "./dap-framing";
import { kernelLaunch, launchError, type KernelLaunchArguments } from "./launch-config";
import { replayForConfiguration } from "./replay-launch";
import { checkFaultDescriptor } from "./replay-target";
import { FOCUS_EVENT, FOCUS_REQUEST, focusBody, moveFocus, type FocusRequestArgs } from "./dap-focus";

export type { KernelLaunchArguments, LaunchArgument } from "./launch-config";

type Ref =
  /** `other`: the frames of a replayed race's other thread, as it was at its access (replay-stops.ts). */
  | { readonly kind: "locals"; readonly thread: Dim3; readonly frame: number; readonly other?: true }
  | { readonly kind: "cuda"; readonly thread: Dim3; readonly other?: true }
  /** `at`: the variable it pages (thread, frame, name) and the indices of this page's row, for data breakpoints. */
  | { readonly kind: "array"; readonly v: VariableView; readonly first: number; readonly dims: readonly number[]; readonly strides: readonly number[]; readonly at?: { readonly thread: Dim3; readonly frame: number; readonly index: readonly number[] } }
  | { readonly kind: "lanes"; readonly watch: WarpWatch };

/** A watch or evaluate expression with this prefix is evaluated in every lane of the focus warp. */
const WARP_PREFIX = /^\s*warp\s*:\s*/;
/** A command runs in slices of this many milliseconds; between them the adapter handles requests (pause). */
const SLICE_MS = 30;

/** CSD028: a request names a stack frame the adapter did not give (or gave before the last stop). */
function unknownFrame(id: unknown): CudaScriptError {
  return new CudaScriptError("CSD028", `frame ${JSON.stringify(id) ?? String(id)} is not a stack frame of the current stop: frame ids come from the last stackTrace response and are renewed at every stop`);
}

/** CSD028: a request names a variables reference the adapter did not give (or gave before the last stop). */
function unknownReference(id: unknown): CudaScriptError {
  return new CudaScriptError("CSD028", `variables reference ${JSON.stringify(id) ?? String(id)} is not one of the current stop: references come from the last scopes, variables or evaluate response and are renewed at every stop`);
}

/** An error's message for a DAP error response: a CudaScript error's own (coded), anything else as CSR030 — never its stack. */
function codedMessage(e: unknown, command: string): string {
  const message = e instanceof Error ? e.message : String(e);
  return /^CS[A-Z]*\d+: /.test(message) ? message : `CSR030: the debugger failed on a '${command}' request: ${message} (a request without the arguments DAP gives it, or a bug of the debugger: please report it)`;
}

export class KernelDebugAdapter extends DapSession {
  /** The launch being debugged: a DebugSession here, or the stopped launch of a host program (undefined while the program runs). */
  private session: DebugTarget | undefined;
  /** The host program being debugged (a host-program or @run launch configuration). */
  private host: HostProgram | undefined;
  private program = "";
  private kernel = "";
  private handles = new Handles<Ref>();
  /** The last stop: after a fault in a block the fast simulator ran there is no block to show, only this. */
  private lastStop: StopEvent | undefined;
  private readonly pendingBreakpoints = new Map<string, DebugProtocol.SourceBreakpoint[]>();
  /**
   * The breakpoints set before a launch or in a host program, as the editor has them (with ids), and the
   * lines a launch has a statement on: such a breakpoint is verified once a launch with its line starts.
   */
  private readonly hostBreakpoints = new Map<string, DebugProtocol.Breakpoint[]>();
  private readonly verifiedLines = new Map<string, Set<number>>();
  private nextBreakpointId = 1;
  private configured!: () => void;
  private readonly configurationDone = new Promise<void>((resolve) => (this.configured = resolve));

  constructor() {
    super();
    this.setDebuggerLinesStartAt1(true);
    this.setDebuggerColumnsStartAt1(true);
  }

  protected override initializeRequest(response: DebugProtocol.InitializeResponse): void {
    response.body = {
      ...response.body,
      supportsConfigurationDoneRequest: true,
      supportsConditionalBreakpoints: true,
      supportsSetVariable: true,
      supportsHitConditionalBreakpoints: true,
      supportsLogPoints: true,
      supportsEvaluateForHovers: true,
      supportsDataBreakpoints: true,
      supportsTerminateRequest: true,
    };
    this.sendResponse(response);
    this.sendEvent(new InitializedEvent());
  }

  protected override configurationDoneRequest(response: DebugProtocol.ConfigurationDoneResponse): void {
    this.sendResponse(response);
    this.configured();
  }

  protected override async launchRequest(response: DebugProtocol.LaunchResponse, args: KernelLaunchArguments | HostLaunchArguments): Promise<void> {
    if (isHostLaunch(args)) return this.launchHost(response, args);
    try {
      // A regular file: a folder or a device (/dev/zero) would fail or never end being read.
      if (typeof args.program !== "string" || !fs.statSync(args.program, { throwIfNoEntry: false })?.isFile()) throw launchError(`"program" is the kernel file, got ${JSON.stringify(args.program)}`);
      this.program = path.resolve(args.program);
      const check = new KernelChecker().checkFile(this.program);
      const errors = check.diagnostics.filter((d) => d.severity === "error");
      if (errors.length) throw new CudaScriptError("CSD014", `${this.program} does not check: ${errors.map((d) => `${d.span.line}:${d.span.col} ${d.code} ${d.message}`).join("; ")}`);
      const timeLimit = args.timeLimit;
      if (timeLimit !== undefined && (typeof timeLimit !== "number" || !(timeLimit > 0) || !Number.isFinite(timeLimit))) throw launchError(`"timeLimit" is seconds > 0 a command may run without a stop (default 30), got ${JSON.stringify(timeLimit)}`);
      this.kernel = args.kernel;
      const launch = { module: check.module, ...kernelLaunch(check.module, check.staticSharedBytes, args) };
      const options = { stopOnEntry: args.stopOnEntry === true, breakOnFault: args.breakOnFault !== false, print: (text: string) => this.sendEvent(new OutputEvent(text, "stdout")), log: (e: LogEvent) => this.logpoint(e), ...(timeLimit ? { timeLimitMs: timeLimit * 1000 } : {}) };
      const onFault = checkFaultDescriptor(args.onFault);
      if (onFault) {
        // Replay to a fault (replay-launch.ts): the launch runs first; a clean one leaves nothing to debug.
        const uninit = args.uninitializedShared === "error" ? "error" : "warn";
        const r = replayForConfiguration({ ...launch, sanitize: args.sanitize === true, uninitializedShared: uninit }, onFault, options);
        for (const note of r.notes) this.sendEvent(new OutputEvent(`${note}\n`, "stderr"));
        this.session = r.session;
      } else this.session = new DebugSession(launch, options);
      if (this.session) for (const [file, bps] of this.pendingBreakpoints) this.applyBreakpoints(file, bps);
    } catch (e) {
      this.sendErrorResponse(response, { id: 1, format: codedMessage(e, response.command), showUser: true });
      return;
    }
    this.sendResponse(response);
    await this.configurationDone;
    if (this.session) this.drive("continue");
    else this.sendEvent(new TerminatedEvent());
  }

  /** A host program (or a kernel's @run tag): its launches stop in its thread, whose end ends the session. */
  private async launchHost(response: DebugProtocol.LaunchResponse, args: HostLaunchArguments): Promise<void> {
    let options: ReturnType<typeof hostProgramOptions>;
    try {
      options = hostProgramOptions(args, this.breakpointSpecs());
    } catch (e) {
      this.sendErrorResponse(response, { id: 1, format: codedMessage(e, response.command), showUser: true });
      return;
    }
    this.sendResponse(response);
    await this.configurationDone;
    this.kernel = args.kernel ?? "";
    this.host = new HostProgram({ ...options, breakpoints: this.breakpointSpecs() }, {
      output: (text, category) => this.sendEvent(new OutputEvent(text, category)),
      verified: (file, lines) => {
        const known = this.verifiedLines.get(file) ?? new Set<number>();
        this.verifiedLines.set(file, known);
        for (const line of lines) known.add(line);
        for (const bp of this.hostBreakpoints.get(file) ?? [])
          if (!bp.verified && known.has(bp.line!)) {
            bp.verified = true;
            this.sendEvent(new BreakpointEvent("changed", { ...bp, message: undefined } as DebugProtocol.Breakpoint));
          }
      },
      stopped: (e) => {
        this.session = this.host!.target;
        this.report(e);
      },
      exited: (code, error) => {
        this.session = undefined;
        if (error) this.sendEvent(new OutputEvent(`${error.message}\n`, "stderr"));
        this.sendEvent(new ExitedEvent(code));
        this.sendEvent(new TerminatedEvent());
      },
    });
  }

  private breakpointSpecs(): Map<string, { line: number; condition?: string }[]> {
    return new Map([...this.pendingBreakpoints].map(([file, bps]) => [file, bps.map((b) => ({ line: b.line, condition: b.condition, hitCondition: b.hitCondition, logMessage: b.logMessage }))]));
  }

  protected override setBreakPointsRequest(response: DebugProtocol.SetBreakpointsResponse, args: DebugProtocol.SetBreakpointsArguments): void {
    const file = path.resolve(args.source.path ?? "");
    const bps = args.breakpoints ?? [];
    try {
      if (this.host || !this.session) {
        // Kept for the launch (and, for a host program, every later one); checked against the launch it is stopped in.
        this.pendingBreakpoints.set(file, [...bps]);
        const now = this.host?.setBreakpoints(file, bps.map((b) => ({ line: b.line, condition: b.condition, hitCondition: b.hitCondition, logMessage: b.logMessage })));
        const known = this.verifiedLines.get(file);
        const list = bps.map((b, i): DebugProtocol.Breakpoint => {
          const verified = now?.[i]?.verified === true || known?.has(b.line) === true;
          return { id: this.nextBreakpointId++, verified, line: b.line, ...(verified ? {} : { message: "not verified yet: a kernel launch with a statement on this line verifies it (host code never stops)" }) };
        });
        this.hostBreakpoints.set(file, list);
        response.body = { breakpoints: list };
      } else response.body = { breakpoints: this.applyBreakpoints(file, bps) };
      this.sendResponse(response);
    } catch (e) {
      this.sendErrorResponse(response, { id: 2, format: codedMessage(e, response.command), showUser: true });
    }
  }

  private applyBreakpoints(file: string, bps: readonly DebugProtocol.SourceBreakpoint[]): DebugProtocol.Breakpoint[] {
    return this.session!.setBreakpoints(file, bps.map((b) => ({ line: b.line, condition: b.condition, hitCondition: b.hitCondition, logMessage: b.logMessage }))).map((r) => ({ verified: r.verified, line: r.line, ...(r.message ? { message: r.message } : {}) }));
  }

  /** A logpoint's message: DAP output at its line, after the thread's block and thread index. */
  private logpoint(e: LogEvent): void {
    const ev = new OutputEvent(logpointLine(e), "console") as DebugProtocol.OutputEvent;
    ev.body.source = new Source(path.basename(e.file), e.file);
    ev.body.line = e.line;
    this.sendEvent(ev);
  }

  protected override threadsRequest(response: DebugProtocol.ThreadsResponse): void {
    const s = this.session;
    const stop = this.lastStop;
    // While the kernel is stopped every thread is paused: one the scheduler calls "running" is between
    // two statements ("paused"), the others say why they wait (at a barrier, exited…).
    const threads = s?.inBlock
      ? s.focusWarp().map((w) => new Thread(this.threadId(w.thread), `thread (${w.thread.join(", ")}) of block (${s.focusView().block.join(", ")}) — ${w.status === "running" ? "paused" : w.status}`))
      : stop
        ? [new Thread(this.threadId(stop.thread), `thread (${stop.thread.join(", ")}) of block (${stop.block.join(", ")})`)]
        : [new Thread(1, "kernel")];
    // A replayed race: its other thread, as it was at its access, is a thread of its own (after the block's).
    const other = stop?.reason === "exception" ? s?.replayOther() : undefined;
    if (other) threads.push(new Thread(this.otherThreadId(), `other access of the race: thread (${other.thread.join(", ")}) of block (${other.block.join(", ")}) at line ${other.frames[0]?.line ?? "?"}`));
    response.body = { threads };
    this.sendResponse(response);
  }

  protected override stackTraceRequest(response: DebugProtocol.StackTraceResponse, args: DebugProtocol.StackTraceArguments): void {
    let view: FocusView | undefined;
    try {
      view = this.view(args.threadId);
    } catch (e) {
      return this.fail(response, e);
    }
    const other = args.threadId === this.otherThreadId() ? ({ other: true } as const) : {};
    const frames = (view?.frames ?? []).map((f, i) => new StackFrame(this.handles.create({ kind: "locals", thread: view!.thread, frame: i, ...other }), f.function, new Source(path.basename(f.file), f.file), f.line, f.col));
    // A fault in a block the fast simulator ran: its location, without variables.
    const stop = this.lastStop;
    if (!view && stop?.file) frames.push(new StackFrame(0, stop.error?.details?.kernel ?? this.kernel, new Source(path.basename(stop.file), stop.file), stop.line, 1));
    response.body = { stackFrames: frames, totalFrames: frames.length };
    this.sendResponse(response);
  }

  protected override scopesRequest(response: DebugProtocol.ScopesResponse, args: DebugProtocol.ScopesArguments): void {
    const ref = this.handles.get(args.frameId);
    // Frame 0 is a fault's location in a block the fast simulator ran: it has no variables.
    if (ref?.kind !== "locals" && !(args.frameId === 0 && this.lastStop)) return this.fail(response, unknownFrame(args.frameId));
    const scopes: Scope[] = [];
    if (ref?.kind === "locals") {
      scopes.push(new Scope("Locals", this.handles.create(ref), false));
      scopes.push(new Scope("CUDA", this.handles.create({ kind: "cuda", thread: ref.thread, ...(ref.other ? { other: true as const } : {}) }), false));
    }
    response.body = { scopes };
    this.sendResponse(response);
  }

  protected override variablesRequest(response: DebugProtocol.VariablesResponse, args: DebugProtocol.VariablesArguments): void {
    const ref = this.handles.get(args.variablesReference);
    if (!ref) return this.fail(response, unknownReference(args.variablesReference));
    try {
      response.body = { variables: this.variables(ref, args.start ?? 0, args.count) };
    } catch (e) {
      return this.fail(response, e);
    }
    this.sendResponse(response);
  }

  protected override setVariableRequest(response: DebugProtocol.SetVariableResponse, args: DebugProtocol.SetVariableArguments): void {
    const ref = this.handles.get(args.variablesReference);
    try {
      if (!ref) throw unknownReference(args.variablesReference);
      if (ref.kind !== "locals") throw new CudaScriptError("CSD013", `only the scalars of a frame's Locals can be set`);
      const text = args.value.trim();
      const value = text === "true" ? true : text === "false" ? false : /^-?\d+n$/.test(text) ? BigInt(text.slice(0, -1)) : Number(text);
      this.session!.focus(ref.thread);
      const v = this.session!.setVariable(ref.frame, args.name, value);
      response.body = { value: formatValue(v.value), type: v.dtype };
      this.sendResponse(response);
    } catch (e) {
      this.sendErrorResponse(response, { id: 3, format: codedMessage(e, response.command), showUser: true });
    }
  }

  protected override continueRequest(response: DebugProtocol.ContinueResponse): void {
    response.body = { allThreadsContinued: true };
    this.sendResponse(response);
    // A host program between launches runs already.
    if (this.session) this.drive("continue");
  }

  protected override nextRequest(response: DebugProtocol.NextResponse, args: DebugProtocol.NextArguments): void {
    this.step(response, args.threadId, "stepOver");
  }
  protected override stepInRequest(response: DebugProtocol.StepInResponse, args: DebugProtocol.StepInArguments): void {
    this.step(response, args.threadId, "stepIn");
  }
  protected override stepOutRequest(response: DebugProtocol.StepOutResponse, args: DebugProtocol.StepOutArguments): void {
    this.step(response, args.threadId, "stepOut");
  }

  /** Stops the command under way at the next statement or loop pass of a thread (`stopped`, reason pause). */
  protected override pauseRequest(response: DebugProtocol.PauseResponse): void {
    this.session?.pause();
    this.sendResponse(response);
  }

  /**
   * Evaluate (watch, hover, repl) in the kernel language, in the frame's thread. `warp: expr` is a warp
   * watch: its value in every lane of the focus warp, as a variable with one child per lane.
   */
  protected override evaluateRequest(response: DebugProtocol.EvaluateResponse, args: DebugProtocol.EvaluateArguments): void {
    try {
      const s = this.session;
      if (!s?.inBlock) throw new CudaScriptError("CSD011", "no block is being debugged: expressions are evaluated while the launch is stopped in a block");
      const ref = args.frameId !== undefined ? this.handles.get(args.frameId) : undefined;
      if (args.frameId !== undefined && ref?.kind !== "locals") throw unknownFrame(args.frameId);
      if (ref?.kind === "locals" && ref.other) throw new CudaScriptError("CSD011", "the other access of the race is a record of its thread at that access: its variables are shown; expressions are evaluated in the threads of the stopped block");
      const frame = ref?.kind === "locals" ? ref.frame : 0;
      const thread = ref?.kind === "locals" ? ref.thread : undefined;
      if (WARP_PREFIX.test(args.expression)) {
        // The warp of the frame's thread: it becomes the focus (the warp shown as threads).
        if (thread) s.focus(thread);
        const watch = s.evaluateWarp(args.expression.replace(WARP_PREFIX, ""));
        const values = watch.lanes.map((l) => l.result ?? (l.error ? "error" : "—"));
        response.body = { result: `[${values.join(", ")}]`, type: watch.type, variablesReference: this.handles.create({ kind: "lanes", watch }), indexedVariables: watch.lanes.length };
      } else {
        const r = s.evaluate(args.expression, frame, thread);
        const view = thread ? s.view(thread) : s.focusView();
        const arr = r.array ? view.frames[r.array.frame]?.variables.find((v) => v.name === r.array!.name) : undefined;
        if (arr) {
          const a = this.arrayVariable(arr.name, arr, 0, (arr.value as { shape: number[] }).shape, (arr.value as { strides: number[] }).strides, { thread: view.thread, frame, index: [] });
          response.body = { result: a.value, type: a.type, variablesReference: a.variablesReference, indexedVariables: a.indexedVariables };
        } else response.body = { result: r.result, type: r.type, variablesReference: 0 };
      }
      this.sendResponse(response);
    } catch (e) {
      this.sendErrorResponse(response, { id: 4, format: codedMessage(e, response.command), showUser: args.context === "repl" });
    }
  }

  /** A data breakpoint's id for an element of a shared or global array (a child of its page in Variables). */
  protected override dataBreakpointInfoRequest(response: DebugProtocol.DataBreakpointInfoResponse, args: DebugProtocol.DataBreakpointInfoArguments): void {
    const ref = args.variablesReference !== undefined ? this.handles.get(args.variablesReference) : undefined;
    const s = this.session;
    const m = /^\[(\d+)\]$/.exec(args.name);
    // No id (DAP's answer for "not available here"), and why: a stale or unknown reference says which.
    const why = args.variablesReference !== undefined && !ref ? unknownReference(args.variablesReference).message : "data breakpoints watch an element of a shared or global array: pick one in the array's page under Variables";
    let body: DebugProtocol.DataBreakpointInfoResponse["body"] = { dataId: null, description: why };
    if (s?.inBlock && ref?.kind === "array" && ref.at && m && ref.dims.length === 1) {
      s.focus(ref.at.thread);
      const r = s.dataBreakpointInfo(ref.at.frame, ref.v.name, [...ref.at.index, Number(m[1])]);
      body = { dataId: r.dataId, description: r.description, ...(r.dataId ? { accessTypes: ["write" as const] } : {}) };
    }
    response.body = body;
    this.sendResponse(response);
  }

  protected override setDataBreakpointsRequest(response: DebugProtocol.SetDataBreakpointsResponse, args: DebugProtocol.SetDataBreakpointsArguments): void {
    const r = this.session ? this.session.setDataBreakpoints(args.breakpoints.map((b) => b.dataId)) : [];
    response.body = { breakpoints: r.map((x) => ({ verified: x.verified, ...(x.message ? { message: x.message } : {}) })) };
    this.sendResponse(response);
  }

  protected override async disconnectRequest(response: DebugProtocol.DisconnectResponse): Promise<void> {
    this.session = undefined;
    // The program's thread ends with the session, stopped in a launch or not.
    await this.host?.terminate();
    this.sendResponse(response);
  }

  protected override async terminateRequest(response: DebugProtocol.TerminateResponse): Promise<void> {
    this.session = undefined;
    await this.host?.terminate();
    this.sendResponse(response);
  }

  /** The focus thread picker's request (dap-focus.ts): move the focus, then a `stopped` event for it refreshes the editor's views. */
  protected override customRequest(command: string, response: DebugProtocol.Response, args: unknown): void {
    if (command !== FOCUS_REQUEST || !this.session) return super.customRequest(command, response, args);
    try {
      const body = moveFocus(this.session, args as FocusRequestArgs);
      response.body = body;
      this.sendResponse(response);
      this.handles = new Handles<Ref>();
      this.sendEvent(new Event(FOCUS_EVENT, body));
      const ev = new StoppedEvent("focus", this.threadId(body.thread)) as DebugProtocol.StoppedEvent;
      ev.body.description = `focus: thread (${body.thread.join(", ")}) of block (${body.block.join(", ")})`;
      ev.body.allThreadsStopped = true;
      ev.body.preserveFocusHint = false;
      this.sendEvent(ev);
    } catch (e) {
      this.sendErrorResponse(response, { id: 4, format: codedMessage(e, response.command), showUser: true });
    }
  }

  private step(response: DebugProtocol.Response, threadId: number, command: Command): void {
    const s = this.session;
    if (!s) return this.sendResponse(response); // a host program between launches: nothing to step
    try {
      // The other access of a replayed race is a record, not a thread that can run: a step goes on from the stop.
      const thread = threadId === this.otherThreadId() ? this.lastStop?.thread : this.threadIndex(threadId);
      if (s.inBlock && thread) s.focus(thread);
    } catch (e) {
      return this.fail(response, e);
    }
    this.sendResponse(response);
    this.drive(command);
  }

  /**
   * Runs a command in time slices, returning to the event loop between them: requests (pause,
   * threads, …) are handled while a kernel runs, and one that loops forever can be paused.
   */
  private drive(command: Command): void {
    const s = this.session!;
    s.begin(command);
    const slice = (): void => {
      if (this.session !== s) return; // disconnected
      let e: ReturnType<DebugSession["runSlice"]>;
      try {
        e = s.runSlice(SLICE_MS);
      } catch (err) {
        // A debugger error while running (a condition that faults for a thread): said, and the launch ends.
        this.sendEvent(new OutputEvent(`${(err as Error).message}\n`, "stderr"));
        this.sendEvent(new TerminatedEvent());
        return;
      }
      if (e.kind === "running") setImmediate(slice);
      else this.report(e);
    };
    slice();
  }

  /** A stop is a `stopped` event for the thread (its id in the focus warp); the end is output (a fault) and `terminated`. */
  private report(e: DebugEvent): void {
    this.handles = new Handles<Ref>();
    this.lastStop = e.kind === "stop" ? e : undefined;
    if (e.kind === "end") {
      // A host program's launch ended: the program goes on (a fault is thrown to it, and reported by it if uncaught).
      if (this.host) {
        this.session = undefined;
        return;
      }
      if (e.error) this.sendEvent(new OutputEvent(`${e.error.message}\n`, "stderr"));
      this.sendEvent(new TerminatedEvent());
      return;
    }
    const ev = new StoppedEvent(e.reason, this.threadId(e.thread), e.error?.message) as DebugProtocol.StoppedEvent;
    ev.body.allThreadsStopped = true;
    if (e.acrossBarrier) ev.body.description = "stepped across a barrier: the rest of the block ran to it";
    this.sendEvent(new Event(FOCUS_EVENT, focusBody(this.session!, e.block, e.thread)));
    if (e.description) {
      ev.body.description = e.description;
      if (e.reason === "pause") this.sendEvent(new OutputEvent(`${e.description}\n`, "console"));
    }
    this.sendEvent(ev);
  }

  private threadId(t: Dim3): number {
    const [bx, by] = this.blockDim();
    return (t[2] * by + t[1]) * bx + t[0] + 1;
  }
  /** The thread a request names by its DAP id; CSD028, with the id as sent, for one the launch does not have. */
  private threadIndex(id: unknown): Dim3 {
    const [bx, by, bz] = this.blockDim();
    const count = bx * by * bz;
    if (typeof id !== "number" || !Number.isInteger(id) || id < 1 || id > count)
      throw new CudaScriptError("CSD028", `thread ${JSON.stringify(id) ?? String(id)} is not a thread of this launch: thread ids are 1 to ${count} (a thread's linear index in its block + 1; the threads request lists those of the focus warp)`);
    const t = id - 1;
    return [t % bx, Math.floor(t / bx) % by, Math.floor(t / (bx * by))];
  }
  private blockDim(): Dim3 {
    return this.session ? this.session.blockDim : [1, 1, 1];
  }

  /** The DAP id of a replayed race's other thread: after every thread of the block. */
  private otherThreadId(): number {
    const [bx, by, bz] = this.blockDim();
    return bx * by * bz + 1;
  }

  /** A thread's view: one of the stopped block, or (ref `other`) a replayed race's other thread at its access. */
  private threadView(thread: Dim3, other?: boolean): FocusView {
    const v = other ? this.session!.replayOther() : this.session!.view(thread);
    if (!v) throw unknownFrame(thread);
    return v;
  }

  private view(threadId: unknown): FocusView | undefined {
    if (threadId === this.otherThreadId() && this.lastStop?.reason === "exception") {
      const other = this.session?.replayOther();
      if (other) return other;
    }
    const thread = this.threadIndex(threadId);
    const s = this.session;
    return s?.inBlock ? s.view(thread) : undefined;
  }

  /** An error response with the error's coded message (never a stack trace). */
  private fail(response: DebugProtocol.Response, e: unknown): void {
    this.sendErrorResponse(response, { id: 5, format: codedMessage(e, response.command), showUser: true });
  }

  /**
   * The library answers an exception thrown in a request handler with its JavaScript stack (error 1104,
   * format '{_stack}'): answer with its message instead, coded (an internal error is CSR030).
   */
  protected override sendErrorResponse(response: DebugProtocol.Response, codeOrMessage: number | DebugProtocol.Message, format?: string, variables?: { _exception?: unknown }, dest?: ErrorDestination): void {
    if (codeOrMessage === 1104 && variables?._exception !== undefined) return super.sendErrorResponse(response, { id: 1104, format: codedMessage(variables._exception, response.command), showUser: true });
    super.sendErrorResponse(response, codeOrMessage, format, variables, dest);
  }

  private variables(ref: Ref, start: number, count: number | undefined): DebugProtocol.Variable[] {
    if (ref.kind === "cuda") {
      const v = this.threadView(ref.thread, ref.other);
      const xyz = (name: string, d: Dim3) => ({ name, value: `{ x: ${d[0]}, y: ${d[1]}, z: ${d[2]} }`, variablesReference: 0 });
      return [xyz("threadIdx", v.thread), xyz("blockIdx", v.block), xyz("blockDim", this.session!.blockDim), xyz("gridDim", this.session!.gridDim)];
    }
    if (ref.kind === "locals") {
      const frame = this.threadView(ref.thread, ref.other).frames[ref.frame];
      return (frame?.variables ?? []).map((v) => {
        if (v.kind === "scalar") return { name: v.name, value: formatValue(v.value), type: v.dtype, variablesReference: 0 };
        const { shape, strides } = v.value as { shape: number[]; strides: number[] };
        // The other access's arrays are shown, not watched: a data breakpoint is on the stopped block's threads.
        return this.arrayVariable(v.name, v, 0, shape, strides, ref.other ? undefined : { thread: ref.thread, frame: ref.frame, index: [] });
      });
    }
    if (ref.kind === "lanes") {
      const lanes = ref.watch.lanes;
      return lanes.slice(start, count === undefined ? lanes.length : start + count).map((l) => ({
        name: `lane ${l.lane} (${l.thread.join(", ")})`,
        value: l.result !== undefined ? `${l.result}${l.active ? "" : ` (${l.status}${l.line ? `, line ${l.line}` : ""})`}` : l.error ? `error: ${l.error}` : `— ${l.status}`,
        type: ref.watch.type,
        variablesReference: 0,
      }));
    }
    const [rows, ...rest] = ref.dims;
    const [step, ...restStrides] = ref.strides;
    const end = Math.min(rows!, count === undefined ? rows! : start + count);
    const out: DebugProtocol.Variable[] = [];
    for (let i = start; i < end; i++) {
      // Row i starts i strides on (an F-order or transposed array's rows are not consecutive elements).
      if (rest.length) out.push(this.arrayVariable(`[${i}]`, ref.v, ref.first + i * step!, rest, restStrides, ref.at ? { ...ref.at, index: [...ref.at.index, i] } : undefined));
      else if (ref.v.record) out.push({ name: `[${i}]`, value: formatRecord(recordElement(ref.v, ref.first + i * step!)), type: ref.v.record.name, variablesReference: 0 });
      else out.push({ name: `[${i}]`, value: formatValue(element(ref.v, ref.first + i * step!)), type: ref.v.dtype, variablesReference: 0 });
    }
    return out;
  }

  private arrayVariable(name: string, v: VariableView, first: number, dims: readonly number[], strides: readonly number[], at?: { thread: Dim3; frame: number; index: readonly number[] }): DebugProtocol.Variable {
    return {
      name,
      value: `${v.record?.name ?? v.dtype}[${dims.join("][")}]${v.space && v.space !== "global" ? ` ${v.space}` : ""}`,
      type: v.record?.name ?? v.dtype,
      variablesReference: this.handles.create({ kind: "array", v, first, dims, strides, ...(at ? { at } : {}) }),
      indexedVariables: dims[0],
    };
  }
}

/** `cudascript debug-adapter`: DAP on stdin/stdout until the client disconnects. */
export function runDebugAdapter(): void {
  const adapter = new KernelDebugAdapter();
  // The library's framing believes any Content-Length: a guard refuses absurd frames and resynchronises.
  const guard = new DapFrameGuard((e) => adapter.sendEvent(new OutputEvent(`${e.message}\n`, "stderr")));
  process.stdin.pipe(guard);
  adapter.start(guard, process.stdout);
}
