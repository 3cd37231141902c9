/**
 * The GPU's implementation of the Backend interface, on the CUDA driver API through
 * @cudascript/native-bindings (koffi, libcuda found at run time).
 *
 * - Devices: every device the driver lists; kernels run in each device's primary context, retained
 *   on first use. `selectDevice(i)` switches the device new arrays, streams, events and launches use.
 * - Memory: `alloc` → cuMemAlloc; `free` releases deterministically, exactly once; a device buffer
 *   dropped without free() is reclaimed by a FinalizationRegistry (never freed twice: one record per
 *   allocation, marked when freed). After a sticky error the context is gone, and frees are no-ops.
 * - Copies: with the default stream (null) synchronous; with a stream, cuMemcpy*Async (truly
 *   asynchronous from/to pinned memory: `cuda.pinnedArray` is page-locked memory from cuMemHostAlloc
 *   while this backend is active). memset and device-to-device copies run on the legacy default
 *   stream, which orders them with every (blocking) stream.
 * - Modules: the artifact's kernels compiled to PTX for the device (gpu/compile.ts) and loaded once
 *   per context (gpu/modules.ts); arguments packed per the compiler's ABI (gpu/abi.ts).
 * - Errors: driver errors become CudaScriptErrors CSR040–CSR047 (gpu/errors.ts) naming the kernel
 *   and the CUDA error, and saying whether the CUDA context is still usable.
 */
import type {
  CudaContext,
  CudaDeviceInfo,
  CudaDriver,
  CudaEvent,
  CudaProbe,
  CudaStream,
  DeviceAllocation,
  DeviceRange,
  PinnedBuffer,
  PreparedLaunch,
} from "@cudascript/native-bindings/cuda";
import type { Backend, DeviceBuffer, DeviceInfo, DeviceLimits, EventHandle, FastLaunch, KernelArg, KernelArtifact, LaunchConfig, ModuleHandle, StreamHandle } from "../backend";
import { spanElements } from "../layout";
import { complexDtypes, dtypes, isComplexDTypeName, type AnyDTypeName } from "../dtypes";
import { CudaScriptError, ErrorCodes } from "../errors";
import { formatBytes } from "../sizes";
import {
  CONTEXT_LOST_SENTENCE,
  CONTEXT_USABLE_SENTENCE,
  cudaErrorText,
  cudaFailureOf,
  GpuError,
  GpuErrorCodes,
  isDriverError,
  isUsageError,
  kernelWords,
  type CudaFailure,
} from "./errors";
import { loadArtifact, type LoadedArtifact, type LoadedKernel } from "./modules";
import { LaunchPacker } from "./launch-packer";
import { checkCooperativeLaunch, cooperativeDriverError, GridWorkspace } from "./cooperative";
import { checkStatesArguments } from "../random/state-layout";
import { checkedPrintfBufferSize, flushAtExit, noFlushAtExit, printfBufferTooLate, requestedPrintfBufferSize, type FlushesAtExit } from "./printf";
import { PrintfOverflowWatch, type PrintfReadPoint } from "./printf-overflow";
import { ipcExportRefused, ipcOpenFailed, synchronizeRawStream } from "./interop";
import { KernelErrorWatch } from "./kernel-errors";
import { checkProfilingBackend, profilingGpus } from "../profiler/session";

type CudaBindings = typeof import("@cudascript/native-bindings/cuda");
function bindings(): CudaBindings {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require("@cudascript/native-bindings/cuda") as CudaBindings;
}

export interface GpuBackendOptions {
  /** The driver to use (default: the one probeCuda() finds: CUDASCRIPT_LIBCUDA, then libcuda.so.1, …). */
  readonly driver?: CudaDriver;
  /** A successful probe to reuse (device list, driver version). */
  readonly probe?: Extract<CudaProbe, { ok: true }>;
  /** The initial device (default CUDASCRIPT_DEVICE, else 0). */
  readonly device?: number;
  /** NVRTC library to compile kernels with (default: discovered; CUDASCRIPT_NVRTC). */
  readonly nvrtcPath?: string;
  /** The compile cache (default: on, in the default folder). */
  readonly cache?: boolean | { dir: string };
  /**
   * Bytes of each context's device printf FIFO (kernel console.log output between two
   * synchronizations; default CUDASCRIPT_PRINTF_BUFFER, else CUDA's 1 MiB). Output beyond it is lost,
   * and reported as a CSR050 warning.
   */
  readonly printfBufferSize?: number;
  /** Where warnings (CSR050: console.log output lost) are written (default process.stderr). */
  readonly warn?: (text: string) => void;
}

/** One allocation; shared by its GpuBuffer and the FinalizationRegistry, so it is freed once. */
interface AllocationRecord {
  freed: boolean;
  /** Memory this backend did not allocate (another library's, another process's): free() releases only the view. */
  readonly foreign?: { readonly close?: () => void };
  readonly pointer: bigint;
  /** The bindings' handle (undefined for an empty buffer, which allocates nothing). */
  readonly allocation: DeviceAllocation | undefined;
  readonly bytes: number;
  readonly device: DeviceState;
}

export class GpuBuffer implements DeviceBuffer {
  readonly backend = "gpu" as const;
  /**
   * @internal The device address as a number, for the launch fast path (launch-packer.ts), which
   * writes it without making a BigInt per launch; -1 when it is beyond 2^53 (then launches take the
   * generic path).
   */
  readonly address: number;
  /** @internal */
  constructor(
    readonly bytes: number,
    /** The device ordinal it lives on. */
    readonly device: number,
    /** The device address (0n for an empty buffer). */
    readonly pointer: bigint,
    /** @internal */
    readonly record: AllocationRecord,
  ) {
    this.address = pointer <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(pointer) : -1;
  }
  get freed(): boolean {
    return this.record.freed;
  }
}

class GpuStream implements StreamHandle {
  constructor(
    readonly id: number,
    readonly device: DeviceState,
    readonly stream: CudaStream,
  ) {}
  destroyed = false;
}

class GpuEvent implements EventHandle {
  recorded = false;
  destroyed = false;
  constructor(
    readonly id: number,
    readonly device: DeviceState,
    readonly event: CudaEvent,
  ) {}
}

interface GpuModule extends ModuleHandle {
  readonly artifact: KernelArtifact;
}

