/**
 * The debugger's in-process controller: one kernel launch on the stepping backend, driven by
 * continue / step over / step into / step out, with line breakpoints (optionally conditional), a focus
 * thread and break on fault. Everything is synchronous, like the simulator: each command runs until the
 * next pause (a StopEvent) or the end of the launch (an EndEvent). The DAP adapter sits on top of it.
 *
 * Blocks run in order. A block runs on the stepping backend (block-scheduler.ts) when anything could
 * stop in it — a step is under way, the launch stops on entry, a breakpoint has no condition, or its
 * condition holds (or reads a variable) for one of the block's threads tried on their indices alone;
 * every other block runs on the fast simulator's module over the same device memory, at its full
 * speed. A fault there still stops (break on fault), with its thread in focus, but without locals: the
 * fast simulator keeps none.
 *
 * Breakpoint conditions, logpoint messages, watches and evaluate are expressions in the kernel language
 * (expressions.ts), compiled through the front end for the variables in scope at the statement.
 *
 * Commands run in time slices (`begin` then `runSlice`, which the sync commands loop over): a slice
 * ends between blocks, or in a loop of the running thread (the stepping backend's `$S.tick`), so a DAP
 * adapter returns to its event loop between them and a `pause` request can stop a kernel that loops
 * forever. A command that runs past the time limit without a stop pauses itself (CSD019).
 */
import { emitStepModule, type Expr, type ProbeLine, type StepModule } from "@cudascript/compiler";
import { CudaScriptError } from "../errors";
import { createRt, type Rt } from "../simulator/rt";
import { faultError, makeArgs, serializeFault } from "../simulator/executor";
import type { LaunchData } from "../simulator/module-cache";
import { BlockScheduler, StepHooks, type Frame, type ThreadState, type ThreadStatus } from "./block-scheduler";
import { parseHitCondition, parseLogMessage, type Breakpoint, type BreakpointResult, type BreakpointSpec, type ConditionContext, type LogEvent, type Xyz } from "./breakpoints";
import { DataWatches, type DataBreakpointInfo, type DataBreakpointResult } from "./data-breakpoints";
import { Expressions, formatValue, type Dim3 } from "./expressions";
import { convertValue } from "./values";
import { FastBlocks } from "./fast-blocks";
import { ReplayStops } from "./replay-stops";

export type { Dim3 } from "./expressions";
export type { BreakpointResult, BreakpointSpec, ConditionContext, LogEvent, Xyz } from "./breakpoints";
export type { DataBreakpointInfo, DataBreakpointResult } from "./data-breakpoints";
export type { Command, DebugEvent, DebugLaunch, DebugOptions, EndEvent, EvaluateResult, FocusView, FrameView, LaneValue, RunningEvent, StopEvent, VariableView, WarpWatch } from "./session-types";
import type { Command, DebugEvent, DebugLaunch, DebugOptions, EndEvent, EvaluateResult, FocusView, FrameView, LaneValue, RunningEvent, StopEvent, VariableView, WarpWatch } from "./session-types";

type Step = { readonly kind: "in" | "over" | "out"; readonly depth: number; readonly site: number; readonly line: number; acrossBarrier: boolean };

interface ActiveBlock {
  readonly b: number;
  readonly idx: Dim3;
  readonly threads: ThreadState[];
  readonly scheduler: BlockScheduler;
}

/** The locals a condition sees when tried on indices alone: reading one throws, so the condition "may hold". */
const NO_LOCALS: Readonly<Record<string, unknown>> = new Proxy(
  {},
  {
    get() {
      throw new Error("the condition reads a variable");
    },
  },
);

/** A time slice of the sync commands (continue(), stepOver(), …): how often they look at the time limit. */
const SYNC_SLICE_MS = 100;

function dim3Error(what: string, v: unknown): CudaScriptError {
  return new CudaScriptError("CSD011", `${what} must be [x, y, z] whole numbers inside the launch's ${what === "thread" ? "block" : "grid"}, got ${JSON.stringify(v)}`);
}

/** CSD010 unless the module has a kernel of that name. */
export function checkKernelName(module: DebugLaunch["module"], kernel: string): void {
  if (!module.kernels.some((f) => f.name === kernel)) throw new CudaScriptError("CSD010", `the module of ${module.file} has no kernel '${kernel}'; its kernels are ${module.kernels.map((f) => f.name).join(", ") || "(none)"}`);
}

