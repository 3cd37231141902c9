/**
 * CSR050: saying when CUDA's printf FIFO overwrote kernel console.log output.
 *
 * The FIFO is circular: output beyond its size between two times the driver empties it overwrites
 * the oldest, and the driver reports nothing. So the generated code of a module that prints keeps a
 * 64-bit device counter (compiler/src/cuda/printf-bytes.ts) to which every console.log adds a LOWER
 * BOUND of the bytes its record takes in the FIFO. At each synchronization that empties the FIFO,
 * the backend reads the counters of the modules that print (cuModuleGetGlobal, 8 bytes each, only
 * when a kernel that prints was launched since the last read) and warns once when even the lower
 * bound cannot have fit.
 *
 * No false alarms:
 *  - The count is a lower bound of the bytes written; it is compared with the driver's own FIFO
 *    size (cuCtxGetLimit).
 *  - The driver also empties the FIFO at points between two of our reads: at the start of every
 *    launch and at blocking copies (CUDA Programming Guide, "Formatted Output"). Output written
 *    between two of those points is what must fit. Each such point reached while printing work may
 *    be running is counted, and the warning needs the bytes to exceed the FIFO size times the number
 *    of intervals (if every interval held at most one FIFO, the total could not be larger).
 *  - The host cannot atomically read-and-reset device memory that a running kernel (on another
 *    stream) may be adding to, so the counter is never reset on the device: the host remembers the
 *    value it last read and takes the difference.
 */
import type { CudaContext, CudaModule, CudaStream, ModuleGlobal } from "@cudascript/native-bindings/cuda";
import { ErrorCodes } from "../errors";
import { formatBytes } from "../sizes";

/** CSR050: kernel console.log output was overwritten in the GPU's printf FIFO. */
export const PRINTF_OVERFLOW_WARNING = ErrorCodes.PrintfOutputLost;

/**
 * The counter's PTX name: the same string as the compiler's PRINTF_BYTES_SYMBOL (kept here because
 * the runtime must not load the compiler to run kernels; test/gpu/double-printf-overflow.test.ts
 * runs NVRTC's PTX of a printing kernel through this module, so a mismatch fails there).
 */
export const PRINTF_BYTES_SYMBOL = "cs_printf_bytes";

const DEFINES_COUNTER = new RegExp(String.raw`^[ \t]*(?:\.visible[ \t]+)?\.global[ \t]+\.align[ \t]+8[ \t]+\.u64[ \t]+${PRINTF_BYTES_SYMBOL}[ \t]*;`, "m");

/** Whether a PTX module defines the printf counter (modules without console.log do not). */
export function ptxCountsPrintf(ptx: string): boolean {
  return DEFINES_COUNTER.test(ptx);
}

interface Counter {
  readonly module: CudaModule;
  global: ModuleGlobal | undefined;
  /** The counter's value at the last read. */
  seen: bigint;
}

/** Where a synchronization happened, and so how to read the counters after it. */
export type PrintfReadPoint =
  /** After cuCtxSynchronize: every launch has finished; read with plain copies. */
  | { readonly kind: "context" }
  /** After cuStreamSynchronize: read on that stream (a copy on the legacy stream would wait for all others). */
  | { readonly kind: "stream"; readonly stream: CudaStream };

/** The printf counters of one CUDA context, and what happened since they were last read. */
export class PrintfOverflowWatch {
  private readonly counters: Counter[] = [];
  /** Source names of the kernels that print launched since the last read, in launch order. */
  private readonly launched = new Set<string>();
  /** Times the driver emptied the FIFO while printing work may have been running. */
  private emptiedBetween = 0;
  /** A kernel that prints may still be running (launched, and no context synchronization since). */
  private printingInFlight = false;

  /** Registers a loaded module whose PTX defines the counter. */
  addModule(module: CudaModule): void {
    if (!this.counters.some((c) => c.module === module)) this.counters.push({ module, global: undefined, seen: 0n });
  }

  /** Before a launch: the driver empties the FIFO at its start; a kernel that prints is remembered. */
  beforeLaunch(kernel: string, prints: boolean): void {
    this.emptyPoint();
    if (!prints) return;
    this.launched.add(kernel);
    this.printingInFlight = true;
  }

  /** A blocking copy, a memset or a module load: the driver may empty the FIFO there too. */
  emptyPoint(): void {
    if (this.printingInFlight) this.emptiedBetween++;
  }

  /**
   * After a synchronization: reads the counters of the modules that print (only if a kernel that
   * prints was launched since the last read) and returns the CSR050 warning text when their output
   * cannot have fitted in the FIFO of `fifoBytes` bytes, else undefined.
   */
  read(ctx: CudaContext, point: PrintfReadPoint, fifoBytes: () => number): string | undefined {
    if (this.launched.size === 0) return undefined;
    let bytes = 0n;
    const value = new BigUint64Array(1);
    for (const c of this.counters) {
      if (c.module.context !== ctx) continue;
      c.global ??= c.module.getGlobal(PRINTF_BYTES_SYMBOL);
      if (point.kind === "stream") ctx.copyDtoHAsync(value, c.global, point.stream);
      else ctx.copyDtoH(value, c.global);
      const now = value[0]!;
      bytes += now - c.seen;
      c.seen = now;
    }
    const kernels = [...this.launched];
    const intervals = this.emptiedBetween + 1;
    this.launched.clear();
    this.emptiedBetween = 0;
    // After a stream synchronization a kernel that prints may still run on another stream.
    if (point.kind === "context") this.printingInFlight = false;
    const fifo = fifoBytes();
    if (bytes <= BigInt(fifo) * BigInt(intervals)) return undefined;
    return overflowMessage(kernels, Number(bytes), fifo, intervals);
  }
}

function overflowMessage(kernels: readonly string[], bytes: number, fifo: number, intervals: number): string {
  const who = kernels.length === 1 ? `kernel '${kernels[0]}'` : `kernels ${kernels.map((k) => `'${k}'`).join(", ")}`;
  const between =
    intervals === 1
      ? ""
      : ` (more than the buffer can hold even though the driver emptied it ${intervals - 1} time${intervals === 2 ? "" : "s"} in between, at launches and copies)`;
  // A power of two above the output, so the advice reads well (CUDASCRIPT_PRINTF_BUFFER=4MiB).
  const fits = nextPowerOfTwo(Math.max(Math.ceil(bytes / intervals), fifo + 1));
  return (
    `${PRINTF_OVERFLOW_WARNING} warning: ${who} wrote at least ${bytes} bytes of console.log output since the last synchronization into a ${fifo}-byte printf buffer${between}; ` +
    `the oldest output was overwritten. Make the buffer larger than the output: configureGpu({ printfBufferSize: ${fits} }) at the start of the program, or CUDASCRIPT_PRINTF_BUFFER=${formatBytes(fits).replace(/\s+/g, "")} in the environment; ` +
    `or print less per launch (e.g. only from thread 0), or synchronize (cuda.synchronize()) between launches.`
  );
}

function nextPowerOfTwo(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}