/** Per device: its info, its context (retained on first use) and the artifacts loaded in it. */
class DeviceState {
  context: CudaContext | undefined;
  readonly loaded = new WeakMap<KernelArtifact, LoadedArtifact>();
  /** Symbol → source name of every kernel loaded here (for errors that surface at a sync). */
  readonly symbols = new Map<string, string>();
  /** The sticky error that ended this context, once reported. */
  lost: CudaFailure | undefined;
  /** Bytes of console.log output since the last synchronization, to report what the printf FIFO lost. */
  readonly printf = new PrintfOverflowWatch();
  /** The device-side error records of kernels that can raise (kernel-errors.ts), read at synchronizations. */
  readonly errors = new KernelErrorWatch();
  /** The context's per-thread stack size as last read or set (ensureStack), for kernels that recurse. */
  stackBytes: number | undefined;
  /**
   * The grid barrier's workspace of cooperative launches (gpu/cooperative.ts), one per stream, made at
   * its first one: launches on one stream run one after another, but two on different streams may run
   * at once, and a shared barrier counter would mix their blocks (or be zeroed under a running one).
   */
  readonly gridWorkspaces = new Map<CudaStream | null, GridWorkspace>();
  /** The device's launch limits (GpuBackend.limits), made once. */
  limits: DeviceLimits | undefined;
  constructor(readonly info: CudaDeviceInfo) {}
  get label(): string {
    return `GPU ${this.info.ordinal} (${this.info.name}, ${this.info.arch})`;
  }
  kernelName(symbol: string): string {
    return this.symbols.get(symbol) ?? symbol;
  }
}

export interface GpuMemoryStats {
  /** Allocations made through this backend and not yet freed. */
  readonly liveAllocations: number;
  readonly liveBytes: number;
  /** Freed by `free()`. */
  readonly freedExplicitly: number;
  /** Reclaimed by the FinalizationRegistry (dropped without `free()`). */
  readonly freedByFinalizer: number;
  /** Pinned host buffers alive / reclaimed. */
  readonly livePinned: number;
  readonly pinnedReclaimed: number;
}

let nextHandle = 1;
const DEFAULT_PRINTF_FIFO = 1 << 20;

export class GpuBackend implements Backend {
  readonly kind = "gpu" as const;
  readonly driver: CudaDriver;
  readonly driverVersion: { major: number; minor: number; raw: number };
  private readonly states: DeviceState[];
  private current: DeviceState;
  private disposed = false;
  private readonly options: GpuBackendOptions;
  private printfBytes: number | undefined;
  private readonly exitFlush: WeakRef<FlushesAtExit>;
  private readonly modules = new WeakMap<KernelArtifact, GpuModule>();
  private stats = { liveAllocations: 0, liveBytes: 0, freedExplicitly: 0, freedByFinalizer: 0, livePinned: 0, pinnedReclaimed: 0 };

  private readonly allocations = new FinalizationRegistry<AllocationRecord>((record) => this.reclaim(record));
  // Counts collected pinnedArray views for memoryStats(); the bindings free their memory.
  private readonly pinnedViews = new FinalizationRegistry<null>(() => {
    this.stats.livePinned--;
    this.stats.pinnedReclaimed++;
  });
  private readonly streamsRegistry = new FinalizationRegistry<CudaStream>((s) => this.quietly(() => s.destroy()));
  private readonly eventsRegistry = new FinalizationRegistry<CudaEvent>((e) => this.quietly(() => e.destroy()));

  constructor(options: GpuBackendOptions = {}) {
    this.options = options;
    const cu = bindings();
    let devices: CudaDeviceInfo[];
    if (options.probe) {
      this.driver = options.probe.driver;
      this.driverVersion = options.probe.driverVersion;
      devices = options.probe.devices;
    } else {
      let driver = options.driver;
      if (!driver) {
        const probe = cu.probeCuda();
        if (!probe.ok)
          throw new CudaScriptError(
            "CSR015",
            `the GPU backend cannot start: ${probe.message
              .replace(/^CSD00\d: /, "")
              .split("\n")
              .filter((l) => !/^CudaScript runs kernels in its CPU simulator instead/.test(l))
              .join("\n")}`,
          );
        driver = probe.driver;
      }
      this.driver = driver;
      try {
        this.driverVersion = cu.driverVersion(driver);
        devices = cu.listDevices(driver);
      } catch (e) {
        throw new CudaScriptError("CSR015", `the GPU backend cannot start: ${(e as Error).message}`);
      }
    }
    if (devices.length === 0) throw new CudaScriptError("CSR015", "the GPU backend cannot start: the CUDA driver reports no device. Run on the simulator (--backend simulator).");
    this.states = devices.map((d) => new DeviceState(d));
    const envDevice = process.env.CUDASCRIPT_DEVICE;
    const first = options.device ?? (envDevice && /^\d+$/.test(envDevice) ? Number(envDevice) : 0);
    const state = this.states[first];
    if (!state) throw new CudaScriptError("CSR014", `device ${first} does not exist: ${this.devicesText()}`);
    this.current = state;
    this.printfBytes = requestedPrintfBufferSize(options.printfBufferSize);
    this.exitFlush = flushAtExit(this);
  }

  // ───────────────────────── device printf ─────────────────────────

  /**
   * Sets the device printf FIFO of every context, now and to come. CUDA fixes a context's size at
   * the first launch of a kernel that prints: changing it afterwards is CSR049.
   */
  setPrintfBufferSize(bytes: number): void {
    const size = checkedPrintfBufferSize(bytes, `printfBufferSize: ${String(bytes)}`);
    for (const state of this.states) if (state.context) this.applyPrintfBufferSize(state, state.context, size);
    this.printfBytes = size;
  }

  /** The current device's printf FIFO size in bytes (the driver's value once its context exists). */
  get printfBufferSize(): number {
    const ctx = this.current.context;
    if (!ctx || !ctx.usable) return this.printfBytes ?? DEFAULT_PRINTF_FIFO;
    try {
      return ctx.getLimit(bindings().CU_LIMIT.PRINTF_FIFO_SIZE);
    } catch (e) {
      throw this.mapError(e, this.current, "reading the printf buffer size");
    }
  }

  private applyPrintfBufferSize(state: DeviceState, ctx: CudaContext, bytes: number): void {
    try {
      ctx.setLimit(bindings().CU_LIMIT.PRINTF_FIFO_SIZE, bytes);
    } catch (e) {
      if (isDriverError(e) && e.code === "CUDA_ERROR_INVALID_VALUE") throw printfBufferTooLate(state.label, bytes);
      throw this.mapError(e, state, `setting the printf buffer to ${bytes} bytes`);
    }
  }

  /**
   * @internal Run by the process's 'exit' listener: synchronizes every usable context so kernel
   * console.log output still in a printf FIFO is printed. A kernel fault found here is reported on
   * stderr (an exit listener cannot throw to anyone) and makes the exit code 1.
   */
  flushAtExit(): void {
    this.flushContexts("flushing kernel console.log output at exit");
  }

  private flushContexts(doing: string): void {
    for (const state of this.states) {
      const ctx = state.context;
      if (!ctx || state.lost || !ctx.usable) continue;
      try {
        ctx.synchronize();
        this.checkPrintf(state, ctx, { kind: "context" });
        this.checkRaised(state, ctx);
      } catch (e) {
        const error = this.mapError(e, state, doing);
        process.stderr.write(`cudascript: ${error instanceof Error ? error.message : String(error)}\n`);
        if (!process.exitCode) process.exitCode = 1;
      }
    }
  }