export class DebugSession {
  private readonly step: StepModule;
  private readonly rt: Rt;
  private readonly S: StepHooks;
  private readonly mod: { setup(L: LaunchData): void; block(b: number): void; kernels: Record<string, { thread: (argv: unknown[], tx: number, ty: number, tz: number, t: number) => Generator<number, unknown, unknown>; argv(L: LaunchData): unknown[] }> };
  private readonly L: LaunchData;
  private readonly argv: unknown[];
  private readonly nBlocks: number;
  private readonly allLines: Uint8Array;
  private readonly bpLines: Uint8Array;
  private readonly breakpoints = new Map<string, Breakpoint[]>();
  private nextBlock = 0;
  /** A breakpoint is on a line of a device function: every thread's calls run their generator form. */
  private bpInDevice = false;
  private readonly threadPool: ThreadState[] = [];
  /** The fast simulator's module, for blocks where nothing can stop (made at the first). */
  private readonly fastBlocks: FastBlocks;
  /** A probe fired in this block (fast-blocks.ts): it runs on the stepping backend. */
  private forceStep: number | undefined;
  private active: ActiveBlock | undefined;
  private focusT = 0;
  private stepping: Step | undefined;
  private pendingFault: CudaScriptError | undefined;
  private ended: EndEvent | undefined;
  private started = false;
  private readonly exprs: Expressions;
  private readonly data = new DataWatches();
  /** A pause was asked for (or the time limit ran out: `timedOut`): the next statement of any thread stops. */
  private pausing = false;
  private timedOut = false;
  /** When the command under way began (performance.now()), for the time limit; undefined: none is. */
  private commandStart: number | undefined;
  /** A fast-simulator run ran out of time: every further block runs on the stepping backend. */
  private stepAll = false;
  private readonly print: (text: string) => void;
  /** Replay to a fault (replay-stops.ts): where the launch stops as the fault, and the race's other thread. */
  private readonly replay: ReplayStops | undefined;

  constructor(
    private readonly launch: DebugLaunch,
    private readonly options: DebugOptions = {},
  ) {
    checkKernelName(launch.module, launch.kernel);
    this.step = emitStepModule(launch.module);
    const print = (this.print = options.print ?? ((s: string) => void process.stdout.write(s)));
    const S = (this.S = new StepHooks(this.step.lines.length));
    const callBudgetMs = options.fastBlockTimeoutMs ?? 2000;
    this.rt = createRt({
      concurrent: false,
      // A device function's fast form (which a call runs unless the thread may stop inside it) cannot
      // yield, so neither a pause nor the time limit reaches a loop in it: its loops' watchdog ends a
      // call still running this long after its time slice with a fault (CSR024) at the loop.
      get deadline() {
        return Date.now() + (S.sliceEnd - performance.now()) + callBudgetMs;
      },
      deadlineLabel: `${(callBudgetMs / 1000).toFixed(1)} s past its time slice, in a device function call the debugger cannot pause inside`,
      print,
      uninitializedShared: "warn",
      warn: () => {},
    });
    this.S.watched = () => this.data.changed();
    this.exprs = new Expressions(launch.module, this.step, this.rt, launch.block, launch.grid, launch.source, options.fastBlockTimeoutMs ?? 2000);
    this.mod = new Function("rt", "$S", this.step.source)(this.rt, this.S) as DebugSession["mod"];
    this.L = { args: makeArgs(launch.args), grid: launch.grid, block: launch.block, dynBuf: new ArrayBuffer(launch.sharedMem ?? 0) };
    this.mod.setup(this.L);
    this.fastBlocks = new FastBlocks(launch.module, launch.kernel, this.L, launch.args, print, options.fastBlockTimeoutMs ?? 2000);
    this.argv = this.mod.kernels[launch.kernel]!.argv(this.L);
    this.nBlocks = launch.grid[0] * launch.grid[1] * launch.grid[2];
    this.allLines = new Uint8Array(this.step.lines.length).fill(1);
    this.bpLines = new Uint8Array(this.step.lines.length);
    if (options.replay) {
      this.replay = new ReplayStops(options.replay, this.step, launch.grid);
      this.linesChanged();
    }
  }

  /** A replayed launch (DebugOptions.replay): the other thread of the race, as it was at its access; undefined otherwise. */
  replayOther(): FocusView | undefined {
    return this.replay?.other;
  }

  /** How many blocks ran on the stepping backend so far (the others ran on the fast simulator). */
  get steppedBlocks(): number {
    return this.stepped;
  }
  private stepped = 0;

  /** The launch's block and grid dimensions. */
  get blockDim(): Dim3 {
    return this.launch.block;
  }
  get gridDim(): Dim3 {
    return this.launch.grid;
  }

  /** The stepping module (its statement and function tables), for adapters. */
  get module(): StepModule {
    return this.step;
  }

