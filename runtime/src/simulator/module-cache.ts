/**
 * Instantiates emitted simulator modules (`new Function("rt", source)`) and caches them per thread:
 * one instance per (artifact, variant, concurrency), each with its own `rt`.
 */
import { createRt, type KernelFault, type Rt, type SimSite, type UninitializedPolicy } from "./rt";

export interface SimKernelRun {
  (L: LaunchData, firstBlock: number, endBlock: number): void;
}

export interface LaunchData {
  readonly args: readonly unknown[];
  readonly grid: readonly [number, number, number];
  readonly block: readonly [number, number, number];
  readonly dynBuf: ArrayBuffer;
  /** Per kernel parameter: this executor updates a private copy of the array (see privatize.ts). */
  readonly priv?: readonly boolean[];
  /** Profiling variant only: the launch's counters (profiler/counters.ts). */
  readonly profile?: unknown;
  /** Shared memory starts as the poison pattern instead of zeros (poison.ts). */
  readonly poison?: boolean;
  /** Under the sanitizer: per argument, the written map its stores mark (sanitizer/written.ts). */
  readonly written?: readonly (Uint8Array | undefined)[];
}

export interface SimModuleInstance {
  readonly abi: number;
  readonly sites: readonly SimSite[];
  readonly kernels: Readonly<Record<string, { run: SimKernelRun }>>;
}

export interface ModuleVariant {
  readonly key: string;
  readonly source: string;
}

/** Where a launch's sanitizer warnings go, and whether uninitialised shared reads are errors instead. */
export interface WarnContext {
  readonly uninitializedShared: UninitializedPolicy["mode"];
  readonly warn: (finding: KernelFault) => void;
}

const NO_WARNINGS: WarnContext = { uninitializedShared: "error", warn: () => {} };

export class ModuleCache {
  private readonly instances = new Map<string, { mod: SimModuleInstance; printSink: { fn: (s: string) => void } }>();
  private readonly deadline: { at: number; label?: string } = { at: Infinity };
  /** The current launch's warning context (an instance outlives launches; its rt reads this one). */
  private readonly warnSink: { ctx: WarnContext } = { ctx: NO_WARNINGS };

  get(variant: ModuleVariant, concurrent: boolean, deadline: { at: number; label?: string }, print: (s: string) => void, warnings: WarnContext = NO_WARNINGS): SimModuleInstance {
    this.deadline.at = deadline.at;
    this.deadline.label = deadline.label;
    this.warnSink.ctx = warnings;
    const key = `${variant.key}:${concurrent ? "c" : "s"}`;
    let e = this.instances.get(key);
    if (!e) {
      const printSink = { fn: print };
      const dl = this.deadline;
      const ws = this.warnSink;
      const rt: Rt = createRt({
        concurrent,
        get deadline() {
          return dl.at;
        },
        get deadlineLabel() {
          return dl.label;
        },
        print: (s) => printSink.fn(s),
        get uninitializedShared() {
          return ws.ctx.uninitializedShared;
        },
        warn: (f) => ws.ctx.warn(f),
      });
      const mod = new Function("rt", variant.source)(rt) as SimModuleInstance;
      e = { mod, printSink };
      this.instances.set(key, e);
    }
    e.printSink.fn = print;
    return e.mod;
  }
}