  /**
   * After a synchronization that emptied the printf FIFO: one CSR050 warning when the kernels that
   * printed since the previous one wrote more than the FIFO holds (printf-overflow.ts).
   */
  private checkPrintf(state: DeviceState, ctx: CudaContext, point: PrintfReadPoint): void {
    let text: string | undefined;
    try {
      text = state.printf.read(ctx, point, () => ctx.getLimit(bindings().CU_LIMIT.PRINTF_FIFO_SIZE));
    } catch (e) {
      throw this.mapError(e, state, "reading how many bytes kernel console.log wrote");
    }
    if (text) (this.options.warn ?? ((t: string) => void process.stderr.write(t)))(`cudascript: ${text}\n`);
  }

  /**
   * Makes the context's per-thread stack at least `bytes` (cuCtxSetLimit(CU_LIMIT_STACK_SIZE)) for a
   * kernel that recurses (recursion-stack.ts); only ever grows it, and only when it is too small.
   */
  private ensureStack(state: DeviceState, ctx: CudaContext, bytes: number): void {
    const limit = bindings().CU_LIMIT.STACK_SIZE;
    state.stackBytes ??= ctx.getLimit(limit);
    if (bytes <= state.stackBytes) return;
    ctx.setLimit(limit, bytes);
    state.stackBytes = bytes;
  }

  /** After a synchronization: throws the CSR085 error of a kernel that raised since the last one (kernel-errors.ts). */
  private checkRaised(state: DeviceState, ctx: CudaContext, stream?: CudaStream): void {
    let error: Error | undefined;
    try {
      error = state.errors.read(ctx, stream);
    } catch (e) {
      throw this.mapError(e, state, "reading the error record of kernels that throw");
    }
    if (error) throw error;
  }

  // ───────────────────────── devices ─────────────────────────

  get description(): string {
    const d = this.current.info;
    return `${d.name} (${d.arch})${this.driver.info.isTestDouble ? " [libcuda TEST DOUBLE]" : ""}`;
  }

  /** The current device's limits: one object per device (the host API reuses a launcher while they are the same object). */
  get limits(): DeviceLimits {
    return (this.current.limits ??= this.limitsOf(this.current));
  }

  private limitsOf(state: DeviceState): DeviceLimits {
    const d = state.info;
    return {
      maxThreadsPerBlock: d.maxThreadsPerBlock,
      maxBlockDim: d.maxBlockDim,
      maxGridDim: d.maxGridDim,
      maxSharedPerBlock: d.sharedMemoryPerBlock,
      maxSharedPerBlockOptin: d.sharedMemoryPerBlockOptin,
      warpSize: d.warpSize,
    };
  }

  /** The full properties of the current device. */
  get device(): CudaDeviceInfo {
    return this.current.info;
  }

  devices(): readonly DeviceInfo[] {
    return this.states.map((s) => ({
      id: s.info.ordinal,
      name: s.info.name,
      arch: s.info.arch,
      totalMemory: s.info.totalMemoryBytes,
      multiprocessors: s.info.multiprocessorCount,
    }));
  }

  selectDevice(id: number): void {
    const state = Number.isInteger(id) ? this.states[id] : undefined;
    if (!state) throw new CudaScriptError("CSR014", `device ${id} does not exist: ${this.devicesText()}`);
    this.current = state;
  }

  private devicesText(): string {
    return `this machine has ${this.states.length} CUDA device${this.states.length === 1 ? "" : "s"} (${this.states.map((s) => `${s.info.ordinal}: ${s.info.name}`).join(", ")})`;
  }

  /** The current device's context, retained on first use; throws CSR044 once the context is lost. */
  private contextOf(state: DeviceState): CudaContext {
    if (this.disposed) throw new CudaScriptError("CSR015", "the GPU backend was disposed");
    if (state.lost) throw this.lostError(state);
    if (!state.context) {
      try {
        state.context = bindings().CudaContext.retain(this.driver, state.info.ordinal);
        state.stackBytes = undefined; // a new context has the driver's default stack
      } catch (e) {
        throw this.mapError(e, state, "creating the CUDA context");
      }
      if (this.printfBytes !== undefined) this.applyPrintfBufferSize(state, state.context, this.printfBytes);
    }
    return state.context;
  }

  /** The CUDA context of the current device (tests, tools). */
  context(): CudaContext {
    return this.contextOf(this.current);
  }

  // ───────────────────────── memory ─────────────────────────

  alloc(bytes: number): DeviceBuffer {
    if (!Number.isSafeInteger(bytes) || bytes < 0) throw new CudaScriptError("CSR013", `cannot allocate ${bytes} bytes`);
    const state = this.current;
    const ctx = this.contextOf(state);
    let allocation: DeviceAllocation | undefined;
    if (bytes > 0) {
      try {
        allocation = ctx.alloc(bytes);
      } catch (e) {
        throw this.mapError(e, state, `allocating ${bytes} bytes of device memory`);
      }
    }
    const pointer = allocation?.pointer ?? 0n;
    const record: AllocationRecord = { freed: false, pointer, allocation, bytes, device: state };
    const buffer = new GpuBuffer(bytes, state.info.ordinal, pointer, record);
    this.allocations.register(buffer, record, buffer);
    this.stats.liveAllocations++;
    this.stats.liveBytes += bytes;
    return buffer;
  }

  free(buffer: DeviceBuffer): void {
    const b = this.own(buffer, "free");
    if (b.record.freed) return; // DeviceNDArray.free() is idempotent; the record guarantees one cuMemFree
    if (b.record.foreign) {
      b.record.freed = true;
      return b.record.foreign.close?.();
    }
    this.allocations.unregister(b);
    this.release(b.record, false);
  }

  /** Frees one allocation (exactly once). After a sticky error or dispose the memory went with the context. */
  private release(record: AllocationRecord, byFinalizer: boolean): void {
    record.freed = true;
    this.stats.liveAllocations--;
    this.stats.liveBytes -= record.bytes;
    if (byFinalizer) this.stats.freedByFinalizer++;
    else this.stats.freedExplicitly++;
    const state = record.device;
    const ctx = state.context;
    if (!record.allocation || this.disposed || !ctx || state.lost || !ctx.usable) return;
    try {
      ctx.free(record.allocation);
    } catch (e) {
      if (byFinalizer) return;
      const mapped = this.mapError(e, state, "freeing device memory");
      // Freeing after the context was lost is not an error worth masking the original one.
      if (mapped instanceof GpuError && mapped.cuda && !mapped.cuda.contextUsable) return;
      throw mapped;
    }
  }

  private reclaim(record: AllocationRecord): void {
    if (record.freed) return;
    this.quietly(() => this.release(record, true));
  }

  // ───────────────────────── interop (gpu/interop.ts, docs/interop.md) ─────────────────────────