  /**
   * Replaces the breakpoints of `file`. Returns, per breakpoint, whether a statement is on its line
   * (a breakpoint on a line without one never stops), or the error that keeps it from being set: a
   * condition or `{expr}` that is not an expression (CSD009) or does not check (the checker's code,
   * with the column), a bad hit condition (CSD016) or log message (CSD017). The others are set.
   */
  setBreakpoints(file: string, specs: readonly BreakpointSpec[]): BreakpointResult[] {
    const list: Breakpoint[] = [];
    const results = specs.map((s): BreakpointResult => {
      const first = this.step.statements.find((st) => st.file === file && st.line === s.line);
      try {
        const c = s.condition;
        const bp: Breakpoint = {
          file,
          line: s.line,
          ...(typeof c === "function" ? { test: c } : c !== undefined && c.trim() !== "" ? { text: c } : {}),
          ...(s.hitCondition !== undefined && s.hitCondition.trim() !== "" ? { hit: parseHitCondition(s.hitCondition, s.line) } : {}),
          ...(s.logMessage !== undefined && s.logMessage !== "" ? { log: parseLogMessage(s.logMessage, s.line) } : {}),
          hits: 0,
          bySite: new Map(),
        };
        // Compiled now at the line's first statement, so that a bad expression is said when it is set.
        if (first) for (const text of this.expressionsOf(bp)) this.exprs.compile(first.fn, first.visible, text, this.what(bp, text));
        list.push(bp);
        return { line: s.line, verified: first !== undefined };
      } catch (e) {
        if (!(e instanceof CudaScriptError)) throw e;
        return { line: s.line, verified: false, message: e.message };
      }
    });
    this.breakpoints.set(file, list);
    this.bpLines.fill(0);
    for (const bps of this.breakpoints.values())
      for (const bp of bps) this.step.lines.forEach((l, id) => l.file === bp.file && l.line === bp.line && (this.bpLines[id] = 1));
    this.linesChanged();
    this.fastBlocks.setProbes(this.probeLines());
    return results;
  }

  /** The breakpoint lines changed: the replay's lines are flagged too, and whether any is in a device function. */
  private linesChanged(): void {
    this.replay?.mark(this.bpLines);
    this.bpInDevice = this.step.statements.some((st) => this.bpLines[st.lineId] === 1 && this.step.functions[st.fn]!.kind === "device");
  }

  /** The breakpoints as probes in the fast simulator (those with a function condition cannot be: then none is). */
  private probeLines(): ProbeLine[] | undefined {
    const lines: ProbeLine[] = [];
    for (const bps of this.breakpoints.values())
      for (const bp of bps) {
        if (bp.test) return undefined;
        const text = bp.text;
        lines.push({
          file: bp.file,
          line: bp.line,
          condition: (fn, visible) => {
            if (!text) return true;
            try {
              return (this.exprs.compile(fn, visible, text, this.what(bp, text)).ir as Expr | undefined) ?? false;
            } catch {
              return false;
            }
          },
        });
      }
    return lines;
  }

  private expressionsOf(bp: Breakpoint): string[] {
    return [...(bp.text ? [bp.text] : []), ...(bp.log ?? []).flatMap((p) => (typeof p === "string" ? [] : [p.expr]))];
  }
  private what(bp: Breakpoint, text: string): string {
    return text === bp.text ? `the condition of the breakpoint at line ${bp.line}` : `the expression of the logpoint at line ${bp.line}`;
  }

  /**
   * Sets the data breakpoints (DAP setDataBreakpoints): each id from dataBreakpointInfo. A statement
   * of any thread that changes a watched element stops right after it, with that thread in focus.
   * While one is set every block runs on the stepping backend.
   */
  setDataBreakpoints(dataIds: readonly string[]): DataBreakpointResult[] {
    const r = this.data.set(dataIds);
    this.S.dw = this.data.any ? 1 : 0;
    return r;
  }

  /** The data id of an element of an array variable of the focus thread's frame `frame` (DAP dataBreakpointInfo). */
  dataBreakpointInfo(frame: number, name: string, index: readonly number[]): DataBreakpointInfo {
    const th = this.active?.threads[this.focusT];
    const f = th ? th.frames[th.frames.length - 1 - frame] : undefined;
    const v = f ? this.frameView(f).variables.find((x) => x.name === name) : undefined;
    if (!v) return { dataId: null, description: `'${name}' is not a variable in scope in the focus thread's frame ${frame}` };
    if (v.kind !== "array") return { dataId: null, description: `'${name}' is a scalar of one thread: data breakpoints watch an element of a shared or global array` };
    return this.data.info(name, v.dtype, v.space, v.value as { data: ArrayLike<number>; offset: number; shape: number[]; strides: number[] }, index);
  }

  /** Runs until a breakpoint, a fault (break on fault) or the end. The first call starts the launch. */
  continue(): DebugEvent {
    return this.run("continue");
  }

  /** Runs the focus thread to its next line in the same function (a call runs whole; a barrier lets the rest of the block reach it). */
  stepOver(): DebugEvent {
    return this.run("stepOver");
  }
  /** Runs the focus thread to its next statement, inside a device function it calls. */
  stepIn(): DebugEvent {
    return this.run("stepIn");
  }
  /** Runs the focus thread until its current device function returns. */
  stepOut(): DebugEvent {
    return this.run("stepOut");
  }

