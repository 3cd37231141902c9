/**
 * The stops of a replayed launch inside its DebugSession (replay-target.ts): the faulting thread stops
 * at its n-th pass over the fault's line — before the faulting statement runs — and the other thread
 * of a race is captured (its frames, as at its last pass over its line before the fault) so that the
 * stop shows both. The blocks holding them run on the stepping backend; every other block may run on
 * the fast simulator.
 */
import type { StepModule } from "@cudascript/compiler";
import type { Dim3 } from "./expressions";
import type { ThreadState } from "./block-scheduler";
import type { FocusView, FrameView } from "./session-types";
import type { ReplayPoint, ReplayTarget } from "./replay-target";

function same(a: readonly number[], b: readonly number[]): boolean {
  return a[0] === b[0] && a[1] === b[1] && a[2] === b[2];
}

export class ReplayStops {
  private faultHits = 0;
  private otherHits = 0;
  /** The other access's thread at its pass (frames copied then). */
  private otherView: FocusView | undefined;
  /** Set when the faulting thread reached its pass: the session reports the stop as the fault. */
  reached = false;
  private done = false;

  constructor(
    readonly target: ReplayTarget,
    private readonly step: StepModule,
    private readonly grid: Dim3,
  ) {}

  /** Flags the lines the replay stops at (or captures at) in the session's breakpoint lines. */
  mark(lines: Uint8Array): void {
    for (const p of this.points()) this.step.lines.forEach((l, id) => l.file === p.file && l.line === p.line && (lines[id] = 1));
  }

  /** Whether linear block `b` must run on the stepping backend (the fault's or the other access's block). */
  steps(b: number): boolean {
    if (this.done) return false;
    const [gx, gy] = this.grid;
    const idx: Dim3 = [b % gx, Math.floor(b / gx) % gy, Math.floor(b / (gx * gy))];
    return this.points().some((p) => same(p.block, idx));
  }

  /**
   * Thread `th` of block `block` is at statement `site`, on a flagged line: counts the passes of the
   * threads the replay follows; true when the faulting thread reached the pass it faulted at.
   */
  at(th: ThreadState, site: number, block: Dim3, frames: () => FrameView[]): boolean {
    if (this.done) return false;
    const st = this.step.statements[site]!;
    const { fault, other } = this.target;
    if (other && this.is(other, st, th, block) && ++this.otherHits === other.hits) this.otherView = { block, thread: th.idx, status: th.status, frames: frames() };
    if (this.is(fault, st, th, block) && ++this.faultHits === fault.hits) {
      this.done = true;
      this.reached = true;
      return true;
    }
    return false;
  }

  /** The other thread of a race as it was at its access (undefined: no race, or not reached). */
  get other(): FocusView | undefined {
    return this.otherView;
  }

  private is(p: ReplayPoint, st: { file: string; line: number }, th: ThreadState, block: Dim3): boolean {
    return st.line === p.line && st.file === p.file && same(th.idx, p.thread) && same(block, p.block);
  }

  private points(): ReplayPoint[] {
    const { fault, other } = this.target;
    return other ? [fault, other] : [fault];
  }
}