  addressOf(buffer: DeviceBuffer): bigint {
    return this.own(buffer, "a device pointer").pointer;
  }

  foreignMemory(pointer: bigint, bytes: number): { buffer: DeviceBuffer; byteOffset: number } {
    const state = this.current;
    const allocation = bytes > 0 ? this.contextOf(state).foreign(pointer, bytes) : undefined;
    const record: AllocationRecord = { freed: false, pointer, allocation, bytes, device: state, foreign: {} };
    return { buffer: new GpuBuffer(bytes, state.info.ordinal, pointer, record), byteOffset: 0 };
  }

  synchronizeRawStream(handle: bigint): void {
    const state = this.current;
    const ctx = this.contextOf(state);
    // CU_STREAM_LEGACY (1) and CU_STREAM_PER_THREAD (2): waiting for the whole device covers them.
    if (handle === 1n || handle === 2n) return this.synchronizeDevice(state);
    try {
      synchronizeRawStream(ctx, handle);
    } catch (e) {
      throw this.mapError(e, state, `synchronizing the stream 0x${handle.toString(16)} of a foreign array's __cuda_array_interface__`);
    }
  }

  exportIpc(buffer: DeviceBuffer): Uint8Array {
    const b = this.live(buffer, 0, 0, "getIpcHandle");
    const state = this.stateOf(b, "getIpcHandle");
    if (b.record.foreign || !b.record.allocation) throw ipcExportRefused(b.record.foreign ? "foreign" : "empty");
    try {
      return this.contextOf(state).ipcHandle(b.pointer);
    } catch (e) {
      throw this.mapError(e, state, "getting an IPC handle (cuIpcGetMemHandle)");
    }
  }

  openIpc(handle: Uint8Array, bytes: number): { buffer: DeviceBuffer; close(): void } {
    const state = this.current;
    const ctx = this.contextOf(state);
    let allocation: DeviceAllocation;
    try {
      allocation = ctx.ipcOpen(handle, bytes);
    } catch (e) {
      throw ipcOpenFailed(this.mapError(e, state, "opening an IPC handle (cuIpcOpenMemHandle)"));
    }
    const close = () => {
      if (state.lost || !ctx.usable) return;
      try {
        ctx.ipcClose(allocation);
      } catch (e) {
        throw this.mapError(e, state, "closing an IPC handle (cuIpcCloseMemHandle)");
      }
    };
    const record: AllocationRecord = { freed: false, pointer: allocation.pointer, allocation, bytes, device: state, foreign: { close } };
    const buffer = new GpuBuffer(bytes, state.info.ordinal, allocation.pointer, record);
    // The buffer's free() closes the handle, exactly once (the record's freed flag).
    return { buffer, close: () => this.free(buffer) };
  }

  /** Allocation counters (tests, tools). */
  memoryStats(): GpuMemoryStats {
    return { ...this.stats };
  }

  private own(buffer: DeviceBuffer, what: string): GpuBuffer {
    if (!(buffer instanceof GpuBuffer)) throw new CudaScriptError("CSR014", `${what}: this device array was not allocated on the GPU backend (it belongs to the ${buffer.backend})`);
    return buffer;
  }

  /** A live buffer of the current device, with `bytes` from `offset` inside it. */
  private live(buffer: DeviceBuffer, offset: number, bytes: number, what: string): GpuBuffer {
    const b = this.own(buffer, what);
    if (b.record.freed) throw new CudaScriptError("CSR010", `${what}: this device array was freed`);
    if (!Number.isInteger(offset) || offset < 0 || offset + bytes > b.bytes)
      throw new CudaScriptError("CSR011", `${what}: ${bytes} bytes at offset ${offset} do not fit in the ${b.bytes}-byte device array`);
    return b;
  }

  private stateOf(b: GpuBuffer, what: string): DeviceState {
    const state = b.record.device;
    if (state !== this.current)
      throw new CudaScriptError("CSR014", `${what}: the device array lives on GPU ${state.info.ordinal} but the current device is ${this.current.info.ordinal} (cuda.selectDevice): copy it through the host`);
    return state;
  }

  copyHtoD(dst: DeviceBuffer, dstOffset: number, src: ArrayBufferView, stream: StreamHandle | null): void {
    const b = this.live(dst, dstOffset, src.byteLength, "copy to the device");
    const state = this.stateOf(b, "copy to the device");
    const ctx = this.contextOf(state);
    if (src.byteLength === 0) return;
    try {
      const s = this.streamOf(stream, state);
      const bytes = byteView(src);
      if (s) ctx.copyHtoDAsync(deviceAt(b, dstOffset), bytes, s);
      else {
        state.printf.emptyPoint(); // a blocking copy: the driver empties the printf FIFO
        ctx.copyHtoD(deviceAt(b, dstOffset), bytes);
      }
    } catch (e) {
      throw this.mapError(e, state, "copying to the device");
    }
  }

  copyDtoH(dst: ArrayBufferView, src: DeviceBuffer, srcOffset: number, stream: StreamHandle | null): void {
    const b = this.live(src, srcOffset, dst.byteLength, "copy to the host");
    const state = this.stateOf(b, "copy to the host");
    const ctx = this.contextOf(state);
    if (dst.byteLength === 0) return;
    try {
      const s = this.streamOf(stream, state);
      const bytes = byteView(dst);
      if (s) ctx.copyDtoHAsync(bytes, deviceAt(b, srcOffset), s);
      else {
        state.printf.emptyPoint();
        ctx.copyDtoH(bytes, deviceAt(b, srcOffset));
      }
    } catch (e) {
      throw this.mapError(e, state, "copying to the host");
    }
  }

  private dtod: ((dst: bigint, src: bigint, bytes: number) => number) | null | undefined;

  copyDtoD(dst: DeviceBuffer, dstOffset: number, src: DeviceBuffer, srcOffset: number, bytes: number, stream: StreamHandle | null): void {
    const d = this.live(dst, dstOffset, bytes, "device-to-device copy");
    const s = this.live(src, srcOffset, bytes, "device-to-device copy");
    const state = this.stateOf(d, "device-to-device copy");
    this.stateOf(s, "device-to-device copy");
    const ctx = this.contextOf(state);
    if (bytes === 0) return;
    if (stream) this.streamOf(stream, state); // validates the handle; the copy runs on the legacy default stream, ordered with it
    state.printf.emptyPoint();
    // cuMemcpyDtoD_v2 when the driver exports it (the bindings do not bind it; NVIDIA's driver has it);
    // otherwise staged through host memory.
    if (this.dtod === undefined) {
      try {
        this.dtod = this.driver.library.func("cuMemcpyDtoD_v2", "int", ["uint64_t", "uint64_t", "size_t"]) as (dst: bigint, src: bigint, bytes: number) => number;
      } catch {
        this.dtod = null;
      }
    }
    try {
      if (this.dtod) {
        ctx.makeCurrent();
        ctx.call("cuMemcpyDtoD_v2", this.dtod(d.pointer + BigInt(dstOffset), s.pointer + BigInt(srcOffset), bytes));
      } else {
        const staging = new Uint8Array(bytes);
        ctx.copyDtoH(staging, deviceAt(s, srcOffset));
        ctx.copyHtoD(deviceAt(d, dstOffset), staging);
      }
    } catch (e) {
      throw this.mapError(e, state, "copying between device arrays");
    }
  }