  /** A command run to its stop, in time slices; past the time limit it pauses itself. */
  private run(command: Command): DebugEvent {
    this.begin(command);
    for (;;) {
      const e = this.runSlice(SYNC_SLICE_MS);
      if (e.kind !== "running") return e;
    }
  }

  /**
   * Starts a command without running it: `runSlice` runs it (an adapter returns to its event loop
   * between slices, where a pause request can arrive).
   */
  begin(command: Command): void {
    this.commandStart = performance.now();
    this.timedOut = false;
    if (command === "continue") this.stepping = undefined;
    else this.startStep(command === "stepOver" ? "over" : command === "stepIn" ? "in" : "out");
  }

  /** Runs the command under way for about `ms` milliseconds: its stop, the end, or `running` (call again). */
  runSlice(ms: number): DebugEvent | RunningEvent {
    const now = performance.now();
    const limit = this.options.timeLimitMs ?? 30_000;
    if (this.commandStart !== undefined && now - this.commandStart > limit && !this.pausing) {
      this.pausing = true;
      this.timedOut = true;
    }
    const e = this.resume(this.pausing ? now : now + ms);
    if (e.kind !== "running") this.commandStart = undefined;
    return e;
  }

  /** Asks the command under way to stop (DAP pause): the next slice stops at the next statement or loop pass of a thread. */
  pause(): void {
    if (this.commandStart === undefined) return; // stopped already (or not started): nothing to pause
    this.pausing = true;
    this.S.sliceEnd = 0;
  }

  /** Moves the focus to another thread of the block being debugged. */
  focus(thread: Dim3): FocusView {
    this.focusT = this.linear(thread);
    return this.focusView();
  }

  /** The focus thread: where it is and its call stack. */
  focusView(): FocusView {
    const a = this.activeBlock();
    const th = a.threads[this.focusT]!;
    return { block: a.idx, thread: th.idx, status: th.status, frames: this.frames(th) };
  }

  /** A thread of the block being debugged, without moving the focus. */
  view(thread: Dim3): FocusView {
    const a = this.activeBlock();
    const th = a.threads[this.linear(thread)]!;
    return { block: a.idx, thread: th.idx, status: th.status, frames: this.frames(th) };
  }

  /** The threads of the focus thread's warp (a debugger shows these, not a whole block of up to 1,024). */
  focusWarp(): { thread: Dim3; status: ThreadStatus }[] {
    const a = this.activeBlock();
    const w = this.focusT - (this.focusT % 32);
    return a.threads.slice(w, Math.min(w + 32, a.threads.length)).map((th) => ({ thread: th.idx, status: th.status }));
  }

  /** Whether a block is being debugged (stopped in it): false before the first stop, after a fault in a block run fast, and at the end. */
  get inBlock(): boolean {
    return this.active !== undefined;
  }

  private activeBlock(): ActiveBlock {
    if (!this.active) throw new CudaScriptError("CSD011", "no block is being debugged (the launch has not stopped yet, or it ran to its end): set a breakpoint and continue first");
    return this.active;
  }

  private linear(thread: Dim3): number {
    this.activeBlock();
    const [bx, by, bz] = this.launch.block;
    if (!Array.isArray(thread) || thread.length !== 3 || !thread.every((v, i) => Number.isInteger(v) && v >= 0 && v < [bx, by, bz][i]!)) throw dim3Error("thread", thread);
    return (thread[2] * by + thread[1]) * bx + thread[0];
  }

  /**
   * Assigns a scalar variable of the focus thread's frame `frame` (0: innermost), converted to its
   * dtype as an assignment in the kernel would.
   */
  setVariable(frame: number, name: string, value: number | bigint | boolean): VariableView {
    const th = this.active?.threads[this.focusT];
    const f = th ? th.frames[th.frames.length - 1 - frame] : undefined;
    if (!th || !f) throw new CudaScriptError("CSD013", `the focus thread has no frame ${frame}`);
    const fn = this.step.functions[f.fn]!;
    const site = this.step.statements[f.s];
    const i = fn.vars.findIndex((v, j) => v.name === name && (!site || site.visible.includes(j)));
    const v = fn.vars[i];
    if (!v) throw new CudaScriptError("CSD013", `'${name}' is not a variable in scope in ${fn.name}`);
    if (v.kind !== "scalar") throw new CudaScriptError("CSD013", `'${name}' is an array: set one of its elements instead`);
    f.set(i, convertValue(value, v.dtype, name));
    return this.frames(th)[frame]!.variables.find((x) => x.name === name)!;
  }

  // ───────────────────────── running ─────────────────────────

  private startStep(kind: Step["kind"]): void {
    const th = this.active?.threads[this.focusT];
    if (!this.started || !th || th.status === "exited" || th.status === "faulted") {
      this.stepping = undefined;
      return;
    }
    const top = th.frames[th.frames.length - 1];
    const site = top ? top.s : -1;
    // A thread that has not started yet stops at its first statement, whatever the step.
    this.stepping = { kind: top ? kind : "in", depth: th.frames.length, site, line: site >= 0 ? this.step.statements[site]!.line : -1, acrossBarrier: false };
  }

