/**
 * Instantiates emitted simulator modules (`new Function("rt", source)`) and caches them per thread:
 * one instance per (artifact, variant, concurrency), each with its own `rt`.
 */
import { createRt, type Rt, type SimSite } from "./rt";

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

export class ModuleCache {
  private readonly instances = new Map<string, { mod: SimModuleInstance; printSink: { fn: (s: string) => void } }>();
  private readonly deadline: { at: number; label?: string } = { at: Infinity };

  get(variant: ModuleVariant, concurrent: boolean, deadline: { at: number; label?: string }, print: (s: string) => void): SimModuleInstance {
    this.deadline.at = deadline.at;
    this.deadline.label = deadline.label;
    const key = `${variant.key}:${concurrent ? "c" : "s"}`;
    let e = this.instances.get(key);
    if (!e) {
      const printSink = { fn: print };
      const dl = this.deadline;
      const rt: Rt = createRt({
        concurrent,
        get deadline() {
          return dl.at;
        },
        get deadlineLabel() {
          return dl.label;
        },
        print: (s) => printSink.fn(s),
      });
      const mod = new Function("rt", variant.source)(rt) as SimModuleInstance;
      e = { mod, printSink };
      this.instances.set(key, e);
    }
    e.printSink.fn = print;
    return e.mod;
  }
}
