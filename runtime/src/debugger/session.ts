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
 * Breakpoint conditions are, for now, JavaScript expressions (or functions) over the thread's
 * variables in scope and `cuda.threadIdx/blockIdx/blockDim/gridDim`: `cuda.threadIdx.x === 5 && i > 3`
 * reads the same in the kernel language (docs/debugging.md).
 */
import { emitSimulatorModule, emitStepModule, type IrModule, type StepModule } from "@cudascript/compiler";
import { CudaScriptError } from "../errors";
import { f16round } from "../float16";
import { createRt, type Rt } from "../simulator/rt";
import { faultError, makeArgs, serializeFault, type ArgDesc } from "../simulator/executor";
import type { LaunchData } from "../simulator/module-cache";
import { BlockScheduler, StepHooks, type Frame, type ThreadState, type ThreadStatus } from "./block-scheduler";

export type Dim3 = readonly [number, number, number];

export interface DebugLaunch {
  readonly module: IrModule;
  readonly kernel: string;
  readonly grid: Dim3;
  readonly block: Dim3;
  /** Dynamic shared memory bytes. */
  readonly sharedMem?: number;
  /** The arguments as the simulator's executor gets them (device memory, dtype, shape; scalars as values). */
  readonly args: readonly ArgDesc[];
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
}

export interface ConditionContext {
  readonly cuda: { readonly threadIdx: Xyz; readonly blockIdx: Xyz; readonly blockDim: Xyz; readonly gridDim: Xyz };
  /** The thread's scalar variables in scope, by name. */
  readonly locals: Readonly<Record<string, unknown>>;
}
export interface Xyz {
  readonly x: number;
  readonly y: number;
  readonly z: number;
}

export interface BreakpointSpec {
  readonly line: number;
  /** Stops only when true for the thread at the line: a JavaScript expression over the variables in scope and `cuda`, or a function. */
  readonly condition?: string | ((ctx: ConditionContext) => boolean);
}