  /** Runs until a stop, the end, or (`running`) the slice's end at `deadline` (performance.now()). */
  private resume(deadline: number): DebugEvent | RunningEvent {
    if (this.ended) return this.ended;
    if (this.pendingFault) return this.end(this.pendingFault);
    if (!this.started) {
      this.started = true;
      if (this.options.stopOnEntry) this.stepping = { kind: "in", depth: Infinity, site: -1, line: -1, acrossBarrier: false };
    }
    this.S.sliceEnd = deadline;
    for (;;) {
      if (!this.active) {
        if (this.nextBlock >= this.nBlocks) return this.end(undefined);
        if (!this.pausing && performance.now() > deadline) return { kind: "running" };
        if (this.forceStep === this.nextBlock) this.forceStep = undefined;
        else if (this.options.fastBlocks !== false && !this.stepAll && !this.pausing) {
          let b1 = this.nextBlock;
          while (b1 < this.nBlocks && !this.blockMayStop(b1)) b1++;
          if (b1 > this.nextBlock) {
            const e = this.runFast(this.nextBlock, b1);
            if (e) return e;
            continue;
          }
        }
        this.active = this.beginBlock(this.nextBlock++);
      }
      const r = this.active.scheduler.run();
      if (r.kind === "slice" && !this.pausing) return { kind: "running" };
      if (r.kind === "stop" && this.replay?.reached) return this.replayStop(r.thread, r.site);
      if (r.kind === "stop" || r.kind === "slice") {
        this.focusT = r.thread.t;
        const data = this.data.hit && r.kind === "stop" && !this.pausing;
        const reason = this.pausing ? "pause" : data ? "data breakpoint" : this.stepping ? (this.stepping.depth === Infinity ? "entry" : "step") : "breakpoint";
        const description = this.timedOut
          ? new CudaScriptError("CSD019", `the launch ran ${((this.options.timeLimitMs ?? 30_000) / 1000).toFixed(1)} s without reaching a breakpoint: paused where thread (${r.thread.idx.join(", ")}) was. Continue to let it run on, or look for a loop whose condition never becomes false`).message
          : data
            ? this.data.describeHit(r.thread.idx)
            : undefined;
        const across = this.stepping?.acrossBarrier;
        this.stepping = undefined;
        this.pausing = false;
        this.timedOut = false;
        this.data.hit = undefined;
        const st = this.step.statements[r.site]!;
        return { kind: "stop", reason, ...(description ? { description } : {}), file: st.file, line: st.line, block: this.active.idx, thread: r.thread.idx, frames: this.frames(r.thread), ...(across ? { acrossBarrier: true } : {}) };
      }
      if (r.kind === "fault") {
        const a = this.active;
        const [bx, by, bz] = a.idx;
        const [tx, ty, tz] = r.thread.idx;
        const error = faultError(serializeFault(this.rt.threadError(r.error, this.launch.kernel, bx, by, bz, tx, ty, tz), this.launch.kernel));
        if (this.options.breakOnFault === false) return this.end(error);
        this.pendingFault = error;
        this.focusT = r.thread.t;
        this.stepping = undefined;
        const top = r.thread.frames[r.thread.frames.length - 1];
        // The frame records its statement only where a line is flagged: point it at the fault's line, so
        // the variables shown are those in scope there.
        const d = error.details;
        const at = top ? this.step.statements.findIndex((x) => x.fn === top.fn && x.file === d?.file && x.line === d?.line) : -1;
        if (top && at >= 0) top.s = at;
        const st = top && top.s >= 0 ? this.step.statements[top.s] : undefined;
        return { kind: "stop", reason: "exception", file: error.details?.file ?? st?.file ?? "", line: error.details?.line ?? st?.line ?? 0, block: a.idx, thread: r.thread.idx, frames: this.frames(r.thread), error };
      }
      this.active = undefined;
    }
  }

  /**
   * Whether anything could stop in block `b` before it starts: a step or stop on entry; a breakpoint
   * without a condition; a condition that holds — or needs a variable (it throws without them) — for
   * one of the block's threads, tried with the thread's indices alone. A condition on indices only
   * (`cuda.blockIdx.x === 3`) lets every other block run on the fast simulator.
   */
  private blockMayStop(b: number): boolean {
    if (this.replay?.steps(b)) return true;
    if (this.stepping || this.data.any) return true;
    // Probed breakpoints are found by running the block fast first (runFast).
    if (this.fastBlocks.probing) return false;
    for (const bps of this.breakpoints.values())
      for (const bp of bps) {
        const first = this.step.statements.find((st) => st.file === bp.file && st.line === bp.line);
        if (!first) continue;
        if (!bp.test && !bp.text) return true;
        if (this.conditionMayHold(bp, b, first.fn, first.visible)) return true;
      }
    return false;
  }

