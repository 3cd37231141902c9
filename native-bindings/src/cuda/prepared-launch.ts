/**
 * A kernel launch prepared once and made many times (the runtime's launch fast path,
 * runtime/src/gpu/launch-packer.ts): the `void *kernelParams[n]` array and the argument slots it points
 * to live in one ArrayBuffer allocated up front — the slot addresses are written into the pointer array
 * once, and each launch only rewrites the slots' bytes (through `view`) before calling cuLaunchKernel
 * with the same prebuilt address. The driver copies the arguments during the call, so the block may be
 * rewritten as soon as `launch()` returns.
 *
 * Everything `CudaContext.launch` checks per call (dimensions, dynamic shared memory, the function's
 * context, the argument sizes against the PTX signature) is checked here once, when the launch is
 * prepared; what can change between launches (the context's life, a destroyed stream, a refused
 * launch) is still checked by every `launch()`.
 */
import { koffi } from "../koffi";
import type { CudaDriver, CuHandle } from "./driver";

/**
 * What a prepared launch uses of the CudaContext that made it (device.ts implements it), declared here
 * so that the two modules do not import each other.
 */
export interface LaunchContext {
  readonly driver: { readonly api: Pick<CudaDriver["api"], "cuLaunchKernel"> };
  makeCurrent(): void;
  /** The driver handle of a stream of this context (a destroyed stream throws). */
  streamHandle(stream: LaunchStream | null): CuHandle | null;
  call(call: string, result: number, options?: { kernel?: string }): void;
  noteLaunched(name: string): void;
}
/** A CudaStream, opaque to the launch. */
export type LaunchStream = object;

/** The kernelParams block of one kernel: the pointer array, then each argument's bytes, 16-byte aligned. */
export class KernelParamBlock {
  /** The argument bytes (the whole block; argument i starts at `offsets[i]`). */
  readonly view: DataView;
  /** Byte offset of argument i in `view`. */
  readonly offsets: readonly number[];
  /** The address of `void *kernelParams[n]` (null for a kernel without parameters, as the driver wants). */
  readonly address: bigint | null;
  // Held so the memory the driver reads stays alive as long as the block.
  private readonly bytes: Uint8Array;

  constructor(sizes: readonly number[]) {
    const table = align16(sizes.length * 8);
    const offsets: number[] = [];
    let size = table;
    for (const s of sizes) {
      offsets.push(size);
      size += align16(Math.max(s, 1));
    }
    this.bytes = new Uint8Array(new ArrayBuffer(Math.max(size, 16)));
    this.view = new DataView(this.bytes.buffer);
    const base = koffi.address(this.bytes);
    offsets.forEach((offset, i) => this.view.setBigUint64(i * 8, base + BigInt(offset), true));
    this.offsets = offsets;
    this.address = sizes.length ? base : null;
  }
}

/** One launch configuration of one kernel over a KernelParamBlock (made by CudaContext.prepareLaunch). */
export class PreparedLaunch {
  /** @internal */
  constructor(
    readonly context: LaunchContext,
    readonly fn: { readonly name: string; readonly handle: CuHandle },
    readonly params: KernelParamBlock,
    private readonly grid: readonly [number, number, number],
    private readonly block: readonly [number, number, number],
    private readonly sharedMemBytes: number,
    private readonly stream: LaunchStream | null,
  ) {}

  /** cuLaunchKernel with the block's current bytes. Throws CudaDriverError / CudaUsageError like CudaContext.launch. */
  launch(): void {
    const ctx = this.context;
    ctx.makeCurrent();
    const stream: CuHandle | null = this.stream === null ? null : ctx.streamHandle(this.stream);
    const g = this.grid;
    const b = this.block;
    const result = ctx.driver.api.cuLaunchKernel(this.fn.handle, g[0], g[1], g[2], b[0], b[1], b[2], this.sharedMemBytes, stream, this.params.address, null);
    if (result !== 0) ctx.call("cuLaunchKernel", result, { kernel: this.fn.name });
    ctx.noteLaunched(this.fn.name);
  }
}

function align16(n: number): number {
  return Math.ceil(n / 16) * 16;
}
