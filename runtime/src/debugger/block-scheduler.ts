/**
 * Runs one block of the stepping backend (compiler/src/step/emit-step.ts): one generator per CUDA
 * thread, resumed in linear thread order, each until it finishes or reaches a barrier or warp
 * operation — the order in which the fast simulator's loop fission runs a block's pieces, so atomics,
 * shared memory and printf happen in the same order. When no thread can go on, the scheduler combines
 * the synchronisations (sync-ops.ts): warp operations first, warp by warp, for the lanes that reached
 * the same operation (the one earliest in the source: the fast simulator finishes a divergent branch or
 * loop before what follows it); then, once every live thread waits at a barrier, the barrier.
 *
 * A thread yields at a statement only where `$S.on` says so; the scheduler asks `stopAt` whether to
 * pause there, and a pause returns from `run` with the thread suspended at that statement. The next
 * `run` resumes it where it was: pausing changes nothing in the order of execution.
 */
import { BARRIER_OPS, barrierResults, warpResults, type SyncRequest } from "./sync-ops";

/** A function's activation on a thread: `get()` reads its variables, `set(i, x)` assigns one; `s` is the statement it is at. */
export interface Frame {
  readonly fn: number;
  s: number;
  readonly get: () => unknown[];
  readonly set: (i: number, x: unknown) => void;
}

export type ThreadStatus = "not started" | "running" | "at barrier" | "at warp operation" | "exited" | "faulted";

export interface ThreadState {
  /** Linear index in the block, and (x, y, z). */
  readonly t: number;
  readonly idx: readonly [number, number, number];
  readonly gen: Generator<number, unknown, unknown>;
  readonly frames: Frame[];
  status: ThreadStatus;
  req: SyncRequest | undefined;
  /** What the next resumption passes in (a synchronisation's result). */
  resume: unknown;
  /** The thread's `cuda` object for breakpoint conditions, made at its first condition. */
  cuda?: unknown;
}

/** The object the stepping module calls `$S`. */
export class StepHooks {
  on: Uint8Array;
  cur!: ThreadState;
  constructor(lines: number) {
    this.on = new Uint8Array(lines);
  }
  enter(fn: number, get: () => unknown[], set: (i: number, x: unknown) => void): Frame {
    const f: Frame = { fn, s: -1, get, set };
    this.cur.frames.push(f);
    return f;
  }
  leave<T>(x: T): T {
    this.cur.frames.pop();
    return x;
  }
  req(op: string, site: number, a?: unknown, b?: unknown, c?: unknown): number {
    this.cur.req = { op, site, args: [a, b, c] };
    return -1;
  }
}

export type RunResult = { readonly kind: "stop"; readonly thread: ThreadState; readonly site: number } | { readonly kind: "done" } | { readonly kind: "fault"; readonly thread: ThreadState; readonly error: unknown };

export interface SchedulerPolicy {
  /** The line flags a thread runs with (breakpoints, or every line for the thread being stepped). */
  flagsFor(th: ThreadState): Uint8Array;
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
  ) {}

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
        let value = th.resume;
        th.resume = undefined;
        for (;;) {
          let r: IteratorResult<number, unknown>;
          try {
            r = th.gen.next(value);
          } catch (error) {
            th.status = "faulted";
            return { kind: "fault", thread: th, error };
          }
          value = undefined;
          if (r.done) {
            th.status = "exited";
            break;
          }
          if (r.value >= 0) {
            const top = th.frames[th.frames.length - 1];
            if (top) top.s = r.value;
            if (this.policy.stopAt(th, r.value)) return { kind: "stop", thread: th, site: r.value };
            // The policy may have changed what this thread stops at (a step ended elsewhere).
            S.on = this.policy.flagsFor(th);
            continue;
          }
          th.status = BARRIER_OPS.has(th.req!.op) ? "at barrier" : th.req!.op === "gridSync" ? this.policy.unsupported("gridSync", th) : "at warp operation";
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
      for (let u = w; u < e; u++) if (threads[u]!.status === "at warp operation") site = Math.min(site, threads[u]!.req!.site);
      if (site === Infinity) continue;
      const group: ThreadState[] = [];
      for (let u = w; u < e; u++) if (threads[u]!.status === "at warp operation" && threads[u]!.req!.site === site) group.push(threads[u]!);
      const results = warpResults(group[0]!.req!.op, group.map((th) => th.t - w), group.map((th) => th.req!), e - w);
      group.forEach((th, i) => this.release(th, results[i]));
      progressed = true;
    }
    if (progressed) return true;
    const waiting = threads.filter((th) => th.status === "at barrier");
    if (waiting.length === 0) return false;
    const results = barrierResults(waiting.map((th) => th.req!));
    waiting.forEach((th, i) => this.release(th, results[i]));
    this.policy.barrierReleased?.(waiting);
    return true;
  }

  private release(th: ThreadState, result: unknown): void {
    th.status = "running";
    th.req = undefined;
    th.resume = result;
  }
}
