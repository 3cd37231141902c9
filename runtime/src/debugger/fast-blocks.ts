/**
 * The blocks of a debugged launch that run on the fast simulator (docs/debugging.md, "Blocks"): where
 * nothing can stop, or where only breakpoints the fast simulator can probe could (compiler
 * step/probe.ts: a probe at each breakpoint line fires when its condition holds). Each run is
 * speculative: the device memory is copied before it, and put back when the run cannot be kept —
 *
 * - a probe fired in block h: the caller runs [b0, h) again without probes and steps block h, where
 *   the breakpoint stops;
 * - it ran past the time limit (Node's vm timeout interrupts synchronous code, a kernel that loops
 *   forever included): the caller steps the blocks, where a pause can stop it.
 *
 * Kernel output is held back until the run is kept.
 */
import * as vm from "node:vm";
import { emitProbedSimulatorModule, emitSimulatorModule, PROBE_FORMAT, writtenArrayParams, type IrModule, type ProbeLine } from "@cudascript/compiler";
import { createRt, type Rt } from "../simulator/rt";
import { faultError, serializeFault, type ArgDesc } from "../simulator/executor";
import type { LaunchData } from "../simulator/module-cache";

type FastModule = { kernels: Record<string, { run(L: LaunchData, b0: number, b1: number): void }> };

export type FastRun =
  | { readonly kind: "done" }
  | { readonly kind: "timeout" }
  /** A probe fired (or the probed run faulted: the stepped block says which) in linear block `block`. */
  | { readonly kind: "probe"; readonly block: number }
  | { readonly kind: "fault"; readonly error: unknown };

/** Runs the function in the context's `run` under a vm timeout. */
const RUN = new vm.Script("run()");
const PROBE_TEXT = PROBE_FORMAT.slice(0, PROBE_FORMAT.indexOf(" "));
let context: vm.Context | undefined;

export class FastBlocks {
  private plain: FastModule | undefined;
  /** The module with probes: undefined until needed, null when there are none or they cannot all be probed. */
  private probed: FastModule | null | undefined = null;
  private readonly rt: Rt;
  /** The arguments the kernel may write: what a run copies first (a large read-only input is not copied). */
  private readonly written: readonly number[];
  private held: string[] | undefined;
  private probeHit: number | undefined;

  constructor(
    private readonly module: IrModule,
    private readonly kernel: string,
    private readonly L: LaunchData,
    private readonly args: readonly ArgDesc[],
    private readonly print: (text: string) => void,
    private readonly timeoutMs: number,
  ) {
    const [gx, gy] = L.grid;
    const k = module.kernels.find((f) => f.name === kernel);
    this.written = k ? writtenArrayParams(k) : args.map((_, i) => i);
    this.rt = createRt({
      concurrent: false,
      deadline: Infinity,
      print: (s) => {
        if (s.startsWith(PROBE_TEXT)) {
          const [x, y, z] = s.slice(PROBE_TEXT.length).trim().split(" ").map(Number) as [number, number, number];
          this.probeHit = (z * gy + y) * gx + x;
          throw new Error("breakpoint probe");
        }
        if (this.held) this.held.push(s);
        else print(s);
      },
      uninitializedShared: "warn",
      warn: () => {},
    });
  }

  /** The breakpoints changed: the probed module is made again now (setting breakpoints compiles; running should not). */
  setProbes(lines: readonly ProbeLine[] | undefined): void {
    this.probed = lines === undefined || lines.length === 0 ? null : undefined;
    this.lines = lines ?? [];
    void this.probing;
  }
  private lines: readonly ProbeLine[] = [];

  /** Whether the breakpoints are probed in the fast simulator (then blocks where they may stop run fast first). */
  get probing(): boolean {
    if (this.probed === undefined) {
      const sim = emitProbedSimulatorModule(this.module, this.lines);
      this.probed = sim ? (new Function("rt", sim.source)(this.rt) as FastModule) : null;
    }
    return this.probed !== null;
  }

  /** Blocks [b0, b1) at the fast simulator's speed, with the probes if `probes`. */
  run(b0: number, b1: number, probes: boolean): FastRun {
    const mod = probes && this.probing ? this.probed! : (this.plain ??= new Function("rt", emitSimulatorModule(this.module).source)(this.rt) as FastModule);
    const saved = copyWritten(this.args, this.written);
    this.held = [];
    this.probeHit = undefined;
    const restore = (): void => {
      putBack(saved);
      this.held = undefined;
    };
    try {
      const k = mod.kernels[this.kernel]!;
      context ??= vm.createContext({ run: () => {} });
      (context as { run: () => void }).run = () => k.run(this.L, b0, b1);
      RUN.runInContext(context, { timeout: this.timeoutMs });
      return { kind: "done" };
    } catch (e) {
      if ((e as { code?: string }).code === "ERR_SCRIPT_EXECUTION_TIMEOUT") {
        restore();
        // The module may have been left mid-block: made again if used again.
        if (mod === this.plain) this.plain = undefined;
        else if (this.lines.length) this.probed = undefined;
        return { kind: "timeout" };
      }
      if (this.probeHit !== undefined || mod !== this.plain) {
        // A probe fired, or the probed run faulted (the probe's condition itself may have, e.g. reading
        // out of bounds): the stepped block tells which, with the thread's frames.
        const block = this.probeHit ?? faultBlock(e, this.kernel, this.L.grid) ?? b0;
        restore();
        return { kind: "probe", block };
      }
      return { kind: "fault", error: e };
    } finally {
      const out = this.held;
      this.held = undefined;
      if (out) for (const s of out) this.print(s);
    }
  }

}

/** A copy of the device memory a kernel may write: the buffer of each argument in `written` (writtenArrayParams). */
export function copyWritten(args: readonly ArgDesc[], written: readonly number[]): Map<ArrayBufferLike, Uint8Array> {
  const out = new Map<ArrayBufferLike, Uint8Array>();
  for (const i of written) {
    const a = args[i];
    if (a?.kind === "array" && !out.has(a.buffer)) out.set(a.buffer, new Uint8Array(a.buffer).slice());
  }
  return out;
}

/** Puts device memory back as `copyWritten` copied it. */
export function putBack(saved: ReadonlyMap<ArrayBufferLike, Uint8Array>): void {
  for (const [buf, bytes] of saved) new Uint8Array(buf).set(bytes);
}

/** The linear block of a fault thrown by the fast simulator (rt.threadError records it). */
function faultBlock(e: unknown, kernel: string, grid: readonly [number, number, number]): number | undefined {
  const b = faultError(serializeFault(e, kernel)).details?.block;
  return b ? (b[2] * grid[1] + b[1]) * grid[0] + b[0] : undefined;
}
