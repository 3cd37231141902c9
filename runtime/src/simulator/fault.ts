/**
 * A fault raised inside a simulated kernel (KernelFault), and the access site it names: its own module,
 * so that rt.ts and the grid-sync run loop (which builds faults too) do not import each other.
 */
import type { FaultDetails } from "../errors";
import { placeFault } from "../fault-text";

export interface SimSite {
  readonly kind: string;
  readonly fn: string;
  readonly file: string;
  readonly line: number;
  readonly col: number;
  readonly array?: string;
  readonly space?: string;
  readonly op?: string;
  readonly format?: string;
}

/** A fault raised inside a kernel; turned into a CudaScriptError by the launch. */
export class KernelFault extends Error {
  block?: [number, number, number];
  thread?: [number, number, number];
  kernel?: string;
  constructor(
    readonly code: string,
    readonly kind: FaultDetails["kind"],
    /** Message body; the kernel, location, block and thread are added when known. */
    readonly what: string,
    readonly site?: SimSite,
    readonly extra: { array?: string; index?: number; threadSet?: boolean; message?: string } = {},
  ) {
    super(what);
    this.name = "KernelFault";
  }

  /** The complete message (without the code). */
  describe(): string {
    // "<title> at file:line:col in kernel 'k', block (…), thread (…): <detail>"
    const inFn = this.site && this.kernel && this.site.fn !== this.kernel ? ` (device function '${this.site.fn}')` : "";
    const bt = this.block ? `, block (${this.block.join(", ")})${this.thread ? `, thread (${this.thread.join(", ")})` : ""}` : "";
    return placeFault(this.what, this.site, this.kernel, `${inFn}${bt}`);
  }

  details(): FaultDetails {
    return {
      kind: this.kind,
      kernel: this.kernel,
      file: this.site?.file,
      line: this.site?.line,
      col: this.site?.col,
      block: this.block,
      thread: this.thread,
      array: this.extra.array,
      index: this.extra.index,
      ...(this.extra.message !== undefined ? { message: this.extra.message } : {}),
    };
  }
}

/** The other access of a race: its thread and block, what it did ("wrote it", "read it") and where. */
export interface RaceOther {
  readonly block: [number, number, number];
  readonly thread: [number, number, number];
  readonly access: string;
  readonly file?: string;
  readonly line?: number;
  readonly col?: number;
}

/**
 * A race finding (shared memory CSR021, global memory CSR066/CSR067): the other access in
 * `details().other`, which the debugger's replay shows beside the faulting thread.
 */
export class RaceFault extends KernelFault {
  constructor(code: string, what: string, site: SimSite, array: string, index: number, readonly other: RaceOther) {
    super(code, "race", what, site, { array, index, threadSet: true });
  }
  override details(): FaultDetails {
    return { ...super.details(), other: this.other } as FaultDetails;
  }
}

/**
 * The fault of a kernel that threw `message` at `site` (CSR085): the same text on every backend (the
 * GPU backend builds it from the device's error record, gpu/kernel-errors.ts).
 */
export function kernelRaised(message: string, site: SimSite): KernelFault {
  return new KernelFault("CSR085", "exception", `kernel raised an error: ${message}`, site, { message });
}

export { displayPath } from "../fault-text";