  /** Whether a breakpoint's condition holds — or reads a variable — for a thread of block `b`, tried on indices alone. */
  private conditionMayHold(bp: Breakpoint, b: number, fn: number, visible: readonly number[]): boolean {
    const [gx, gy] = this.launch.grid;
    const [bx, by, bz] = this.launch.block;
    const block: Dim3 = [b % gx, Math.floor(b / gx) % gy, Math.floor(b / (gx * gy))];
    const test = bp.test;
    const c = test ? undefined : this.exprs.compile(fn, visible, bp.text!, this.what(bp, bp.text!));
    if (c?.readsVars) return true;
    for (let tz = 0; tz < bz; tz++)
      for (let ty = 0; ty < by; ty++)
        for (let tx = 0; tx < bx; tx++) {
          try {
            if (c) {
              if (this.exprs.evaluate(c, { thread: [tx, ty, tz], t: (tz * by + ty) * bx + tx, block })) return true;
            } else {
              const cuda = { threadIdx: { x: tx, y: ty, z: tz }, blockIdx: { x: block[0], y: block[1], z: block[2] }, blockDim: { x: bx, y: by, z: bz }, gridDim: { x: gx, y: gy, z: this.launch.grid[2] } };
              if (test!({ cuda, locals: NO_LOCALS })) return true;
            }
          } catch {
            return true;
          }
        }
    return false;
  }

  /**
   * Blocks [b0, b1) on the fast simulator (fast-blocks.ts), with the breakpoints' probes: kept when no
   * probe fired; when one fired in block h, [b0, h) run again without probes and block h is stepped;
   * past the time limit every block from b0 is stepped (a pause can stop a loop there). A fault is a
   * stop (break on fault) or the end.
   */
  private runFast(b0: number, b1: number): DebugEvent | undefined {
    const r = this.fastBlocks.run(b0, b1, true);
    if (r.kind === "done") this.nextBlock = b1;
    else if (r.kind === "timeout") this.stepAll = true;
    else if (r.kind === "probe") {
      this.forceStep = r.block;
      if (r.block > b0) {
        const again = this.fastBlocks.run(b0, r.block, false);
        if (again.kind === "timeout") this.stepAll = true;
        else if (again.kind === "fault") return this.fastFault(again.error, r.block);
        else this.nextBlock = r.block;
      }
    } else return this.fastFault(r.error, b1);
    return undefined;
  }

  private fastFault(e: unknown, next: number): DebugEvent {
    this.nextBlock = next;
    const error = faultError(serializeFault(e, this.launch.kernel));
    if (this.options.breakOnFault === false || !error.details?.block) return this.end(error);
    this.pendingFault = error;
    const t = error.details.thread ?? [0, 0, 0];
    return { kind: "stop", reason: "exception", file: error.details.file ?? "", line: error.details.line ?? 0, block: error.details.block, thread: t, frames: [], error };
  }

  /** The replayed fault's stop: the faulting thread before the statement that faults; the next command ends the launch with the fault. */
  private replayStop(th: ThreadState, site: number): StopEvent {
    const error = this.replay!.target.error;
    this.replay!.reached = false;
    this.pendingFault = error;
    this.focusT = th.t;
    this.stepping = undefined;
    this.pausing = false;
    this.timedOut = false;
    this.data.hit = undefined;
    const st = this.step.statements[site]!;
    // Short: an editor shows it as the thread's state (VS Code's Call Stack).
    const description = `replayed to ${error.code}`;
    return { kind: "stop", reason: "exception", description, file: st.file, line: st.line, block: this.active!.idx, thread: th.idx, frames: this.frames(th), error };
  }

  private end(error: CudaScriptError | undefined): EndEvent {
    this.active = undefined;
    this.pendingFault = undefined;
    this.ended = error ? { kind: "end", error } : { kind: "end" };
    return this.ended;
  }

