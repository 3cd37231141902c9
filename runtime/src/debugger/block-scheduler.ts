/**
 * Runs one block of the stepping backend (compiler/src/step/emit-step.ts): one generator per CUDA
 * thread, resumed in linear thread order, each until it finishes or reaches a barrier or warp
 * operation — the order in which the fast simulator's loop fission runs a block's pieces, so atomics,
 * shared memory and printf happen in the same order. When no thread can go on, the scheduler combines
 * the synchronisations (sync-ops.ts): warp operations first, warp by warp, for the lanes that reached
 * the same operation (the one earliest in the source: the fast simulator finishes a divergent branch or
 * loop before what follows it); then, once every live thread waits at a barrier, the barrier.
 *
 * At a statement `$S.on` flags, the thread asks the policy (`stopAt`, through `$S.stop`) whether to
 * pause, and yields only to pause: `run` returns with the thread suspended at that statement. The next
 * `run` resumes it where it was: pausing changes nothing in the order of execution.
 */
import { BARRIER_OPS, barrierResults, warpResults, type SyncRequest } from "./sync-ops";

/** A function's activation on a thread: `get()` reads its variables, `set(i, x)` assigns one; `s` is the statement it is at. */
export class Frame {
  s = -1;
  constructor(
    readonly fn: number,
    private readonly io: (i: number, x?: unknown) => unknown,
  ) {}
  /** Every variable, arrays as { data, offset, shape }. */
  get(): unknown[] {
    return this.io(-2) as unknown[];
  }
  /** The scalar variables (undefined for arrays): what a breakpoint condition reads. */
  scalars(): unknown[] {
    return this.io(-1) as unknown[];
  }
  set(i: number, x: unknown): void {
    this.io(i, x);
  }
}

export type ThreadStatus = "not started" | "running" | "at barrier" | "at warp operation" | "exited" | "faulted";

export interface ThreadState {
  /** Linear index in the block, and (x, y, z). */
  readonly t: number;
  readonly idx: readonly [number, number, number];
  gen: Generator<number, unknown, unknown>;
  readonly frames: Frame[];
  status: ThreadStatus;
  /** The synchronisation it waits at (meaningful while at a barrier or warp operation): one object per thread, rewritten. */
  readonly req: SyncRequest;
  /** What the next resumption passes in (a synchronisation's result). */
  resume: unknown;
  /** The thread's `cuda` object for breakpoint conditions, made at its first condition. */
  cuda?: unknown;
}

/** Loop passes between two looks at the clock (a look costs about as much as a few hundred passes). */
const TICK_PASSES = 4096;

/** The object the stepping module calls `$S`. */
export class StepHooks {
  on: Uint8Array;
  /** The running thread may stop inside a device function: calls run their generator form. */
  deep = true;
  cur!: ThreadState;
  constructor(lines: number) {
    this.on = new Uint8Array(lines);
  }
  enter(fn: number, io: (i: number, x?: unknown) => unknown): Frame {
    const f = new Frame(fn, io);
    this.cur.frames.push(f);
    return f;
  }
  leave<T>(x: T): T {
    this.cur.frames.pop();
    return x;
  }
  /** Set by the scheduler: the policy's decision for the running thread. */
  stopAt: (th: ThreadState, site: number) => boolean = () => false;
  stop(site: number): boolean {
    const th = this.cur;
    const top = th.frames[th.frames.length - 1];
    if (top) top.s = site;
    try {
      return this.stopAt(th, site);
    } catch (e) {
      // The debugger's own error (a breakpoint condition that throws), not the kernel's fault.
      this.hostError = e;
      throw e;
    }
  }
  hostError: unknown;

  /** Loop passes left before the next `tick` (a countdown: one decrement per pass while it is positive). */
  bud = TICK_PASSES;
  /** When the current time slice ends (performance.now()); a pause request makes it 0. */
  sliceEnd = Infinity;
  /** The loop statement of the last `tick` that ended the slice. */
  tickSite = -1;
  /** Whether the running thread gives up the rest of the time slice at this loop (then it yields -2). */
  tick(site: number): boolean {
    this.bud = TICK_PASSES;
    if (performance.now() < this.sliceEnd) return false;
    const top = this.cur.frames[this.cur.frames.length - 1];
    if (top) top.s = site;
    this.tickSite = site;
    return true;
  }

  /** Non-zero while a data breakpoint is set: statements that write memory call `watch`. */
  dw = 0;
  /** Set by the session: whether a watched element changed (the running thread wrote it). */
  watched: () => boolean = () => false;
  watch(site: number): boolean {
    const top = this.cur.frames[this.cur.frames.length - 1];
    if (!this.watched()) return false;
    if (top) top.s = site;
    return true;
  }