  memset(dst: DeviceBuffer, offset: number, bytes: number, value: number, stream: StreamHandle | null): void {
    const b = this.live(dst, offset, bytes, "memset");
    const state = this.stateOf(b, "memset");
    const ctx = this.contextOf(state);
    if (bytes === 0) return;
    if (stream) this.streamOf(stream, state);
    state.printf.emptyPoint();
    try {
      ctx.memset(deviceAt(b, offset), value & 0xff, bytes);
    } catch (e) {
      throw this.mapError(e, state, "setting device memory");
    }
  }

  /**
   * Page-locked host memory for `cuda.pinnedArray` (cuMemHostAlloc on the current device's context),
   * as an ArrayBuffer over that memory (no copy). It is freed when the ArrayBuffer (and every view
   * of it) has been garbage-collected. Where pinned memory cannot be viewed (CSD007) or bytes is 0,
   * ordinary memory.
   */
  allocPinnedHost(bytes: number): ArrayBuffer {
    if (!Number.isSafeInteger(bytes) || bytes < 0) throw new CudaScriptError("CSR013", `cannot allocate ${bytes} bytes of pinned memory`);
    if (bytes === 0) return new ArrayBuffer(0);
    const state = this.current;
    const ctx = this.contextOf(state);
    let pinned: PinnedBuffer;
    try {
      pinned = ctx.allocPinned(bytes);
    } catch (e) {
      if (isUsageError(e) && e.code === "CSD007") return new ArrayBuffer(bytes);
      throw this.mapError(e, state, `allocating ${bytes} bytes of pinned host memory`);
    }
    // The view is the user's only handle on the memory: the bindings free it (after synchronizing)
    // when the last view has been garbage-collected — even after dispose(), which keeps the
    // context retained until then, so no reachable view ever points at freed memory.
    const view = pinned.buffer;
    pinned.freeWhenUnreachable();
    this.pinnedViews.register(view, null);
    this.stats.livePinned++;
    return view;
  }

  // ───────────────────────── modules and launches ─────────────────────────

  /**
   * `cuda.mappedArray` (cuMemHostAlloc with DEVICEMAP + cuMemHostGetDevicePointer) and
   * `cuda.managedArray` (cuMemAllocManaged): the host view and a device buffer at the address kernels
   * use. The memory is freed (after synchronizing) once the view has been garbage-collected, as a
   * pinned array's; the device buffer owns no allocation of its own.
   */
  allocHostVisible(bytes: number, kind: "mapped" | "managed"): { host: ArrayBuffer; device: DeviceBuffer } {
    if (!Number.isSafeInteger(bytes) || bytes < 0) throw new CudaScriptError("CSR013", `cannot allocate ${bytes} bytes of ${kind} memory`);
    const state = this.current;
    const record: AllocationRecord = { freed: false, pointer: 0n, allocation: undefined, bytes, device: state };
    if (bytes === 0) return { host: new ArrayBuffer(0), device: new GpuBuffer(0, state.info.ordinal, 0n, record) };
    const ctx = this.contextOf(state);
    let pinned: PinnedBuffer;
    let pointer: bigint;
    try {
      if (kind === "mapped") ({ buffer: pinned, devicePointer: pointer } = ctx.allocMapped(bytes));
      else pointer = (pinned = ctx.allocManaged(bytes)).pointer;
    } catch (e) {
      throw this.mapError(e, state, `allocating ${bytes} bytes of ${kind} memory`);
    }
    const host = pinned.buffer;
    pinned.freeWhenUnreachable();
    this.pinnedViews.register(host, null);
    this.stats.livePinned++;
    return { host, device: new GpuBuffer(bytes, state.info.ordinal, pointer, { ...record, pointer }) };
  }

  /** `cuda.pinned`: cuMemHostRegister now, cuMemHostUnregister (after synchronizing) when the returned function is called. */
  registerHost(view: ArrayBufferView): () => void {
    const state = this.current;
    const ctx = this.contextOf(state);
    const bytes = byteView(view); // the storage of a Float16Array polyfill (a proxy the FFI cannot read)
    try {
      ctx.registerHost(bytes);
    } catch (e) {
      if (isUsageError(e) && e.code === "CSD008") throw new CudaScriptError("CSR058", `cuda.pinned: this ${view.constructor.name} (or memory it shares) is pinned already: pin each array once`);
      throw this.mapError(e, state, `pinning ${view.byteLength} bytes of host memory`);
    }
    return () => {
      try {
        ctx.unregisterHost(bytes);
      } catch (e) {
        throw this.mapError(e, state, `unpinning ${view.byteLength} bytes of host memory`);
      }
    };
  }

  loadModule(artifact: KernelArtifact): ModuleHandle {
    let m = this.modules.get(artifact);
    if (!m) this.modules.set(artifact, (m = { artifact }));
    this.loaded(artifact, this.current);
    return m;
  }

  /** The artifact loaded in a device's context (compiled and loaded on first use). */
  loaded(artifact: KernelArtifact, state: DeviceState = this.current): LoadedArtifact {
    const hit = state.loaded.get(artifact);
    if (hit && hit.context === state.context && !state.lost) return hit;
    const ctx = this.contextOf(state);
    const d = state.info;
    let loaded: LoadedArtifact;
    try {
      loaded = loadArtifact(ctx, artifact, {
        computeCapability: d.computeCapability.major * 10 + d.computeCapability.minor,
        arch: d.arch,
        deviceLabel: state.label,
        driverVersion: this.driverVersion,
        ...(this.options.nvrtcPath !== undefined ? { nvrtcPath: this.options.nvrtcPath } : {}),
        ...(this.options.cache !== undefined ? { cache: this.options.cache } : {}),
      });
    } catch (e) {
      throw this.mapError(e, state, `loading the kernels of ${artifact.file}`);
    }
    for (const [symbol, name] of loaded.symbols) state.symbols.set(symbol, name);
    state.printf.emptyPoint(); // a module load empties the printf FIFO too
    for (const m of loaded.printfModules) state.printf.addModule(m);
    for (const m of loaded.raiseModules) state.errors.addModule(m, loaded.raiseSites);
    state.loaded.set(artifact, loaded);
    return loaded;
  }