  private beginBlock(b: number): ActiveBlock {
    this.stepped++;
    const [gx, gy] = this.launch.grid;
    const [bx, by, bz] = this.launch.block;
    const idx: Dim3 = [b % gx, Math.floor(b / gx) % gy, Math.floor(b / (gx * gy))];
    this.mod.block(b);
    const thread = this.mod.kernels[this.launch.kernel]!.thread;
    // Every block has the same threads: their records are made once and reused (fewer allocations per block).
    const threads = this.threadPool;
    for (let tz = 0; tz < bz; tz++)
      for (let ty = 0; ty < by; ty++)
        for (let tx = 0; tx < bx; tx++) {
          const t = (tz * by + ty) * bx + tx;
          const gen = thread(this.argv, tx, ty, tz, t);
          const th = threads[t];
          if (!th) threads.push({ t, idx: [tx, ty, tz], gen, frames: [], status: "not started", req: { op: "", site: -1, args: [undefined, undefined, undefined] }, resume: undefined });
          else {
            th.gen = gen;
            th.frames.length = 0;
            th.status = "not started";
            th.resume = undefined;
            th.cuda = undefined;
          }
        }
    this.data.refresh();
    const scheduler = new BlockScheduler(threads, this.S, {
      flagsFor: (th) => (this.pausing || (this.stepping && th.t === this.focusT) ? this.allLines : this.bpLines),
      deepFor: (th) => this.pausing || (this.stepping !== undefined && th.t === this.focusT) || this.bpInDevice || this.data.any,
      stopAt: (th, site) => this.stopAt(th, site, idx),
      barrierReleased: (waiting) => {
        if (this.stepping && waiting.some((th) => th.t === this.focusT)) this.stepping.acrossBarrier = true;
      },
      unsupported: (op) => {
        throw new CudaScriptError("CSD012", `kernel '${this.launch.kernel}' calls g.sync() (${op}): the debugger cannot run cooperative kernels yet; debug it without the grid barrier, or run it on the simulator`);
      },
    });
    return { b, idx, threads, scheduler };
  }

  private stopAt(th: ThreadState, site: number, block: Dim3): boolean {
    // Counted first: a pause or a step stopping here must not skip a pass the replay counts.
    if (this.replay?.at(th, site, block, () => this.frames(th))) return true;
    if (this.pausing) return true;
    const st = this.step.statements[site]!;
    const s = this.stepping;
    if (s && th.t === this.focusT) {
      const depth = th.frames.length;
      const done = s.kind === "in" || (s.kind === "over" && (depth < s.depth || (depth === s.depth && (st.line !== s.line || site === s.site)))) || (s.kind === "out" && depth < s.depth);
      if (done) return true;
    }
    if (this.bpLines[st.lineId] === 0) return false;
    for (const bp of this.breakpoints.get(st.file) ?? []) {
      if (bp.line !== st.line) continue;
      if ((!bp.test && !bp.text) || this.evalCondition(bp, th, site, block)) {
        // A hit: counted across all threads in the order the scheduler runs them (docs/debugging.md).
        bp.hits++;
        if (bp.hit && !bp.hit(bp.hits)) continue;
        if (bp.log) {
          this.logpoint(bp, th, site, block);
          continue;
        }
        this.stepping = undefined;
        return true;
      }
    }
    return false;
  }

  /** A logpoint's message for a thread: its `{expr}`s evaluated in the thread's frame. */
  private logpoint(bp: Breakpoint, th: ThreadState, site: number, block: Dim3): void {
    const st = this.step.statements[site]!;
    const frame = th.frames[th.frames.length - 1];
    const text = bp.log!.map((p) => {
      if (typeof p === "string") return p;
      const c = this.exprs.compile(st.fn, st.visible, p.expr, this.what(bp, p.expr));
      try {
        return formatValue(this.exprs.evaluate(c, { thread: th.idx, t: th.t, block, frame }, this.what(bp, p.expr)));
      } catch (e) {
        return `<${(e as Error).message}>`;
      }
    });
    const e: LogEvent = { text: text.join(""), file: st.file, line: st.line, block, thread: th.idx };
    if (this.options.log) this.options.log(e);
    else this.print(`[block (${block.join(", ")}) thread (${th.idx.join(", ")})] ${e.text}\n`);
  }

  /**
   * A breakpoint's condition for a thread at statement `site`. Runs at every pass of the line by every
   * thread while it is never true, so it reads the frame's values directly: an expression is compiled
   * once per statement into a function of (cuda, values) that binds the variables in scope by name.
   */
  private evalCondition(bp: Breakpoint, th: ThreadState, site: number, block: Dim3): boolean {
    const f = th.frames[th.frames.length - 1]!;
    const st = this.step.statements[site]!;
    if (bp.test) {
      const values = f.scalars();
      const fn = this.step.functions[st.fn]!;
      const locals: Record<string, unknown> = {};
      for (const i of st.visible) if (fn.vars[i]!.kind === "scalar") locals[fn.vars[i]!.name] = values[i];
      return !!bp.test({ cuda: (th.cuda ??= this.cudaContext(th, block)) as ConditionContext["cuda"], locals });
    }
    // Compiled once per statement (cached on the breakpoint: no key to build), then one call per pass.
    let c = bp.bySite.get(site);
    if (!c) bp.bySite.set(site, (c = this.exprs.compile(st.fn, st.visible, bp.text!, this.what(bp, bp.text!))));
    try {
      return !!this.exprs.evaluate(c, { thread: th.idx, t: th.t, block, frame: f }, this.what(bp, bp.text!));
    } catch (e) {
      if (e instanceof CudaScriptError && e.code === "CSD027") throw e; // it says which condition, and why
      throw new CudaScriptError("CSD009", `the condition of the breakpoint at line ${bp.line} (${bp.text}) failed for thread (${th.idx.join(", ")}): ${(e as Error).message}; write a condition that holds for every thread that reaches the line, e.g. i < a.length && a[i] > 0`);
    }
  }