/** A variable of a frame: scalars as their values (i64 as bigints, complex as { re, im }), arrays as their storage and shape. */
export interface VariableView {
  readonly name: string;
  readonly kind: "scalar" | "array";
  readonly dtype: string;
  readonly isParam: boolean;
  readonly value: unknown;
  readonly space?: string;
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
  readonly reason: "entry" | "breakpoint" | "step" | "exception";
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

/** A focus thread's state for a debugger view. */
export interface FocusView {
  readonly block: Dim3;
  readonly thread: Dim3;
  readonly status: ThreadStatus;
  readonly frames: readonly FrameView[];
}

type Step = { readonly kind: "in" | "over" | "out"; readonly depth: number; readonly site: number; readonly line: number; acrossBarrier: boolean };

interface Breakpoint {
  readonly file: string;
  readonly line: number;
  /** A condition given as a function. */
  readonly test?: (ctx: ConditionContext) => boolean;
  /** A condition given as an expression, compiled per statement of its line over that statement's variables in scope. */
  readonly text?: string;
  readonly bySite: Map<number, (cuda: unknown, values: readonly unknown[]) => unknown>;
  /** The condition tried on a thread's indices alone (blockMayStop). */
  onIndices?: (cuda: unknown) => unknown;
}

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

function dim3Error(what: string, v: unknown): CudaScriptError {
  return new CudaScriptError("CSD011", `${what} must be [x, y, z] whole numbers inside the launch's ${what === "thread" ? "block" : "grid"}, got ${JSON.stringify(v)}`);
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
  private fast: { kernels: Record<string, { run(L: LaunchData, b0: number, b1: number): void }> } | undefined;
  private active: ActiveBlock | undefined;
  private focusT = 0;
  private stepping: Step | undefined;
  private pendingFault: CudaScriptError | undefined;
  private ended: EndEvent | undefined;
  private started = false;

  constructor(
    private readonly launch: DebugLaunch,
    private readonly options: DebugOptions = {},
  ) {
    const k = launch.module.kernels.find((f) => f.name === launch.kernel);
    if (!k) throw new CudaScriptError("CSD010", `the module of ${launch.module.file} has no kernel '${launch.kernel}'; its kernels are ${launch.module.kernels.map((f) => f.name).join(", ") || "(none)"}`);
    this.step = emitStepModule(launch.module);
    const print = options.print ?? ((s: string) => void process.stdout.write(s));
    this.rt = createRt({ concurrent: false, deadline: Infinity, print, uninitializedShared: "warn", warn: () => {} });
    this.S = new StepHooks(this.step.lines.length);
    this.mod = new Function("rt", "$S", this.step.source)(this.rt, this.S) as DebugSession["mod"];
    this.L = { args: makeArgs(launch.args), grid: launch.grid, block: launch.block, dynBuf: new ArrayBuffer(launch.sharedMem ?? 0) };
    this.mod.setup(this.L);
    this.argv = this.mod.kernels[launch.kernel]!.argv(this.L);
    this.nBlocks = launch.grid[0] * launch.grid[1] * launch.grid[2];
    this.allLines = new Uint8Array(this.step.lines.length).fill(1);
    this.bpLines = new Uint8Array(this.step.lines.length);
  }

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
   * (a breakpoint on a line without one never stops).
   */
  setBreakpoints(file: string, specs: readonly BreakpointSpec[]): { line: number; verified: boolean }[] {
    const list: Breakpoint[] = specs.map((s) => {
      const c = s.condition;
      if (typeof c === "function") return { file, line: s.line, test: c, bySite: new Map() };
      if (c === undefined || c.trim() === "") return { file, line: s.line, bySite: new Map() };
      checkConditionSyntax(c);
      return { file, line: s.line, text: c, bySite: new Map() };
    });
    this.breakpoints.set(file, list);
    this.bpLines.fill(0);
    for (const bps of this.breakpoints.values())
      for (const bp of bps) this.step.lines.forEach((l, id) => l.file === bp.file && l.line === bp.line && (this.bpLines[id] = 1));
    this.bpInDevice = this.step.statements.some((st) => this.bpLines[st.lineId] === 1 && this.step.functions[st.fn]!.kind === "device");
    return list.map((bp) => ({ line: bp.line, verified: this.step.lines.some((l) => l.file === bp.file && l.line === bp.line) }));
  }

  /** Runs until a breakpoint, a fault (break on fault) or the end. The first call starts the launch. */
  continue(): DebugEvent {
    this.stepping = undefined;
    return this.resume();
  }

  /** Runs the focus thread to its next line in the same function (a call runs whole; a barrier lets the rest of the block reach it). */
  stepOver(): DebugEvent {
    return this.startStep("over");
  }
  /** Runs the focus thread to its next statement, inside a device function it calls. */
  stepIn(): DebugEvent {
    return this.startStep("in");
  }
  /** Runs the focus thread until its current device function returns. */
  stepOut(): DebugEvent {
    return this.startStep("out");
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

  private startStep(kind: Step["kind"]): DebugEvent {
    const th = this.active?.threads[this.focusT];
    if (!this.started || !th || th.status === "exited" || th.status === "faulted") return this.continue();
    const top = th.frames[th.frames.length - 1];
    const site = top ? top.s : -1;
    // A thread that has not started yet stops at its first statement, whatever the step.
    this.stepping = { kind: top ? kind : "in", depth: th.frames.length, site, line: site >= 0 ? this.step.statements[site]!.line : -1, acrossBarrier: false };
    return this.resume();
  }

  private resume(): DebugEvent {
    if (this.ended) return this.ended;
    if (this.pendingFault) return this.end(this.pendingFault);
    if (!this.started) {
      this.started = true;
      if (this.options.stopOnEntry) this.stepping = { kind: "in", depth: Infinity, site: -1, line: -1, acrossBarrier: false };
    }
    for (;;) {
      if (!this.active) {
        if (this.nextBlock >= this.nBlocks) return this.end(undefined);
        if (this.options.fastBlocks !== false) {
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
      if (r.kind === "stop") {
        this.focusT = r.thread.t;
        const reason = this.stepping ? (this.stepping.depth === Infinity ? "entry" : "step") : "breakpoint";
        const across = this.stepping?.acrossBarrier;
        this.stepping = undefined;
        const st = this.step.statements[r.site]!;
        return { kind: "stop", reason, file: st.file, line: st.line, block: this.active.idx, thread: r.thread.idx, frames: this.frames(r.thread), ...(across ? { acrossBarrier: true } : {}) };
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
    if (this.stepping) return true;
    for (const bps of this.breakpoints.values())
      for (const bp of bps) {
        if (!this.step.lines.some((l) => l.file === bp.file && l.line === bp.line)) continue;
        if (!bp.test && !bp.text) return true;
        if (this.conditionMayHold(bp, b)) return true;
      }
    return false;
  }

  private conditionMayHold(bp: Breakpoint, b: number): boolean {
    const [gx, gy] = this.launch.grid;
    const [bx, by, bz] = this.launch.block;
    const block: Dim3 = [b % gx, Math.floor(b / gx) % gy, Math.floor(b / (gx * gy))];
    const test = bp.test;
    const pred = (bp.onIndices ??= test ? (cuda) => test({ cuda: cuda as ConditionContext["cuda"], locals: NO_LOCALS }) : (new Function("cuda", `return (${bp.text});`) as (cuda: unknown) => unknown));
    for (let tz = 0; tz < bz; tz++)
      for (let ty = 0; ty < by; ty++)
        for (let tx = 0; tx < bx; tx++) {
          const cuda = { threadIdx: { x: tx, y: ty, z: tz }, blockIdx: { x: block[0], y: block[1], z: block[2] }, blockDim: { x: bx, y: by, z: bz }, gridDim: { x: gx, y: gy, z: this.launch.grid[2] } };
          try {
            if (pred(cuda)) return true;
          } catch {
            return true;
          }
        }
    return false;
  }

  /** Blocks [b0, b1), where nothing can stop, on the fast simulator's module over the same memory; a fault is a stop (break on fault) or the end. */
  private runFast(b0: number, b1: number): DebugEvent | undefined {
    this.fast ??= new Function("rt", emitSimulatorModule(this.launch.module).source)(this.rt) as DebugSession["fast"];
    this.nextBlock = b1;
    try {
      this.fast!.kernels[this.launch.kernel]!.run(this.L, b0, b1);
    } catch (e) {
      const error = faultError(serializeFault(e, this.launch.kernel));
      if (this.options.breakOnFault === false || !error.details?.block) return this.end(error);
      this.pendingFault = error;
      const t = error.details.thread ?? [0, 0, 0];
      return { kind: "stop", reason: "exception", file: error.details.file ?? "", line: error.details.line ?? 0, block: error.details.block, thread: t, frames: [], error };
    }
    return undefined;
  }

  private end(error: CudaScriptError | undefined): EndEvent {
    this.active = undefined;
    this.pendingFault = undefined;
    this.ended = error ? { kind: "end", error } : { kind: "end" };
    return this.ended;
  }

  private beginBlock(b: number): ActiveBlock {
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
    const scheduler = new BlockScheduler(threads, this.S, {
      flagsFor: (th) => (this.stepping && th.t === this.focusT ? this.allLines : this.bpLines),
      deepFor: (th) => (this.stepping !== undefined && th.t === this.focusT) || this.bpInDevice,
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
        this.stepping = undefined;
        return true;
      }
    }
    return false;
  }

  /**
   * A breakpoint's condition for a thread at statement `site`. Runs at every pass of the line by every
   * thread while it is never true, so it reads the frame's values directly: an expression is compiled
   * once per statement into a function of (cuda, values) that binds the variables in scope by name.
   */
  private evalCondition(bp: Breakpoint, th: ThreadState, site: number, block: Dim3): boolean {
    const f = th.frames[th.frames.length - 1]!;
    const values = f.scalars();
    const st = this.step.statements[site]!;
    const fn = this.step.functions[st.fn]!;
    const cuda = (th.cuda ??= this.cudaContext(th, block));
    try {
      if (bp.test) {
        const locals: Record<string, unknown> = {};
        for (const i of st.visible) if (fn.vars[i]!.kind === "scalar") locals[fn.vars[i]!.name] = values[i];
        return !!bp.test({ cuda: cuda as ConditionContext["cuda"], locals });
      }
      let pred = bp.bySite.get(site);
      if (!pred) {
        const byName = new Map<string, number>();
        for (const i of st.visible) if (/^[A-Za-z_$][\w$]*$/.test(fn.vars[i]!.name)) byName.set(fn.vars[i]!.name, i);
        const binds = [...byName].map(([n, i]) => `${n} = $v[${i}]`);
        pred = new Function("cuda", "$v", `${binds.length ? `const ${binds.join(", ")};` : ""} return (${bp.text});`) as (cuda: unknown, values: readonly unknown[]) => unknown;
        bp.bySite.set(site, pred);
      }
      return !!pred(cuda, values);
    } catch (e) {
      throw new CudaScriptError("CSD009", `the condition of the breakpoint at line ${bp.line}${bp.text ? ` (${bp.text})` : ""} failed for thread (${th.idx.join(", ")}): ${(e as Error).message}; write a JavaScript expression over the variables in scope and cuda.threadIdx / blockIdx / blockDim / gridDim, e.g. cuda.threadIdx.x === 5 && i > 3`);
    }
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
      variables.push({ name: v.name, kind: v.kind, dtype: v.dtype, isParam: v.isParam, value: values[i], ...(v.space ? { space: v.space } : {}) });
    }
    return { function: fn.name, file: st?.file ?? fn.file, line: st?.line ?? fn.line, col: st?.col ?? 1, variables };
  }
}

/** CSD009 for a condition that does not parse as an expression. */
function checkConditionSyntax(c: string): void {
  try {
    new Function("cuda", `return (${c});`);
  } catch (e) {
    throw new CudaScriptError("CSD009", `the breakpoint condition '${c}' does not parse (${(e as Error).message}): write an expression such as cuda.threadIdx.x === 5 && i > 3`);
  }
}

/** A value for a scalar of `dtype`, as an assignment in the kernel converts it. */
function convertValue(x: number | bigint | boolean, dtype: string, name: string): unknown {
  const bad = (): never => {
    throw new CudaScriptError("CSD013", `'${name}' is ${dtype}: give it a ${dtype === "bool" ? "boolean" : dtype === "i64" || dtype === "u64" ? "bigint or whole number" : "number"}, got ${typeof x === "bigint" ? `${x}n` : String(x)}`);
  };
  if (dtype === "bool") return typeof x === "boolean" ? x : bad();
  if (dtype === "i64" || dtype === "u64") {
    if (typeof x === "boolean" || (typeof x === "number" && !Number.isInteger(x))) return bad();
    return dtype === "i64" ? BigInt.asIntN(64, BigInt(x)) : BigInt.asUintN(64, BigInt(x));
  }
  if (typeof x !== "number") return bad();
  switch (dtype) {
    case "f16":
      return f16round(x);
    case "f64":
      return x;
    case "f32":
      return Math.fround(x);
    case "i32":
      return x | 0;
    case "u32":
      return x >>> 0;
    case "i16":
      return (x << 16) >> 16;
    case "u16":
      return x & 65535;
    case "i8":
      return (x << 24) >> 24;
    case "u8":
      return x & 255;
    default:
      return bad();
  }
}