  /**
   * The driver's view of a loaded kernel on the current device: registers per thread, static shared
   * and local memory, PTX and binary versions (cuFuncGetAttribute) — e.g. for occupancy reports.
   */
  kernelAttributes(artifact: KernelArtifact, kernel: string): import("@cudascript/native-bindings/cuda").CudaFunctionAttributes | undefined {
    const state = this.current;
    const k = this.loaded(artifact, state).kernels.get(kernel);
    if (!k) return undefined;
    try {
      return k.fn.attributes();
    } catch (e) {
      throw this.mapError(e, state, `reading the attributes of kernel '${kernel}'`, kernel);
    }
  }

  /**
   * The block size with the most resident threads per SM for this kernel (what
   * cuOccupancyMaxPotentialBlockSize computes, and Numba's `forall` asks for): every multiple of the
   * warp size up to `maxThreads`, the largest of the best.
   */
  suggestBlockSize(artifact: KernelArtifact, kernel: string, dynamicSharedBytes: number, maxThreads: number): number {
    const warp = this.current.info.warpSize;
    let best = warp, bestThreads = -1;
    for (let size = Math.floor(maxThreads / warp) * warp; size >= warp; size -= warp) {
      const threads = (this.kernelOccupancy(artifact, kernel, size, dynamicSharedBytes)?.activeBlocksPerSM ?? 0) * size;
      if (threads > bestThreads) [best, bestThreads] = [size, threads];
    }
    return best;
  }

  /**
   * The driver's occupancy of a loaded kernel on the current device: resident blocks per SM from
   * cuOccupancyMaxActiveBlocksPerMultiprocessor (which knows every GPU the driver runs, unlike a
   * table), as a fraction of the device's warp slots per SM.
   */
  kernelOccupancy(artifact: KernelArtifact, kernel: string, threadsPerBlock: number, dynamicSharedBytes: number): { activeBlocksPerSM: number; occupancy: number } | undefined {
    const state = this.current;
    const k = this.loaded(artifact, state).kernels.get(kernel);
    if (!k) return undefined;
    const ctx = this.contextOf(state);
    try {
      ctx.optInDynamicSharedMemory(k.fn, dynamicSharedBytes); // as the launch will: else 0 blocks above 48 KiB
      const blocks = ctx.maxActiveBlocksPerMultiprocessor(k.fn, threadsPerBlock, dynamicSharedBytes);
      const d = state.info;
      return { activeBlocksPerSM: blocks, occupancy: (blocks * Math.ceil(threadsPerBlock / d.warpSize)) / (d.maxThreadsPerMultiprocessor / d.warpSize) };
    } catch (e) {
      throw this.mapError(e, state, `computing the occupancy of kernel '${kernel}'`, kernel);
    }
  }

  launch(module: ModuleHandle, kernel: string, config: LaunchConfig, args: readonly KernelArg[]): void {
    // The profiler counts on the simulator (CUDASCRIPT_PROFILE, cuda.profile): say so instead of reporting nothing.
    if (profilingGpus()) checkProfilingBackend("gpu", "profiling (CUDASCRIPT_PROFILE or cuda.profile)");
    const state = this.current;
    const loaded = this.loaded(module.artifact, state);
    const k = loaded.kernels.get(kernel);
    if (!k) throw new CudaScriptError("CSR002", `kernel '${kernel}' is missing from its compiled artifact (${module.artifact.file}): rebuild the program`);
    this.checkAliasing(kernel, args);
    checkStatesArguments(kernel, k.info.uses.randomStates, args);
    const views = k.plan.pack(args, (a, i) => {
      const b = this.live(a.buffer, a.byteOffset, 0, `argument ${i + 1} '${k.plan.params[i]!.name}' of kernel '${kernel}'`);
      this.stateOf(b, `argument ${i + 1} '${k.plan.params[i]!.name}' of kernel '${kernel}'`);
      return b.pointer + BigInt(a.byteOffset);
    });
    const ctx = this.contextOf(state);
    try {
      const stream = this.streamOf(config.stream, state);
      const cooperative = k.info.cooperative === true;
      let params = views;
      if (cooperative) {
        const device = { label: state.label, cooperativeLaunch: state.info.cooperativeLaunch, multiprocessorCount: state.info.multiprocessorCount };
        checkCooperativeLaunch(ctx, k.fn, kernel, config, device);
        let workspace = state.gridWorkspaces.get(stream);
        if (!workspace) state.gridWorkspaces.set(stream, (workspace = GridWorkspace.allocate(ctx)));
        params = [...views, workspace.prepare(ctx, stream)];
      }
      if (k.stackBytes !== undefined) this.ensureStack(state, ctx, k.stackBytes);
      state.printf.beforeLaunch(kernel, k.info.prints);
      state.errors.beforeLaunch(kernel, k.info.raises === true);
      ctx.launch(k.fn, config.grid, config.block, config.sharedMem, stream, params, { cooperative });
    } catch (e) {
      if (isDriverError(e) && k.info.cooperative) {
        const coop = cooperativeDriverError(e.call, e.result, kernel, config, { label: state.label, cooperativeLaunch: state.info.cooperativeLaunch, multiprocessorCount: state.info.multiprocessorCount });
        if (coop) throw coop;
      }
      throw this.mapError(e, state, `launching kernel '${kernel}'`, kernel);
    }
  }

  /**
   * @internal The launch fast path of one configured launcher (gpu/launch-packer.ts): the kernel's
   * packer and a cuLaunchKernel prepared for `config`. Undefined (every launch generic) for a
   * cooperative kernel, or when anything about the configuration would make the generic path fail.
   */
  fastLauncher(module: ModuleHandle, kernel: string, config: LaunchConfig): FastLaunch | undefined {
    const state = this.current;
    let k: LoadedKernel | undefined, ctx: CudaContext, stream: CudaStream | null, packer: LaunchPacker, prepared: PreparedLaunch;
    try {
      k = this.loaded(module.artifact, state).kernels.get(kernel);
      // A recursive kernel may need a larger stack first: the generic path sizes it.
      if (!k || k.info.cooperative === true || k.stackBytes !== undefined) return undefined;
      // Record parameters take the generic path, which checks the array's fields (CSR080, host/kernel.ts).
      if (module.artifact.kernels[kernel]?.signature.some((p) => p.record)) return undefined;
      ctx = this.contextOf(state);
      stream = this.streamOf(config.stream, state);
      packer = this.packerOf(k, state);
      prepared = ctx.prepareLaunch(k.fn, config.grid, config.block, config.sharedMem, stream, packer.params, k.plan.slots.map((s) => s.size));
    } catch {
      return undefined; // the generic path reports it
    }
    const gpuStream = config.stream as GpuStream | null;
    const prints = k.info.prints;
    const raises = k.info.raises === true;
    const doing = `launching kernel '${kernel}'`;
    return (args) => {
      if (!packer.pack(args)) return false;
      try {
        // Checked after the arguments were read (user code can run while they are).
        if (this.current !== state || this.disposed || state.lost || state.context !== ctx || (gpuStream !== null && gpuStream.destroyed)) return false;
        state.printf.beforeLaunch(kernel, prints);
        state.errors.beforeLaunch(kernel, raises);
        prepared.launch();
      } catch (e) {
        throw this.mapError(e, state, doing, kernel);
      } finally {
        packer.release();
      }
      return true;
    };
  }