  // ───────────────────────── evaluate and watch ─────────────────────────

  /**
   * An expression in the kernel language evaluated in the focus thread's frame `frame` (0: innermost),
   * or in another thread of the block. An array variable's name gives its type and `array` (its items
   * are under the frame's Locals).
   */
  evaluate(expression: string, frame = 0, thread?: Dim3): EvaluateResult {
    const a = this.activeBlock();
    const th = a.threads[thread ? this.linear(thread) : this.focusT]!;
    const f = th.frames[th.frames.length - 1 - frame];
    if (!f) throw new CudaScriptError("CSD011", `thread (${th.idx.join(", ")}) has no frame ${frame} (it is ${th.status})`);
    const fn = this.step.functions[f.fn]!;
    const visible = this.exprs.visibleAt(f.fn, f.s);
    const name = expression.trim();
    const arr = visible.map((i) => fn.vars[i]!).reverse().find((v) => v.name === name);
    if (arr?.kind === "array") return { result: `${arr.dtype}[] ${arr.space ?? ""}`.trim(), type: arr.dtype, array: { name, frame } };
    const c = this.exprs.compile(f.fn, visible, expression, "the expression");
    return { result: formatValue(this.exprs.evaluate(c, { thread: th.idx, t: th.t, block: a.idx, frame: f })), type: c.dtype };
  }

  /**
   * A warp watch: the expression in each lane of the focus thread's warp, in the lane's innermost frame
   * (with the focus statement's variables in scope where the lane is in the same function). Lanes that
   * have exited or not started have no value; `active` marks the lanes at the focus thread's statement.
   */
  evaluateWarp(expression: string): WarpWatch {
    const a = this.activeBlock();
    const focus = a.threads[this.focusT]!;
    const ff = focus.frames[focus.frames.length - 1];
    const w = this.focusT - (this.focusT % 32);
    // A bad expression is an error of the watch, said once (not once per lane).
    if (ff) this.exprs.compile(ff.fn, this.exprs.visibleAt(ff.fn, ff.s), expression, "the warp watch");
    let type: string | undefined;
    const lanes = a.threads.slice(w, Math.min(w + 32, a.threads.length)).map((th): LaneValue => {
      const f = th.frames[th.frames.length - 1];
      const base = { lane: th.t - w, thread: th.idx, status: th.status, active: !!f && !!ff && f.fn === ff.fn && f.s === ff.s && th.frames.length === focus.frames.length };
      if (!f) return base;
      const site = ff && f.fn === ff.fn ? ff.s : f.s;
      try {
        const c = this.exprs.compile(f.fn, this.exprs.visibleAt(f.fn, site), expression, "the warp watch");
        type ??= c.dtype;
        const line = f.s >= 0 ? this.step.statements[f.s]!.line : undefined;
        return { ...base, ...(line ? { line } : {}), result: formatValue(this.exprs.evaluate(c, { thread: th.idx, t: th.t, block: a.idx, frame: f }, "the warp watch")) };
      } catch (e) {
        return { ...base, error: (e as Error).message };
      }
    });
    return { expression, ...(type ? { type } : {}), lanes };
  }

  private cudaContext(th: ThreadState, block: Dim3): ConditionContext["cuda"] {
    const xyz = (d: Dim3): Xyz => ({ x: d[0], y: d[1], z: d[2] });
    return { threadIdx: xyz(th.idx), blockIdx: xyz(block), blockDim: xyz(this.launch.block), gridDim: xyz(this.launch.grid) };
  }

  private frames(th: ThreadState): FrameView[] {
    const out: FrameView[] = [];
    for (let i = th.frames.length - 1; i >= 0; i--) out.push(this.frameView(th.frames[i]!));
    return out;
  }

  private frameView(f: Frame): FrameView {
    const fn = this.step.functions[f.fn]!;
    const st = f.s >= 0 ? this.step.statements[f.s] : undefined;
    const values = f.get();
    const variables: VariableView[] = [];
    const visible = st ? st.visible : fn.vars.map((_, i) => i).filter((i) => fn.vars[i]!.isParam);
    for (const i of visible) {
      const v = fn.vars[i]!;
      if (values[i] === undefined) continue;
      variables.push({ name: v.name, kind: v.kind, dtype: v.dtype, isParam: v.isParam, value: values[i], ...(v.space ? { space: v.space } : {}), ...(v.record ? { record: v.record } : {}) });
    }
    return { function: fn.name, file: st?.file ?? fn.file, line: st?.line ?? fn.line, col: st?.col ?? 1, variables };
  }
}