  req(op: string, site: number, a?: unknown, b?: unknown, c?: unknown): number {
    const r = this.cur.req;
    r.op = op;
    r.site = site;
    r.args[0] = a;
    r.args[1] = b;
    r.args[2] = c;
    return -1;
  }
}

export type RunResult =
  | { readonly kind: "stop"; readonly thread: ThreadState; readonly site: number }
  | { readonly kind: "done" }
  | { readonly kind: "fault"; readonly thread: ThreadState; readonly error: unknown }
  /** The time slice ended in a loop of this thread (suspended there, at loop statement `site`); `run` again resumes it. */
  | { readonly kind: "slice"; readonly thread: ThreadState; readonly site: number };

export interface SchedulerPolicy {
  /** The line flags a thread runs with (breakpoints, or every line for the thread being stepped). */
  flagsFor(th: ThreadState): Uint8Array;
  /** Whether the thread may stop inside a device function (then its calls run their generator form). */
  deepFor(th: ThreadState): boolean;
  /** Whether the thread pauses at this statement. */
  stopAt(th: ThreadState, site: number): boolean;
  /** A barrier released: these threads waited at it. */
  barrierReleased?(waiting: readonly ThreadState[]): void;
  /** A synchronisation the stepping backend cannot run (g.sync()). */
  unsupported(op: string, th: ThreadState): never;
}

export class BlockScheduler {
  /** The next thread to resume in the current pass. */
  private pos = 0;

  constructor(
    readonly threads: readonly ThreadState[],
    private readonly S: StepHooks,
    private readonly policy: SchedulerPolicy,
  ) {
    S.stopAt = (th, site) => policy.stopAt(th, site);
  }

  run(): RunResult {
    const S = this.S;
    for (;;) {
      const n = this.threads.length;
      while (this.pos < n) {
        const th = this.threads[this.pos]!;
        if (th.status !== "not started" && th.status !== "running") {
          this.pos++;
          continue;
        }
        th.status = "running";
        S.cur = th;
        S.on = this.policy.flagsFor(th);
        S.deep = this.policy.deepFor(th);
        let value = th.resume;
        th.resume = undefined;
        for (;;) {
          let r: IteratorResult<number, unknown>;
          try {
            r = th.gen.next(value);
          } catch (error) {
            th.status = "faulted";
            if (error === S.hostError) throw error;
            return { kind: "fault", thread: th, error };
          }
          value = undefined;
          if (r.done) {
            th.status = "exited";
            break;
          }
          // A statement is yielded only when $S.stop decided to stop there.
          if (r.value >= 0) return { kind: "stop", thread: th, site: r.value };
          if (r.value === -2) return { kind: "slice", thread: th, site: S.tickSite };
          th.status = BARRIER_OPS.has(th.req.op) ? "at barrier" : th.req.op === "gridSync" ? this.policy.unsupported("gridSync", th) : "at warp operation";
          break;
        }
        this.pos++;
      }
      if (!this.combine()) return { kind: "done" };
      this.pos = 0;
    }
  }

  /** Resolves the synchronisations every blocked thread waits at; false when every thread has exited. */
  private combine(): boolean {
    const threads = this.threads;
    let progressed = false;
    for (let w = 0; w < threads.length; w += 32) {
      const e = Math.min(w + 32, threads.length);
      let site = Infinity;
      for (let u = w; u < e; u++) if (threads[u]!.status === "at warp operation") site = Math.min(site, threads[u]!.req.site);
      if (site === Infinity) continue;
      const group: ThreadState[] = [];
      for (let u = w; u < e; u++) if (threads[u]!.status === "at warp operation" && threads[u]!.req.site === site) group.push(threads[u]!);
      const results = warpResults(group[0]!.req.op, group.map((th) => th.t - w), group.map((th) => th.req), e - w);
      group.forEach((th, i) => this.release(th, results[i]));
      progressed = true;
    }
    if (progressed) return true;
    const waiting = threads.filter((th) => th.status === "at barrier");
    if (waiting.length === 0) return false;
    // A plain __syncthreads() has no result: no per-thread results to compute.
    if (waiting.every((th) => th.req.op === "syncthreads")) for (const th of waiting) this.release(th, undefined);
    else {
      const results = barrierResults(waiting.map((th) => th.req));
      waiting.forEach((th, i) => this.release(th, results[i]));
    }
    this.policy.barrierReleased?.(waiting);
    return true;
  }

  private release(th: ThreadState, result: unknown): void {
    th.status = "running";
    th.resume = result;
  }
}