  /** One packer per kernel loaded in a context: its parameter block is reused by every configured launcher. */
  private readonly packers = new WeakMap<LoadedKernel, LaunchPacker>();
  private packerOf(k: LoadedKernel, state: DeviceState): LaunchPacker {
    let packer = this.packers.get(k);
    if (!packer) {
      const block = new (bindings().KernelParamBlock)(k.plan.slots.map((s) => s.size));
      const states = new Set(k.info.uses.randomStates.map((u) => u.param));
      this.packers.set(k, (packer = new LaunchPacker(k.plan, block, (b): b is GpuBuffer => b instanceof GpuBuffer, state, states)));
    }
    return packer;
  }

  /** Array arguments must not overlap: the generated kernels take `__restrict__` pointers (docs/abi.md). */
  private checkAliasing(kernel: string, args: readonly KernelArg[]): void {
    let arrays = 0;
    for (const a of args) if (a.kind === "array") arrays++;
    if (arrays < 2) return;
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!;
      if (a.kind !== "array" || a.buffer.bytes === 0) continue;
      for (let j = i + 1; j < args.length; j++) {
        const b = args[j]!;
        if (b.kind !== "array" || b.buffer !== a.buffer) continue;
        // The bytes each layout reaches (a strided array spans more than its element count).
        const aEnd = a.byteOffset + spanElements(a.shape, a.strides) * elementBytes(a.dtype);
        const bEnd = b.byteOffset + spanElements(b.shape, b.strides) * elementBytes(b.dtype);
        if (a.byteOffset < bEnd && b.byteOffset < aEnd) {
          const same = a.byteOffset === b.byteOffset && aEnd === bEnd;
          throw new CudaScriptError(
            GpuErrorCodes.AliasedArguments,
            `kernel '${kernel}': arguments ${i + 1} and ${j + 1} ${same ? "are the same device array" : "are overlapping views of one device array"}, but a kernel's array parameters must not overlap on the GPU (they are __restrict__ pointers: the compiler may reorder or cache their loads). Pass a copy (cuda.deviceArrayLike(a) then .copyToDevice(a)).`,
          );
        }
      }
    }
  }

  // ───────────────────────── streams and events ─────────────────────────

  private streamOf(stream: StreamHandle | null, state: DeviceState): CudaStream | null {
    if (stream === null) return null;
    if (!(stream instanceof GpuStream)) throw new CudaScriptError("CSR014", "this stream was not made by cuda.stream() on the GPU backend");
    if (stream.destroyed) throw new CudaScriptError("CSR014", "this stream was destroyed");
    if (stream.device !== state)
      throw new CudaScriptError("CSR014", `the stream belongs to GPU ${stream.device.info.ordinal}, but the work is on GPU ${state.info.ordinal}: make a stream after cuda.selectDevice`);
    return stream.stream;
  }

  createStream(): StreamHandle {
    const state = this.current;
    const ctx = this.contextOf(state);
    let s: CudaStream;
    try {
      s = ctx.createStream();
    } catch (e) {
      throw this.mapError(e, state, "creating a stream");
    }
    const handle = new GpuStream(nextHandle++, state, s);
    this.streamsRegistry.register(handle, s, handle);
    return handle;
  }

  destroyStream(stream: StreamHandle): void {
    if (!(stream instanceof GpuStream) || stream.destroyed) return;
    stream.destroyed = true;
    this.streamsRegistry.unregister(stream);
    const state = stream.device;
    if (this.disposed || state.lost || !state.context?.usable) return;
    try {
      stream.stream.destroy();
    } catch (e) {
      throw this.mapError(e, state, "destroying a stream");
    }
  }

  synchronizeStream(stream: StreamHandle | null): void {
    if (stream === null) return this.synchronizeDevice(this.current);
    if (!(stream instanceof GpuStream)) throw new CudaScriptError("CSR014", "this stream was not made by cuda.stream() on the GPU backend");
    if (stream.destroyed) throw new CudaScriptError("CSR014", "this stream was destroyed");
    const state = stream.device;
    const ctx = this.contextOf(state);
    try {
      stream.stream.synchronize();
    } catch (e) {
      throw this.mapError(e, state, "synchronizing a stream");
    }
    this.checkPrintf(state, ctx, { kind: "stream", stream: stream.stream });
    this.checkRaised(state, ctx, stream.stream);
  }

  createEvent(): EventHandle {
    const state = this.current;
    const ctx = this.contextOf(state);
    let e: CudaEvent;
    try {
      e = ctx.createEvent({ timing: true });
    } catch (err) {
      throw this.mapError(err, state, "creating an event");
    }
    const handle = new GpuEvent(nextHandle++, state, e);
    this.eventsRegistry.register(handle, e, handle);
    return handle;
  }

  private ownEvent(event: EventHandle, what: string): GpuEvent {
    if (!(event instanceof GpuEvent)) throw new CudaScriptError("CSR014", `${what}: this event was not made by cuda.event() on the GPU backend`);
    return event;
  }

  recordEvent(event: EventHandle, stream: StreamHandle | null): void {
    const e = this.ownEvent(event, "event.record");
    const state = e.device;
    this.contextOf(state);
    try {
      e.event.record(this.streamOf(stream, state));
    } catch (err) {
      throw this.mapError(err, state, "recording an event");
    }
    e.recorded = true;
  }

  synchronizeEvent(event: EventHandle): void {
    const e = this.ownEvent(event, "event.synchronize");
    if (!e.recorded) throw new CudaScriptError("CSR014", "this event was never recorded: call event.record() first");
    const state = e.device;
    this.contextOf(state);
    // The driver empties the printf FIFO here, but the counters are read at the next device or stream
    // synchronization (reading them now would need a copy that waits for every stream).
    state.printf.emptyPoint();
    try {
      e.event.synchronize();
    } catch (err) {
      throw this.mapError(err, state, "waiting for an event");
    }
  }

  queryEvent(event: EventHandle): boolean {
    const e = this.ownEvent(event, "event.query");
    if (!e.recorded) throw new CudaScriptError("CSR014", "this event was never recorded: call event.record() first");
    const state = e.device;
    this.contextOf(state);
    try {
      return e.event.query();
    } catch (err) {
      throw this.mapError(err, state, "querying an event");
    }
  }

  elapsedTime(start: EventHandle, end: EventHandle): number {
    const a = this.ownEvent(start, "cuda.eventElapsedTime");
    const b = this.ownEvent(end, "cuda.eventElapsedTime");
    if (!a.recorded || !b.recorded)
      throw new CudaScriptError("CSR014", `cuda.eventElapsedTime needs two recorded events; ${!a.recorded ? "the first" : "the second"} was never recorded`);
    if (a.device !== b.device) throw new CudaScriptError("CSR014", "cuda.eventElapsedTime: the two events belong to different GPUs");
    const state = a.device;
    const ctx = this.contextOf(state);
    try {
      // Both must have completed (CUDA_ERROR_NOT_READY otherwise): wait for them, as users expect.
      state.printf.emptyPoint();
      a.event.synchronize();
      b.event.synchronize();
      return ctx.elapsedMillis(a.event, b.event);
    } catch (err) {
      throw this.mapError(err, state, "measuring the time between two events");
    }
  }

  synchronize(): void {
    for (const state of this.states) if (state.context) this.synchronizeDevice(state);
  }

  private synchronizeDevice(state: DeviceState): void {
    const ctx = this.contextOf(state);
    try {
      ctx.synchronize();
    } catch (e) {
      throw this.mapError(e, state, "synchronizing the GPU");
    }
    this.checkPrintf(state, ctx, { kind: "context" });
    this.checkRaised(state, ctx);
  }

  dispose(): void {
    if (this.disposed) return;
    // Kernel output still in a printf FIFO is printed now: a context kept alive for pinned views
    // (CudaContext.release) would not print it on release.
    this.flushContexts("flushing kernel console.log output while disposing the GPU backend");
    noFlushAtExit(this.exitFlush);
    this.disposed = true;
    for (const state of this.states) {
      const ctx = state.context;
      state.context = undefined;
      if (ctx) this.quietly(() => ctx.release());
    }
  }

  // ───────────────────────── errors ─────────────────────────

  private quietly(f: () => void): void {
    try {
      f();
    } catch {
      // finalizers and teardown must never throw
    }
  }

  private lostError(state: DeviceState): GpuError {
    const f = state.lost!;
    return new GpuError(
      GpuErrorCodes.ContextLost,
      `${state.label} can no longer be used: ${kernelWords(f)} failed earlier with ${cudaErrorText(f)}. ${CONTEXT_LOST_SENTENCE}`,
      f,
    );
  }

  /** Turns an error of the bindings into a CudaScriptError (others pass through). */
  private mapError(e: unknown, state: DeviceState, doing: string, kernel?: string): unknown {
    if (e instanceof CudaScriptError) return e;
    if (isDriverError(e)) {
      const f0 = cudaFailureOf(e, (s) => state.kernelName(s));
      if (!f0.contextUsable) {
        // A fault of work already on the GPU (the bindings name the kernels launched since the last
        // synchronization), reported by whichever call came next — never the kernel being launched.
        if (state.lost) return this.lostError(state);
        state.lost = f0;
        const where = ` (reported by ${e.call} while ${doing}: the GPU reports a kernel's fault at a later CUDA call, usually the next synchronization)`;
        const f = f0;
        const hint =
          f.result === 702
            ? " The kernel ran too long for a GPU that also drives a display (the watchdog stops kernels after a few seconds): split the work into shorter launches, or use a GPU without a display."
            : " Run the program on the simulator (--backend simulator) to find the faulty access with its TypeScript line: it checks every array access.";
        return new GpuError(GpuErrorCodes.KernelFailed, `${kernelWords(f)} failed on ${state.label}: ${cudaErrorText(f)}${where}. ${CONTEXT_LOST_SENTENCE}${hint}`, f);
      }
      // A launch the driver refused is about the kernel being launched.
      const launchCall = e.call === "cuLaunchKernel" || e.call === "cuLaunchCooperativeKernel";
      const f: CudaFailure = kernel !== undefined && f0.kernel === undefined && launchCall ? { ...f0, kernel } : f0;
      if (launchCall || e.call === "cuFuncSetAttribute") {
        const hint =
          f.result === 701
            ? " The block needs more registers than the GPU has per block: launch smaller blocks, or cap registers with cuda.jit(fn, { maxRegisters })."
            : f.result === 1
              ? ` Check the launch configuration against the device limits (block ≤ ${state.info.maxThreadsPerBlock} threads, grid ≤ [${state.info.maxGridDim.join(", ")}], dynamic shared memory ≤ ${state.info.sharedMemoryPerBlockOptin} bytes).`
              : "";
        return new GpuError(GpuErrorCodes.KernelFailed, `kernel '${f.kernel ?? kernel ?? "?"}' could not be launched on ${state.label}: ${cudaErrorText(f)}.${hint} ${CONTEXT_USABLE_SENTENCE}`, f);
      }
      if (f.result === 2) {
        // The same code as the simulator's out-of-memory error, so a program handles both alike.
        return new GpuError(
          ErrorCodes.OutOfDeviceMemory,
          `out of device memory while ${doing} on ${state.label} (${formatBytes(state.info.totalMemoryBytes)} in total; this program holds ${formatBytes(this.stats.liveBytes)} in ${this.stats.liveAllocations} device arrays): free device arrays you no longer need with .free(). ${cudaErrorText(f)}. ${CONTEXT_USABLE_SENTENCE}`,
          f,
        );
      }
      return new GpuError(GpuErrorCodes.DriverCall, `${e.call} failed while ${doing} on ${state.label}: ${cudaErrorText(f)}. ${CONTEXT_USABLE_SENTENCE}`, f);
    }
    if (isUsageError(e)) {
      const msg = e.message.replace(/^CSD00\d: /, "");
      switch (e.code) {
        case "CSD004":
          return new CudaScriptError("CSR010", `${doing}: ${msg}`);
        case "CSD005":
          return new CudaScriptError("CSR014", `${doing}: ${msg}`);
        case "CSD006":
          return new GpuError(kernel !== undefined ? GpuErrorCodes.AbiMismatch : "CSR013", `${doing}: ${msg}${kernel !== undefined ? " (a CudaScript bug: please report it)" : ""}`);
        default:
          return new GpuError(GpuErrorCodes.DriverCall, `${doing}: ${msg}`);
      }
    }
    return e;
  }
}

/** The bindings' handle for `offset` bytes into a non-empty buffer (callers return early for 0 bytes). */
function deviceAt(b: GpuBuffer, offset: number): DeviceRange {
  const allocation = b.record.allocation;
  if (!allocation) throw new CudaScriptError("CSR011", `an empty device array has no memory at offset ${offset}`);
  return allocation.at(offset);
}

/**
 * The bytes of a host array, as the driver bindings take them: the Float16Array polyfill of Node 20/22
 * is a proxy the FFI cannot read, but its buffer, byteOffset and byteLength are those of its storage.
 */
function byteView(a: ArrayBufferView): Uint8Array {
  return a instanceof Uint8Array ? a : new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

function elementBytes(dtype: AnyDTypeName): number {
  return (isComplexDTypeName(dtype) ? complexDtypes[dtype] : dtypes[dtype]).bytes;
}
