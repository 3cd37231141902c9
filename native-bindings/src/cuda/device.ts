// The high-level CUDA driver API on top of driver.ts: device discovery, primary contexts,
// device and pinned memory, modules, launches, streams, events and occupancy. Every failing
// driver call throws a CudaDriverError; mistakes caught before a call throw CudaUsageError.
//
// Threading: every driver call is made on the JavaScript thread, and each CudaContext makes its
// primary context current (cuCtxSetCurrent) before a call that needs it. The current context is per
// thread in CUDA, so no call goes to a worker thread (which would have none): the async waits poll
// cuStreamQuery / cuEventQuery from the event loop instead.
import { createHash } from "node:crypto";
import { koffi } from "../koffi";
import { CU_DEVICE_ATTRIBUTE as A, CU_EVENT, CU_FUNC_ATTRIBUTE as F, CU_JIT, CU_MEM_ATTACH, CU_MEMHOSTALLOC, CU_MEMHOSTREGISTER, CU_STREAM } from "./constants";
import { loadCudaDriver, type CudaDriver, type CudaDriverUnavailable, type CuHandle, type DevicePointer, type LoadCudaDriverOptions, type Out } from "./driver";
import { CudaDriverError, CudaUsageError, type CudaDriverErrorDetails } from "./errors";
import { PinnedBuffer, zeroPinnedMemory, type PinnedOwner } from "./pinned";
import { KernelParamBlock, PreparedLaunch } from "./prepared-launch";

export { PinnedBuffer } from "./pinned";
import { parsePtx, type PtxParam } from "./ptx";
import { CUDA_ERROR_NOT_READY, CUDA_SUCCESS, isStickyCuResult } from "./results";

export { CudaDriverError, CudaUsageError } from "./errors";
export type { CudaDriverErrorDetails, CudaUsageCode } from "./errors";

// ----------------------------------------------------------------------------------------------
// Devices

export interface CudaDeviceInfo {
  ordinal: number;
  name: string;
  computeCapability: { major: number; minor: number };
  /** "sm_80" */
  arch: string;
  totalMemoryBytes: number;
  multiprocessorCount: number;
  warpSize: number;
  maxThreadsPerBlock: number;
  maxBlockDim: [number, number, number];
  maxGridDim: [number, number, number];
  maxThreadsPerMultiprocessor: number;
  maxBlocksPerMultiprocessor: number;
  /** Default per-block shared memory limit (48 KiB). */
  sharedMemoryPerBlock: number;
  /** Per-block limit for kernels that opt in with cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES). */
  sharedMemoryPerBlockOptin: number;
  sharedMemoryPerMultiprocessor: number;
  reservedSharedMemoryPerBlock: number;
  registersPerBlock: number;
  registersPerMultiprocessor: number;
  totalConstantMemoryBytes: number;
  l2CacheBytes: number;
  clockRateKHz: number;
  memoryClockRateKHz: number;
  memoryBusWidthBits: number;
  asyncEngineCount: number;
  concurrentKernels: boolean;
  integrated: boolean;
  canMapHostMemory: boolean;
  unifiedAddressing: boolean;
  managedMemory: boolean;
  cooperativeLaunch: boolean;
  eccEnabled: boolean;
  /** A display watchdog limits kernel run time (CUDA_ERROR_LAUNCH_TIMEOUT after a few seconds). */
  kernelExecTimeout: boolean;
  computeMode: number;
  pci: { domain: number; bus: number; device: number };
}

/** The driver for the default discovery, or a CudaDriverUnavailable thrown. */
function defaultDriver(): CudaDriver {
  const load = loadCudaDriver();
  if (!load.ok) throw load.error;
  return load.driver;
}

function check(driver: CudaDriver, call: string, result: number, details?: CudaDriverErrorDetails): void {
  if (result !== CUDA_SUCCESS) throw CudaDriverError.from(driver, call, result, details);
}

/** cuInit(0); throws CudaDriverError (e.g. CUDA_ERROR_NO_DEVICE) when CUDA cannot start. Cheap to repeat. */
export function initCuda(driver: CudaDriver = defaultDriver()): void {
  check(driver, "cuInit", driver.api.cuInit(0));
}

/** cuDriverGetVersion as { major, minor, raw } (raw 13000 = 13.0). */
export function driverVersion(driver: CudaDriver = defaultDriver()): { major: number; minor: number; raw: number } {
  const { result, version } = driver.version();
  check(driver, "cuDriverGetVersion", result);
  return { major: Math.floor(version / 1000), minor: Math.floor((version % 1000) / 10), raw: version };
}

/** Every CUDA device with its properties (calls cuInit first). */
export function listDevices(driver: CudaDriver = defaultDriver()): CudaDeviceInfo[] {
  initCuda(driver);
  const count: Out<number> = [0];
  check(driver, "cuDeviceGetCount", driver.api.cuDeviceGetCount(count));
  const devices: CudaDeviceInfo[] = [];
  for (let ordinal = 0; ordinal < count[0]; ordinal++) devices.push(deviceInfo(driver, ordinal));
  return devices;
}

/** The properties of device `ordinal` (cuInit must have succeeded). */
export function deviceInfo(driver: CudaDriver, ordinal: number): CudaDeviceInfo {
  const dev: Out<number> = [0];
  check(driver, "cuDeviceGet", driver.api.cuDeviceGet(dev, ordinal));
  const device = dev[0];
  const nameBuffer = Buffer.alloc(256);
  check(driver, "cuDeviceGetName", driver.api.cuDeviceGetName(nameBuffer, nameBuffer.length, device));
  const total: Out<number> = [0];
  check(driver, "cuDeviceTotalMem_v2", driver.api.cuDeviceTotalMem_v2(total, device));
  const attr = (attribute: number): number => {
    const out: Out<number> = [0];
    check(driver, "cuDeviceGetAttribute", driver.api.cuDeviceGetAttribute(out, attribute, device));
    return out[0];
  };
  const major = attr(A.COMPUTE_CAPABILITY_MAJOR);
  const minor = attr(A.COMPUTE_CAPABILITY_MINOR);
  return {
    ordinal,
    name: cString(nameBuffer),
    computeCapability: { major, minor },
    arch: `sm_${major}${minor}`,
    totalMemoryBytes: total[0],
    multiprocessorCount: attr(A.MULTIPROCESSOR_COUNT),
    warpSize: attr(A.WARP_SIZE),
    maxThreadsPerBlock: attr(A.MAX_THREADS_PER_BLOCK),
    maxBlockDim: [attr(A.MAX_BLOCK_DIM_X), attr(A.MAX_BLOCK_DIM_Y), attr(A.MAX_BLOCK_DIM_Z)],
    maxGridDim: [attr(A.MAX_GRID_DIM_X), attr(A.MAX_GRID_DIM_Y), attr(A.MAX_GRID_DIM_Z)],
    maxThreadsPerMultiprocessor: attr(A.MAX_THREADS_PER_MULTIPROCESSOR),
    maxBlocksPerMultiprocessor: attr(A.MAX_BLOCKS_PER_MULTIPROCESSOR),
    sharedMemoryPerBlock: attr(A.MAX_SHARED_MEMORY_PER_BLOCK),
    sharedMemoryPerBlockOptin: attr(A.MAX_SHARED_MEMORY_PER_BLOCK_OPTIN),
    sharedMemoryPerMultiprocessor: attr(A.MAX_SHARED_MEMORY_PER_MULTIPROCESSOR),
    reservedSharedMemoryPerBlock: attr(A.RESERVED_SHARED_MEMORY_PER_BLOCK),
    registersPerBlock: attr(A.MAX_REGISTERS_PER_BLOCK),
    registersPerMultiprocessor: attr(A.MAX_REGISTERS_PER_MULTIPROCESSOR),
    totalConstantMemoryBytes: attr(A.TOTAL_CONSTANT_MEMORY),
    l2CacheBytes: attr(A.L2_CACHE_SIZE),
    clockRateKHz: attr(A.CLOCK_RATE),
    memoryClockRateKHz: attr(A.MEMORY_CLOCK_RATE),
    memoryBusWidthBits: attr(A.GLOBAL_MEMORY_BUS_WIDTH),
    asyncEngineCount: attr(A.ASYNC_ENGINE_COUNT),
    concurrentKernels: attr(A.CONCURRENT_KERNELS) !== 0,
    integrated: attr(A.INTEGRATED) !== 0,
    canMapHostMemory: attr(A.CAN_MAP_HOST_MEMORY) !== 0,
    unifiedAddressing: attr(A.UNIFIED_ADDRESSING) !== 0,
    managedMemory: attr(A.MANAGED_MEMORY) !== 0,
    cooperativeLaunch: attr(A.COOPERATIVE_LAUNCH) !== 0,
    eccEnabled: attr(A.ECC_ENABLED) !== 0,
    kernelExecTimeout: attr(A.KERNEL_EXEC_TIMEOUT) !== 0,
    computeMode: attr(A.COMPUTE_MODE),
    pci: { domain: attr(A.PCI_DOMAIN_ID), bus: attr(A.PCI_BUS_ID), device: attr(A.PCI_DEVICE_ID) },
  };
}

// ----------------------------------------------------------------------------------------------
// Probe: can kernels run on a GPU here? (never throws)

export type CudaProbeCode = "CSD001" | "CSD002" | "CSD003";

export type CudaProbe =
  | { ok: true; driver: CudaDriver; driverVersion: { major: number; minor: number; raw: number }; devices: CudaDeviceInfo[] }
  | {
      ok: false;
      /** CSD001 no driver library, CSD002 cuInit (or a device query) failed, CSD003 no device. */
      code: CudaProbeCode;
      /** Says what is missing, what it means (the CPU simulator is used) and how to fix it. */
      message: string;
      driver?: CudaDriver;
      cause?: CudaDriverUnavailable | CudaDriverError | Error;
    };

const SIMULATOR_NOTE = "CudaScript runs kernels in its CPU simulator instead.";

/** Loads the driver, runs cuInit and lists devices; reports why the GPU cannot be used. Never throws. */
export function probeCuda(options: LoadCudaDriverOptions = {}): CudaProbe {
  const load = loadCudaDriver(options);
  if (!load.ok) return { ok: false, code: "CSD001", message: load.error.message, cause: load.error };
  const driver = load.driver;
  try {
    const version = driverVersion(driver);
    let devices: CudaDeviceInfo[];
    try {
      devices = listDevices(driver);
    } catch (e) {
      const error = e instanceof Error ? e : new Error(String(e));
      const message =
        error instanceof CudaDriverError && error.call === "cuInit"
          ? `CSD002: The NVIDIA driver (${driver.info.path}, CUDA ${version.major}.${version.minor}) is installed, but cuInit failed with ` +
            `${error.code} (${error.result}): ${error.description}. ${initHint(error.result)}\n${SIMULATOR_NOTE}`
          : `CSD002: The NVIDIA driver (${driver.info.path}) is installed, but listing the CUDA devices failed: ${error.message}\n${SIMULATOR_NOTE}`;
      return { ok: false, code: "CSD002", message, driver, cause: error };
    }
    if (devices.length === 0) {
      const message =
        `CSD003: The NVIDIA driver (${driver.info.path}, CUDA ${version.major}.${version.minor}) is installed and cuInit succeeded, ` +
        `but it reports no CUDA device. Check that \`nvidia-smi\` lists a GPU and that CUDA_VISIBLE_DEVICES ` +
        `(${process.env.CUDA_VISIBLE_DEVICES === undefined ? "not set" : `"${process.env.CUDA_VISIBLE_DEVICES}"`}) does not hide it.\n${SIMULATOR_NOTE}`;
      return { ok: false, code: "CSD003", message, driver };
    }
    return { ok: true, driver, driverVersion: version, devices };
  } catch (e) {
    const error = e instanceof Error ? e : new Error(String(e));
    return { ok: false, code: "CSD002", message: `CSD002: The CUDA driver could not be queried: ${error.message}\n${SIMULATOR_NOTE}`, driver, cause: error };
  }
}

function initHint(result: number): string {
  switch (result) {
    case 100: // CUDA_ERROR_NO_DEVICE
      return "No NVIDIA GPU is visible to CUDA: check `nvidia-smi`, that CUDA_VISIBLE_DEVICES does not hide the GPUs, and in a container that it runs with `--gpus all`.";
    case 34: // CUDA_ERROR_STUB_LIBRARY
      return "The libcuda that was loaded is the CUDA toolkit's stub (lib64/stubs), not the driver: remove the stubs directory from LD_LIBRARY_PATH.";
    case 803: // CUDA_ERROR_SYSTEM_DRIVER_MISMATCH
      return "The NVIDIA kernel module and the user-space driver have different versions: reboot, or reinstall the driver.";
    case 804: // CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE
      return "The CUDA forward-compatibility package in use does not support this GPU: remove it from the loader path.";
    case 999: // CUDA_ERROR_UNKNOWN
      return "This often means the NVIDIA kernel module is not loaded (e.g. after a driver update without reboot) or /dev/nvidia* is not accessible.";
    default:
      return "Check the NVIDIA driver installation (`nvidia-smi`).";
  }
}

// ----------------------------------------------------------------------------------------------
// Contexts

export type Dim3 = number | readonly [number, number?, number?] | { readonly x: number; readonly y?: number; readonly z?: number };

export interface CudaFunctionAttributes {
  maxThreadsPerBlock: number;
  sharedSizeBytes: number;
  constSizeBytes: number;
  localSizeBytes: number;
  numRegs: number;
  /** PTX ISA version × 10 the function was compiled from (78 = 7.8). */
  ptxVersion: number;
  /** Compute capability × 10 of the binary (80 = sm_80). */
  binaryVersion: number;
  maxDynamicSharedSizeBytes: number;
}

export interface LoadModuleOptions {
  /** Ask the JIT for verbose output (ptxas-style register report in `infoLog`). Default true. */
  verbose?: boolean;
  /** Bytes for each of the info and error log buffers (default 64 KiB). */
  logBufferBytes?: number;
}

const registry = new Map<CudaDriver, Map<number, CudaContext>>();
// Released contexts whose primary context is still retained because views can reach their pinned
// memory (CudaContext.release): they stay known so that forgetCudaContexts can abandon them too.
const heldForViews = new Map<CudaDriver, Set<CudaContext>>();

/**
 * Forgets every CudaContext of `driver` without any driver call, so the next retain() starts
 * afresh. For tests that reset the driver test double underneath the bindings; not for production.
 */
export function forgetCudaContexts(driver: CudaDriver): void {
  for (const context of registry.get(driver)?.values() ?? []) context.abandon();
  for (const context of heldForViews.get(driver) ?? []) context.abandon();
  registry.delete(driver);
  heldForViews.delete(driver);
}

/**
 * The primary context of one device. `CudaContext.retain(driver, ordinal)` returns the same object
 * for the same device while it is retained (refcounted); the last `release()` frees whatever is
 * still allocated through it and releases the driver's primary context.
 */
export class CudaContext implements PinnedOwner {
  private refs = 1;
  private released = false;
  private abandoned = false;
  // True while release() frees what is left; the primary context is released at its end, or, when
  // pinned memory is still reachable through views, after the last of it has been freed.
  private releasing = false;
  // Tracked by handle, not by address: the driver reuses the addresses of freed memory, so only
  // the handle can tell a stale pointer from a live allocation at the same address.
  private readonly allocations = new Set<DeviceAllocation>();
  // Pinned buffers whose memory has not gone back to the driver (including freed ones whose views
  // are still alive: see pinned.ts).
  private readonly pinned = new Set<PinnedBuffer>();
  // Host memory page-locked in place (cuMemHostRegister, always PORTABLE): start address → the
  // registered view (held, so the memory cannot be collected while the driver may DMA into it).
  private readonly registered = new Map<bigint, ArrayBufferView>();
  private readonly modules = new Map<string, CudaModule>();
  private readonly streams = new Set<CudaStream>();
  private readonly events = new Set<CudaEvent>();
  // Staged copies of pageable sources of async copies still queued: held so the GC cannot free
  // memory the driver will read later (CUDA only says such copies "might be synchronous").
  // Dropped when a synchronization shows their stream has finished.
  private inFlight: { stream: CudaStream | null; host: ArrayBufferView }[] = [];
  private kernelsSinceSync: string[] = [];
  private sticky: CudaDriverError | undefined;

  private constructor(
    readonly driver: CudaDriver,
    readonly device: CudaDeviceInfo,
    readonly handle: CuHandle,
  ) {}

  /** Retains the primary context of device `ordinal` (default 0); calls cuInit. */
  static retain(driver: CudaDriver = defaultDriver(), ordinal = 0): CudaContext {
    const perDriver = registry.get(driver) ?? new Map<number, CudaContext>();
    registry.set(driver, perDriver);
    const existing = perDriver.get(ordinal);
    if (existing) {
      existing.refs++;
      return existing;
    }
    initCuda(driver);
    const info = deviceInfo(driver, ordinal);
    const out: Out<CuHandle | null> = [null];
    check(driver, "cuDevicePrimaryCtxRetain", driver.api.cuDevicePrimaryCtxRetain(out, ordinal));
    if (out[0] === null) throw new CudaUsageError("CSD006", "cuDevicePrimaryCtxRetain returned a NULL context");
    const context = new CudaContext(driver, info, out[0]);
    perDriver.set(ordinal, context);
    return context;
  }

  /** How many retain() calls are not yet matched by release(). */
  get refcount(): number {
    return this.refs;
  }

  /** False after a sticky error (see CudaDriverError.contextUsable) or after the last release. */
  get usable(): boolean {
    return !this.released && this.sticky === undefined;
  }

  /** The sticky error that made this context unusable, if any. */
  get stickyError(): CudaDriverError | undefined {
    return this.sticky;
  }

  /**
   * Drops one reference; the last one frees everything still allocated here and releases the
   * context. Pinned memory that views can still reach is the exception: it is freed when the last
   * of them has been garbage-collected, and the primary context stays retained until then (the
   * driver frees a context's page-locked memory with it).
   */
  release(): void {
    if (this.released) throw new CudaUsageError("CSD005", `the CUDA context of device ${this.device.ordinal} was already released`);
    if (--this.refs > 0) return;
    this.released = true;
    registry.get(this.driver)?.delete(this.device.ordinal);
    const api = this.driver.api;
    if (this.driver.currentContext !== this.handle) {
      this.driver.currentContext = api.cuCtxSetCurrent(this.handle) === CUDA_SUCCESS ? this.handle : null;
    }
    // Free in dependency order; errors are ignored (the context is going away, e.g. after a sticky error).
    this.inFlight = [];
    for (const event of this.events) event.destroyQuietly();
    for (const stream of this.streams) stream.destroyQuietly();
    for (const module of this.modules.values()) module.unloadQuietly();
    this.releasing = true;
    for (const buffer of [...this.pinned]) buffer.freeQuietly();
    this.releasing = false;
    for (const allocation of this.allocations) {
      allocation.markFreed();
      api.cuMemFree_v2(allocation.pointer);
    }
    this.allocations.clear();
    if (this.pinned.size > 0) {
      // Held for the views; freePinnedMemory releases the primary context after the last free.
      const held = heldForViews.get(this.driver) ?? new Set<CudaContext>();
      heldForViews.set(this.driver, held);
      held.add(this);
      return;
    }
    this.releasePrimary(true);
  }

  private releasePrimary(reportErrors: boolean): void {
    const api = this.driver.api;
    api.cuCtxSetCurrent(null);
    this.driver.currentContext = null;
    const result = api.cuDevicePrimaryCtxRelease(this.device.ordinal);
    if (reportErrors) check(this.driver, "cuDevicePrimaryCtxRelease", result);
  }

  /** @internal See forgetCudaContexts. */
  abandon(): void {
    this.released = true;
    this.abandoned = true;
    this.refs = 0;
    for (const buffer of this.pinned) buffer.forget();
    this.pinned.clear();
  }

  /** Makes this context current on the calling thread (done automatically by every method). */
  makeCurrent(): void {
    this.assertAlive();
    if (this.driver.currentContext === this.handle) return;
    this.call("cuCtxSetCurrent", this.driver.api.cuCtxSetCurrent(this.handle));
    this.driver.currentContext = this.handle;
  }

  private assertAlive(): void {
    if (this.released) throw new CudaUsageError("CSD005", `the CUDA context of device ${this.device.ordinal} was released`);
  }

  /** cuCtxSynchronize: waits for all work; an asynchronous kernel fault surfaces here. */
  synchronize(): void {
    this.makeCurrent();
    this.call("cuCtxSynchronize", this.driver.api.cuCtxSynchronize());
    this.kernelsSinceSync = [];
    this.inFlight = [];
  }

  /**
   * cuCtxSetLimit (CU_LIMIT.*, bytes). The printf FIFO size (CU_LIMIT.PRINTF_FIFO_SIZE, 1 MiB by
   * default) can only be set before the first launch of a kernel that uses printf: later the
   * driver returns CUDA_ERROR_INVALID_VALUE.
   */
  setLimit(limit: number, bytes: number): void {
    if (!Number.isSafeInteger(bytes) || bytes < 0) throw new CudaUsageError("CSD006", `a context limit must be a non-negative integer number of bytes, not ${bytes}`);
    this.makeCurrent();
    this.call("cuCtxSetLimit", this.driver.api.cuCtxSetLimit(limit, bytes));
  }

  /** cuCtxGetLimit (CU_LIMIT.*): the limit's current value in bytes. */
  getLimit(limit: number): number {
    this.makeCurrent();
    const out: Out<number> = [0];
    this.call("cuCtxGetLimit", this.driver.api.cuCtxGetLimit(out, limit));
    return Number(out[0]);
  }

  /** Pageable host buffers held for async copies that may not have run yet. */
  get hostBuffersInFlight(): number {
    return this.inFlight.length;
  }

  /** @internal Work on `stream` has completed: its host buffers may go (the NULL stream waits for every blocking stream). */
  streamCompleted(stream: CudaStream | null): void {
    if (this.inFlight.length === 0) return;
    this.inFlight = stream === null ? this.inFlight.filter((f) => f.stream !== null && f.stream.nonBlocking) : this.inFlight.filter((f) => f.stream !== stream);
  }

  /**
   * True when `view` lies inside memory that is page-locked for this context: a PinnedBuffer
   * allocated here, or a portable one (CU_MEMHOSTALLOC_PORTABLE) of another device's context.
   */
  private isPinned(view: ArrayBufferView): boolean {
    const start = koffi.address(view);
    const end = start + BigInt(view.byteLength);
    for (const context of registry.get(this.driver)?.values() ?? []) {
      for (const buffer of context.pinned) {
        if (context !== this && (buffer.flags & CU_MEMHOSTALLOC.PORTABLE) === 0) continue;
        if (start >= buffer.pointer && end <= buffer.pointer + BigInt(buffer.byteLength)) return true;
      }
      for (const [at, view] of context.registered) if (start >= at && end <= at + BigInt(view.byteLength)) return true;
    }
    return false;
  }

  // -- device memory ---------------------------------------------------------------------------

  /** Allocates `bytes` of device memory. Free it exactly once with free(). */
  alloc(bytes: number): DeviceAllocation {
    if (!Number.isSafeInteger(bytes) || bytes <= 0) throw new CudaUsageError("CSD006", `cannot allocate ${bytes} bytes of device memory (need a positive integer)`);
    this.makeCurrent();
    const out = new BigUint64Array(1);
    this.call("cuMemAlloc_v2", this.driver.api.cuMemAlloc_v2(out, bytes));
    const allocation = new DeviceAllocation(this, out[0] ?? 0n, bytes);
    this.allocations.add(allocation);
    return allocation;
  }

  /**
   * Frees an allocation returned by alloc(). A second free of the same handle, or a handle of
   * another context, is a CudaUsageError (CSD004) and makes no driver call — even when the driver
   * has since handed the same address to a new allocation.
   */
  free(allocation: DeviceAllocation): void {
    this.assertAlive();
    if (!(allocation instanceof DeviceAllocation) || allocation.context !== this) {
      throw new CudaUsageError("CSD004", `${describeDevice(allocation)} was not allocated by this context; nothing was freed`);
    }
    if (allocation instanceof ModuleGlobal) {
      throw new CudaUsageError("CSD004", `'${allocation.name}' is a variable of a loaded module, not an allocation: it is freed when its module is unloaded; nothing was freed`);
    }
    if (!this.allocations.has(allocation)) {
      throw new CudaUsageError("CSD004", `device allocation 0x${allocation.pointer.toString(16)} was already freed (double free); nothing was freed`);
    }
    this.makeCurrent();
    this.allocations.delete(allocation);
    allocation.markFreed();
    this.call("cuMemFree_v2", this.driver.api.cuMemFree_v2(allocation.pointer));
  }

  // -- inter-process memory (CUDA IPC) ----------------------------------------------------------

  /**
   * The 64-byte CUipcMemHandle of the allocation that starts at `pointer` (cuIpcGetMemHandle): another
   * process opens it with ipcOpen. CSD006 when the driver has no IPC functions.
   */
  ipcHandle(pointer: bigint): Uint8Array {
    const api = this.driver.api;
    if (!api.cuIpcGetMemHandle) throw new CudaUsageError("CSD006", "this CUDA driver exports no cuIpcGetMemHandle: inter-process memory is not available");
    this.makeCurrent();
    const handle = new Uint8Array(64);
    this.call("cuIpcGetMemHandle", api.cuIpcGetMemHandle(handle, pointer));
    return handle;
  }

  /**
   * Maps another process's allocation of `bytes` from its handle (cuIpcOpenMemHandle_v2 with
   * CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS): copies take it like an allocation of this context; free()
   * refuses it — close it (once) with ipcClose.
   */
  ipcOpen(handle: Uint8Array, bytes: number): DeviceAllocation {
    const api = this.driver.api;
    if (!api.cuIpcOpenMemHandle) throw new CudaUsageError("CSD006", "this CUDA driver exports no cuIpcOpenMemHandle: inter-process memory is not available");
    if (handle.length !== 64) throw new CudaUsageError("CSD006", `an IPC memory handle is 64 bytes, got ${handle.length}`);
    this.makeCurrent();
    const out = new BigUint64Array(1);
    this.call("cuIpcOpenMemHandle_v2", api.cuIpcOpenMemHandle(out, { reserved: handle }, 1));
    return new DeviceAllocation(this, out[0] ?? 0n, bytes);
  }

  /** Unmaps memory opened with ipcOpen (cuIpcCloseMemHandle); a second close makes no driver call. */
  ipcClose(allocation: DeviceAllocation): void {
    const api = this.driver.api;
    if (!api.cuIpcCloseMemHandle) throw new CudaUsageError("CSD006", "this CUDA driver exports no cuIpcCloseMemHandle");
    if (allocation.freed || allocation.context !== this) return;
    this.makeCurrent();
    allocation.markFreed();
    this.call("cuIpcCloseMemHandle", api.cuIpcCloseMemHandle(allocation.pointer));
  }

  /**
   * Device memory this context did not allocate — another library's, through the CUDA Array
   * Interface or DLPack — named like an allocation so copies take it (the caller vouches for the
   * range). free() refuses it: its owner frees it.
   */
  foreign(pointer: bigint, bytes: number): DeviceAllocation {
    return new DeviceAllocation(this, pointer, bytes);
  }

  /** Live allocations made through this context, and their total size. */
  get memoryInUse(): { allocations: number; bytes: number } {
    let bytes = 0;
    for (const allocation of this.allocations) bytes += allocation.bytes;
    return { allocations: this.allocations.size, bytes };
  }

  /** Host → device, synchronous. Copies all of `src` to `dst` (which may point inside an allocation). */
  copyHtoD(dst: DeviceMemory, src: ArrayBufferView): void {
    if (src.byteLength === 0) return;
    this.makeCurrent();
    const pointer = this.checkRange(dst, src.byteLength, "copyHtoD destination");
    this.call("cuMemcpyHtoD_v2", this.driver.api.cuMemcpyHtoD_v2(pointer, src, src.byteLength));
  }

  /** Device → host, synchronous: fills all of `dst`. */
  copyDtoH(dst: ArrayBufferView, src: DeviceMemory): void {
    if (dst.byteLength === 0) return;
    this.makeCurrent();
    const pointer = this.checkRange(src, dst.byteLength, "copyDtoH source");
    this.call("cuMemcpyDtoH_v2", this.driver.api.cuMemcpyDtoH_v2(dst, pointer, dst.byteLength));
  }

  /**
   * Host → device on `stream` (null = the NULL stream). From pinned memory (a PinnedBuffer view)
   * the copy is truly asynchronous: do not modify the source until the stream is synchronized.
   * From ordinary (pageable) memory, which CUDA only says "might" be copied synchronously, the
   * bindings stage the bytes in a private copy held until the stream has completed: the caller
   * may reuse its buffer at once, and the driver never reads memory the GC has freed.
   */
  copyHtoDAsync(dst: DeviceMemory, src: ArrayBufferView, stream: CudaStream | null): void {
    if (src.byteLength === 0) return;
    this.makeCurrent();
    const pointer = this.checkRange(dst, src.byteLength, "copyHtoDAsync destination");
    const handle = this.streamHandle(stream);
    const pinned = this.isPinned(src);
    const host = pinned ? src : new Uint8Array(new Uint8Array(src.buffer, src.byteOffset, src.byteLength));
    this.call("cuMemcpyHtoDAsync_v2", this.driver.api.cuMemcpyHtoDAsync_v2(pointer, host, host.byteLength, handle));
    if (!pinned) this.inFlight.push({ stream, host });
  }

  /**
   * Device → host on `stream`. Into pinned memory the data arrives when the stream is
   * synchronized. Into ordinary (pageable) memory CUDA only says the copy "might be synchronous",
   * so the bindings synchronize the stream before returning: the data is there, and the driver
   * never writes into a buffer the GC may have freed.
   */
  copyDtoHAsync(dst: ArrayBufferView, src: DeviceMemory, stream: CudaStream | null): void {
    if (dst.byteLength === 0) return;
    this.makeCurrent();
    const pointer = this.checkRange(src, dst.byteLength, "copyDtoHAsync source");
    const handle = this.streamHandle(stream);
    this.call("cuMemcpyDtoHAsync_v2", this.driver.api.cuMemcpyDtoHAsync_v2(dst, pointer, dst.byteLength, handle));
    if (!this.isPinned(dst)) {
      this.call("cuStreamSynchronize", this.driver.api.cuStreamSynchronize(handle));
      this.streamCompleted(stream);
    }
  }

  /** Sets `bytes` bytes at `dst` to `value` (0-255). */
  memset(dst: DeviceMemory, value: number, bytes: number): void {
    if (!Number.isInteger(value) || value < 0 || value > 255) throw new CudaUsageError("CSD006", `memset value ${value} is not a byte (0-255)`);
    if (bytes === 0) return;
    this.makeCurrent();
    const pointer = this.checkRange(dst, bytes, "memset destination");
    this.call("cuMemsetD8_v2", this.driver.api.cuMemsetD8_v2(pointer, value, bytes));
  }

  // -- pinned host memory ------------------------------------------------------------------------

  /**
   * Page-locked host memory (cuMemHostAlloc) of `bytes` bytes, zero-filled, viewed as an
   * ArrayBuffer without copying. Free it with `buffer.free()` (or it is freed at the context's
   * last release); while a view of `buffer` may still be reachable the memory stays allocated and
   * is freed when the last view has been garbage-collected (pinned.ts).
   * `flags` default to CU_MEMHOSTALLOC_PORTABLE: without it the memory is page-locked only for
   * this context, and pageable (slow, synchronous copies) to every other GPU's context.
   */
  allocPinned(bytes: number, flags: number = CU_MEMHOSTALLOC.PORTABLE): PinnedBuffer {
    if (!Number.isSafeInteger(bytes) || bytes <= 0) throw new CudaUsageError("CSD006", `cannot allocate ${bytes} bytes of pinned memory (need a positive integer)`);
    this.makeCurrent();
    const out = new BigUint64Array(1);
    this.call("cuMemHostAlloc", this.driver.api.cuMemHostAlloc(out, bytes, flags));
    const pointer = out[0] ?? 0n;
    try {
      zeroPinnedMemory(pointer, bytes);
    } catch (e) {
      this.driver.api.cuMemFreeHost(pointer);
      throw new CudaUsageError(
        "CSD007",
        `pinned memory cannot be exposed as an ArrayBuffer in this JavaScript runtime (${e instanceof Error ? e.message : String(e)}); use ordinary memory`,
      );
    }
    const buffer = new PinnedBuffer(this, pointer, bytes, flags);
    this.pinned.add(buffer);
    return buffer;
  }

  /**
   * @internal Returns a pinned buffer's memory to the driver (PinnedBuffer decides when: once no
   * view of it is left). `quiet` (finalizers, release) ignores errors.
   */
  freePinnedMemory(buffer: PinnedBuffer, quiet: boolean): void {
    this.pinned.delete(buffer);
    if (this.abandoned) return; // the double was reset under us: the memory went with it
    const api = this.driver.api;
    // cuMemFreeHost does not wait for copies still queued to or from the memory (their DMA would
    // hit freed memory): wait for all work first. A sticky error here means the context (and
    // its queued work) is gone anyway; the free below still returns the memory. The quiet path
    // calls the driver directly: a sticky error it meets is reported again (with the kernels to
    // blame) by the program's own next call.
    if (quiet) {
      if (this.driver.currentContext !== this.handle) {
        this.driver.currentContext = api.cuCtxSetCurrent(this.handle) === CUDA_SUCCESS ? this.handle : null;
      }
      api.cuCtxSynchronize();
    } else {
      this.makeCurrent();
      if (this.usable) this.synchronize();
    }
    const result = buffer.kind === "managed" ? api.cuMemFree_v2(buffer.pointer) : api.cuMemFreeHost(buffer.pointer);
    if (!quiet) this.call(buffer.kind === "managed" ? "cuMemFree_v2" : "cuMemFreeHost", result);
    // The last pinned memory of a released context: the primary context was held for it.
    if (this.released && !this.releasing && this.pinned.size === 0) {
      heldForViews.get(this.driver)?.delete(this);
      this.releasePrimary(false);
    }
  }

  /**
   * Mapped pinned memory (cuMemHostAlloc with DEVICEMAP): host memory that kernels read and write
   * directly at `devicePointer` (cuMemHostGetDevicePointer), with no copies. Freed as allocPinned's.
   */
  allocMapped(bytes: number): { buffer: PinnedBuffer; devicePointer: bigint } {
    const buffer = this.allocPinned(bytes, CU_MEMHOSTALLOC.PORTABLE | CU_MEMHOSTALLOC.DEVICEMAP);
    const out = new BigUint64Array(1);
    const result = this.driver.api.cuMemHostGetDevicePointer_v2(out, buffer.pointer, 0);
    if (result !== CUDA_SUCCESS) {
      buffer.free();
      this.call("cuMemHostGetDevicePointer_v2", result);
    }
    return { buffer, devicePointer: out[0] ?? 0n };
  }

  /**
   * Unified (managed) memory (cuMemAllocManaged, attached globally): one address valid on the host
   * and on every device, viewed as an ArrayBuffer like pinned memory and freed (cuMemFree) the same
   * way, once no view of it is left.
   */
  allocManaged(bytes: number): PinnedBuffer {
    if (!Number.isSafeInteger(bytes) || bytes <= 0) throw new CudaUsageError("CSD006", `cannot allocate ${bytes} bytes of managed memory (need a positive integer)`);
    this.makeCurrent();
    const out = new BigUint64Array(1);
    this.call("cuMemAllocManaged", this.driver.api.cuMemAllocManaged(out, bytes, CU_MEM_ATTACH.GLOBAL));
    const pointer = out[0] ?? 0n;
    try {
      zeroPinnedMemory(pointer, bytes);
    } catch (e) {
      this.driver.api.cuMemFree_v2(pointer);
      throw new CudaUsageError("CSD007", `managed memory cannot be exposed as an ArrayBuffer in this JavaScript runtime (${e instanceof Error ? e.message : String(e)})`);
    }
    const buffer = new PinnedBuffer(this, pointer, bytes, 0, "managed");
    this.pinned.add(buffer);
    return buffer;
  }

  /**
   * Page-locks the memory of `view` where it is (cuMemHostRegister, PORTABLE) until `unregisterHost`:
   * copies from and to it are then asynchronous DMA, as from pinned memory. CSD008 if part of it is
   * registered already.
   */
  registerHost(view: ArrayBufferView): void {
    if (view.byteLength === 0) return;
    const start = koffi.address(view);
    const end = start + BigInt(view.byteLength);
    for (const [at, other] of this.registered)
      if (start < at + BigInt(other.byteLength) && at < end) throw new CudaUsageError("CSD008", "this memory (or part of it) is registered already");
    this.makeCurrent();
    this.call("cuMemHostRegister_v2", this.driver.api.cuMemHostRegister_v2(view, view.byteLength, CU_MEMHOSTREGISTER.PORTABLE));
    this.registered.set(start, view);
  }

  /** Ends `registerHost(view)`, after waiting for every copy that may still use the memory. */
  unregisterHost(view: ArrayBufferView): void {
    if (view.byteLength === 0) return;
    const start = koffi.address(view);
    if (this.registered.get(start) !== view) throw new CudaUsageError("CSD008", "this memory is not registered");
    this.registered.delete(start);
    this.makeCurrent();
    if (this.usable) this.synchronize();
    this.call("cuMemHostUnregister", this.driver.api.cuMemHostUnregister(view));
  }

  /** Pinned buffers whose memory is still allocated, freed or not (views may still reach it). */
  get pinnedMemoryInUse(): number {
    return this.pinned.size;
  }

  // -- modules and functions -------------------------------------------------------------------

  /**
   * Loads PTX (JIT-compiled by the driver for this device). Cached per context by the SHA-256 of
   * the PTX: loading the same text again returns the same module. A JIT failure throws a
   * CudaDriverError whose `jitLog` (and message) holds the JIT's error log.
   */
  loadModule(ptx: string, options: LoadModuleOptions = {}): CudaModule {
    const hash = createHash("sha256").update(ptx).digest("hex");
    const cached = this.modules.get(hash);
    if (cached) return cached;
    this.makeCurrent();
    const logBytes = options.logBufferBytes ?? 64 * 1024;
    const infoLog = Buffer.alloc(logBytes);
    const errorLog = Buffer.alloc(logBytes);
    const opts = new Int32Array([
      CU_JIT.INFO_LOG_BUFFER,
      CU_JIT.INFO_LOG_BUFFER_SIZE_BYTES,
      CU_JIT.ERROR_LOG_BUFFER,
      CU_JIT.ERROR_LOG_BUFFER_SIZE_BYTES,
      CU_JIT.LOG_VERBOSE,
      CU_JIT.WALL_TIME,
    ]);
    const values = new BigUint64Array([koffi.address(infoLog), BigInt(logBytes), koffi.address(errorLog), BigInt(logBytes), options.verbose === false ? 0n : 1n, 0n]);
    // The driver reads PTX as a C string: it must end in NUL.
    const image = Buffer.from(ptx.endsWith("\0") ? ptx : `${ptx}\0`, "utf8");
    const out: Out<CuHandle | null> = [null];
    const result = this.driver.api.cuModuleLoadDataEx(out, image, opts.length, opts, values);
    const logText = (buffer: Buffer, sizeSlot: number) => {
      const written = Math.min(Number(values[sizeSlot] ?? 0n), buffer.length);
      return buffer.subarray(0, written).toString("utf8").replace(/\0[\s\S]*$/, "").trim();
    };
    if (result !== CUDA_SUCCESS || out[0] === null) {
      const jitLog = logText(errorLog, 3) || logText(infoLog, 1);
      this.fail("cuModuleLoadDataEx", result === CUDA_SUCCESS ? 400 : result, jitLog ? { jitLog } : {});
    }
    const wallTime = new Float32Array(values.buffer, 5 * 8, 1)[0];
    const module = new CudaModule(this, out[0] as CuHandle, hash, ptx, logText(infoLog, 1), wallTime);
    this.modules.set(hash, module);
    return module;
  }

  /** @internal cuModuleGetGlobal: the address and size of a module-scope variable. */
  getGlobalAddress(module: CudaModule, name: string): { pointer: DevicePointer; bytes: number } {
    this.makeCurrent();
    const pointer = new BigUint64Array(1);
    const bytes: Out<number> = [0];
    this.call("cuModuleGetGlobal_v2", this.driver.api.cuModuleGetGlobal_v2(pointer, bytes, module.handle, name));
    return { pointer: pointer[0]!, bytes: Number(bytes[0]) };
  }

  /** @internal */
  unloadModule(module: CudaModule, quiet: boolean): void {
    this.modules.delete(module.hash);
    if (!quiet) this.makeCurrent();
    const result = this.driver.api.cuModuleUnload(module.handle);
    if (!quiet) this.call("cuModuleUnload", result);
  }

  /** Modules currently loaded (cached) in this context. */
  get loadedModules(): number {
    return this.modules.size;
  }

  /** @internal */
  getFunctionHandle(module: CudaModule, name: string): CuHandle {
    this.makeCurrent();
    const out: Out<CuHandle | null> = [null];
    const result = this.driver.api.cuModuleGetFunction(out, module.handle, name);
    if (result !== CUDA_SUCCESS || out[0] === null) {
      const known = module.entries.map((e) => e.name);
      this.fail("cuModuleGetFunction", result === CUDA_SUCCESS ? 500 : result, {
        kernel: name,
        note: known.length ? `The module's kernels are: ${known.join(", ")}.` : "The module declares no kernels.",
      });
    }
    return out[0] as CuHandle;
  }

  /** All function attributes (cuFuncGetAttribute). */
  functionAttributes(fn: CudaFunction): CudaFunctionAttributes {
    return {
      maxThreadsPerBlock: this.functionAttribute(fn, F.MAX_THREADS_PER_BLOCK),
      sharedSizeBytes: this.functionAttribute(fn, F.SHARED_SIZE_BYTES),
      constSizeBytes: this.functionAttribute(fn, F.CONST_SIZE_BYTES),
      localSizeBytes: this.functionAttribute(fn, F.LOCAL_SIZE_BYTES),
      numRegs: this.functionAttribute(fn, F.NUM_REGS),
      ptxVersion: this.functionAttribute(fn, F.PTX_VERSION),
      binaryVersion: this.functionAttribute(fn, F.BINARY_VERSION),
      maxDynamicSharedSizeBytes: this.functionAttribute(fn, F.MAX_DYNAMIC_SHARED_SIZE_BYTES),
    };
  }

  /** One function attribute (a CU_FUNC_ATTRIBUTE value). */
  functionAttribute(fn: CudaFunction, attribute: number): number {
    this.makeCurrent();
    const out: Out<number> = [0];
    this.call("cuFuncGetAttribute", this.driver.api.cuFuncGetAttribute(out, attribute, fn.handle), { kernel: fn.name });
    return out[0];
  }

  /**
   * Opts `fn` in to `bytes` of dynamic shared memory per block (needed above 48 KiB, up to
   * device.sharedMemoryPerBlockOptin minus the kernel's static shared memory).
   */
  setMaxDynamicSharedMemory(fn: CudaFunction, bytes: number): void {
    this.makeCurrent();
    this.call("cuFuncSetAttribute", this.driver.api.cuFuncSetAttribute(fn.handle, F.MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes), {
      kernel: fn.name,
      note: `Requested ${bytes} bytes of dynamic shared memory; ${this.device.name} allows ${this.device.sharedMemoryPerBlockOptin} bytes per block in total.`,
    });
    fn.dynamicSharedLimit = bytes;
  }

  /**
   * Opts `fn` in to `bytes` of dynamic shared memory when its limit is lower (48 KiB minus its static
   * shared memory until opted in). Launches do it themselves; call it before asking for the occupancy
   * of such a launch too: the driver answers 0 blocks per SM for more than the kernel's limit.
   */
  optInDynamicSharedMemory(fn: CudaFunction, bytes: number): void {
    if (bytes > this.dynamicSharedLimit(fn)) this.setMaxDynamicSharedMemory(fn, bytes);
  }

  /** cuOccupancyMaxActiveBlocksPerMultiprocessor. */
  maxActiveBlocksPerMultiprocessor(fn: CudaFunction, blockSize: number, dynamicSharedBytes = 0): number {
    this.makeCurrent();
    const out: Out<number> = [0];
    this.call(
      "cuOccupancyMaxActiveBlocksPerMultiprocessor",
      this.driver.api.cuOccupancyMaxActiveBlocksPerMultiprocessor(out, fn.handle, blockSize, dynamicSharedBytes),
      { kernel: fn.name },
    );
    return out[0];
  }

  // -- launch ------------------------------------------------------------------------------------

  /**
   * Launches `fn`. `args` holds one buffer per kernel parameter, already packed per the compiler's
   * ABI (little-endian scalars; 8-byte device pointers); each is copied at launch, so the buffers
   * may be reused as soon as this returns. When the kernel's PTX signature is known, the number
   * and sizes of the buffers are checked against it first (CSD006). `sharedMemBytes` is dynamic
   * shared memory; above the kernel's current limit the kernel is opted in automatically.
   */
  launch(fn: CudaFunction, grid: Dim3, block: Dim3, sharedMemBytes: number, stream: CudaStream | null, args: readonly ArrayBufferView[], options: { cooperative?: boolean } = {}): void {
    const [gx, gy, gz] = dims(grid, "grid", fn.name);
    const [bx, by, bz] = dims(block, "block", fn.name);
    if (!Number.isInteger(sharedMemBytes) || sharedMemBytes < 0) {
      throw new CudaUsageError("CSD006", `launch of ${fn.name}: dynamic shared memory must be a non-negative integer, got ${sharedMemBytes}`);
    }
    if (fn.module.context !== this) throw new CudaUsageError("CSD006", `kernel ${fn.name} was loaded in another CUDA context`);
    checkArguments(fn, args);
    this.makeCurrent();
    this.optInDynamicSharedMemory(fn, sharedMemBytes);
    let scratch = paramScratch.get(this.driver);
    if (!scratch) paramScratch.set(this.driver, (scratch = new ParamScratch()));
    const kernelParams = scratch.pack(args);
    // A kernel that synchronises its grid needs every block resident: cuLaunchCooperativeKernel
    // guarantees it or fails (CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE).
    const result = options.cooperative
      ? this.driver.api.cuLaunchCooperativeKernel(fn.handle, gx, gy, gz, bx, by, bz, sharedMemBytes, this.streamHandle(stream), kernelParams)
      : this.driver.api.cuLaunchKernel(fn.handle, gx, gy, gz, bx, by, bz, sharedMemBytes, this.streamHandle(stream), kernelParams, null);
    this.call(options.cooperative ? "cuLaunchCooperativeKernel" : "cuLaunchKernel", result, { kernel: fn.name });
    this.noteLaunched(fn.name);
  }

  /**
   * A launch of `fn` prepared once for many (prepared-launch.ts): the configuration is checked now, as
   * `launch` checks it per call, and `paramSizes` (bytes per parameter) against the PTX signature; the
   * kernel is opted in to `sharedMemBytes` of dynamic shared memory now if it needs more than its limit.
   * Each `launch()` then writes nothing but what the caller put in `params.view`.
   */
  prepareLaunch(fn: CudaFunction, grid: Dim3, block: Dim3, sharedMemBytes: number, stream: CudaStream | null, params: KernelParamBlock, paramSizes: readonly number[]): PreparedLaunch {
    const g = dims(grid, "grid", fn.name);
    const b = dims(block, "block", fn.name);
    if (!Number.isInteger(sharedMemBytes) || sharedMemBytes < 0) {
      throw new CudaUsageError("CSD006", `launch of ${fn.name}: dynamic shared memory must be a non-negative integer, got ${sharedMemBytes}`);
    }
    if (fn.module.context !== this) throw new CudaUsageError("CSD006", `kernel ${fn.name} was loaded in another CUDA context`);
    if (params.offsets.length !== paramSizes.length) throw new CudaUsageError("CSD006", `kernel ${fn.name}: a parameter block of ${params.offsets.length} slots for ${paramSizes.length} parameters`);
    checkArguments(fn, paramSizes.map((n) => new Uint8Array(n)));
    this.streamHandle(stream);
    this.makeCurrent();
    this.optInDynamicSharedMemory(fn, sharedMemBytes);
    return new PreparedLaunch(this, fn, params, g, b, sharedMemBytes, stream);
  }

  /** @internal Remembers a launched kernel: a later sticky error blames the kernels launched since the last synchronization. */
  noteLaunched(name: string): void {
    if (!this.kernelsSinceSync.includes(name)) this.kernelsSinceSync.push(name);
    if (this.kernelsSinceSync.length > 16) this.kernelsSinceSync.shift();
  }

  private dynamicSharedLimit(fn: CudaFunction): number {
    fn.dynamicSharedLimit ??= this.functionAttribute(fn, F.MAX_DYNAMIC_SHARED_SIZE_BYTES);
    return fn.dynamicSharedLimit;
  }

  // -- streams and events ----------------------------------------------------------------------

  /** A new stream; `nonBlocking` streams do not synchronize with the NULL stream. */
  createStream(options: { nonBlocking?: boolean } = {}): CudaStream {
    this.makeCurrent();
    const out: Out<CuHandle | null> = [null];
    this.call("cuStreamCreate", this.driver.api.cuStreamCreate(out, options.nonBlocking ? CU_STREAM.NON_BLOCKING : CU_STREAM.DEFAULT));
    const stream = new CudaStream(this, out[0] as CuHandle, options.nonBlocking === true);
    this.streams.add(stream);
    return stream;
  }

  /** A new event; `timing: false` makes it cheaper but unusable for elapsed time. */
  createEvent(options: { timing?: boolean; blockingSync?: boolean } = {}): CudaEvent {
    this.makeCurrent();
    const flags = (options.timing === false ? CU_EVENT.DISABLE_TIMING : 0) | (options.blockingSync ? CU_EVENT.BLOCKING_SYNC : 0);
    const out: Out<CuHandle | null> = [null];
    this.call("cuEventCreate", this.driver.api.cuEventCreate(out, flags));
    const event = new CudaEvent(this, out[0] as CuHandle);
    this.events.add(event);
    return event;
  }

  /** Milliseconds between two recorded, completed events (cuEventElapsedTime). */
  elapsedMillis(start: CudaEvent, end: CudaEvent): number {
    this.makeCurrent();
    const out: Out<number> = [0];
    this.call(this.driver.info.symbols.eventElapsedTime, this.driver.api.cuEventElapsedTime(out, start.handle, end.handle));
    return out[0];
  }

  /** @internal */
  forgetStream(stream: CudaStream): void {
    this.streams.delete(stream);
  }

  /** @internal */
  forgetEvent(event: CudaEvent): void {
    this.events.delete(event);
  }

  /** @internal For cuStreamQuery / cuEventQuery: true when done, false when CUDA_ERROR_NOT_READY, else throws. */
  ready(call: string, result: number): boolean {
    if (result === CUDA_ERROR_NOT_READY) return false;
    this.call(call, result);
    return true;
  }

  /** @internal Throws a CudaDriverError for `result` unless it is CUDA_SUCCESS. */
  call(call: string, result: number, options: CudaDriverErrorDetails = {}): void {
    if (result === CUDA_SUCCESS) return;
    this.fail(call, result, options);
  }

  private fail(call: string, result: number, options: CudaDriverErrorDetails): never {
    const details = isStickyCuResult(result) ? this.stickyDetails(call, options) : options;
    const error = CudaDriverError.from(this.driver, call, result, details);
    if (!error.contextUsable) this.sticky ??= error;
    throw error;
  }

  /**
   * A sticky error is a fault of work already on the GPU, reported by whatever call comes next —
   * a synchronization, but just as well a launch, a module load or an allocation. The kernel that
   * call is about (the one being launched or looked up) did not run: blame the kernels launched
   * since the last synchronization instead, and say which call reported it.
   */
  private stickyDetails(call: string, options: CudaDriverErrorDetails): CudaDriverErrorDetails {
    const { kernel: kernelOfCall, ...rest } = options;
    const details: CudaDriverErrorDetails = rest;
    const candidates = this.kernelsSinceSync;
    if (candidates.length > 0) details.kernelsSinceSync = [...candidates];
    if (candidates.length === 1) details.kernel = candidates[0] as string;
    if (kernelOfCall !== undefined && !candidates.includes(kernelOfCall)) {
      const notRun = `${call} for kernel ${kernelOfCall} only reported the error: that kernel did not run.`;
      details.note = details.note ? `${details.note} ${notRun}` : notRun;
    }
    return details;
  }

  /** @internal */
  streamHandle(stream: CudaStream | null): CuHandle | null {
    if (stream === null) return null;
    if (stream.context !== this) throw new CudaUsageError("CSD006", "the stream belongs to another CUDA context");
    if (stream.destroyed) throw new CudaUsageError("CSD005", "the stream was destroyed");
    return stream.handle;
  }

  // Device memory is named by its allocation handle (plus an offset), never by a bare address:
  // the driver reuses freed addresses, so a stale address could land inside a newer allocation.
  // Returns the device address to pass to the driver.
  private checkRange(memory: DeviceMemory, bytes: number, what: string): DevicePointer {
    const allocation = memory instanceof DeviceAllocation ? memory : memory instanceof DeviceRange ? memory.allocation : undefined;
    if (!allocation) throw new CudaUsageError("CSD006", `${what}: ${describeDevice(memory)} is not device memory from CudaContext.alloc (use allocation.at(offset) for an address inside one)`);
    const offset = memory instanceof DeviceRange ? memory.offset : 0;
    const where = `0x${(allocation.pointer + BigInt(offset)).toString(16)}`;
    if (allocation.context !== this) throw new CudaUsageError("CSD006", `${what}: device memory ${where} belongs to another CUDA context`);
    if (allocation.freed) throw new CudaUsageError("CSD006", `${what}: device memory ${where} was freed`);
    if (offset + bytes > allocation.bytes) {
      const at = offset === 0 ? "" : ` at offset ${offset}`;
      throw new CudaUsageError("CSD006", `${what}: ${bytes} bytes${at} overrun the ${allocation.bytes}-byte allocation at 0x${allocation.pointer.toString(16)}`);
    }
    return allocation.pointer + BigInt(offset);
  }
}

/** One device allocation from CudaContext.alloc: the handle that identifies it (its address may be reused after free). */
export class DeviceAllocation {
  private isFreed = false;

  /** @internal */
  constructor(
    readonly context: CudaContext,
    /** The device address (what kernels receive). */
    readonly pointer: DevicePointer,
    readonly bytes: number,
  ) {}

  get freed(): boolean {
    return this.isFreed;
  }

  /** The address `offset` bytes into this allocation, for copies and memset (0 ≤ offset ≤ bytes). */
  at(offset: number): DeviceRange {
    if (!Number.isSafeInteger(offset) || offset < 0 || offset > this.bytes) {
      throw new CudaUsageError("CSD006", `offset ${offset} is outside the ${this.bytes}-byte allocation at 0x${this.pointer.toString(16)}`);
    }
    return new DeviceRange(this, offset);
  }

  /** @internal */
  markFreed(): void {
    this.isFreed = true;
  }
}

/** An address inside a DeviceAllocation (allocation.at(offset)). */
export class DeviceRange {
  /** @internal */
  constructor(
    readonly allocation: DeviceAllocation,
    readonly offset: number,
  ) {}

  get pointer(): DevicePointer {
    return this.allocation.pointer + BigInt(this.offset);
  }
}

/**
 * A module-scope variable of a loaded module (a `__device__` global), from CudaModule.getGlobal:
 * device memory to copy from and to like an allocation, owned by the module (gone when it is
 * unloaded; CudaContext.free refuses it).
 */
export class ModuleGlobal extends DeviceAllocation {
  /** @internal */
  constructor(
    context: CudaContext,
    pointer: DevicePointer,
    bytes: number,
    readonly module: CudaModule,
    readonly name: string,
  ) {
    super(context, pointer, bytes);
  }
}

/** Device memory for copies and memset: an allocation (its start) or an address inside one. */
export type DeviceMemory = DeviceAllocation | DeviceRange;

function describeDevice(value: unknown): string {
  if (value instanceof DeviceAllocation) return `device allocation 0x${value.pointer.toString(16)}`;
  if (typeof value === "bigint") return `the bare address 0x${value.toString(16)}`;
  return `a ${value === null ? "null" : typeof value}`;
}

/** A loaded module; get kernels from it with getFunction(). */
export class CudaModule {
  private readonly functions = new Map<string, CudaFunction>();
  private readonly globals = new Map<string, ModuleGlobal>();
  private unloaded = false;
  /** The kernels the PTX declares, with their parameter sizes. */
  readonly entries: { name: string; params: PtxParam[] }[];

  /** @internal */
  constructor(
    readonly context: CudaContext,
    readonly handle: CuHandle,
    /** SHA-256 of the PTX (the cache key). */
    readonly hash: string,
    ptx: string,
    /** The JIT's info log (with verbose: the ptxas-style resource report). */
    readonly infoLog: string,
    /** JIT wall time in milliseconds, as the driver reported it. */
    readonly jitMillis: number | undefined,
  ) {
    this.entries = parsePtx(ptx).entries;
  }

  /** The kernel `name` (its `extern "C"` / PTX entry name); cached. */
  getFunction(name: string): CudaFunction {
    if (this.unloaded) throw new CudaUsageError("CSD005", "the module was unloaded");
    let fn = this.functions.get(name);
    if (!fn) {
      const handle = this.context.getFunctionHandle(this, name);
      fn = new CudaFunction(this, name, handle, this.entries.find((e) => e.name === name)?.params);
      this.functions.set(name, fn);
    }
    return fn;
  }

  /**
   * The module-scope variable `name` (its `extern "C"` / PTX name), by cuModuleGetGlobal; cached.
   * A name the module does not define is CUDA_ERROR_NOT_FOUND.
   */
  getGlobal(name: string): ModuleGlobal {
    if (this.unloaded) throw new CudaUsageError("CSD005", "the module was unloaded");
    let g = this.globals.get(name);
    if (!g) {
      const { pointer, bytes } = this.context.getGlobalAddress(this, name);
      g = new ModuleGlobal(this.context, pointer, bytes, this, name);
      this.globals.set(name, g);
    }
    return g;
  }

  /** cuModuleUnload (also drops it from the context's cache). */
  unload(): void {
    if (this.unloaded) throw new CudaUsageError("CSD005", "the module was already unloaded");
    this.unloaded = true;
    this.forgetGlobals();
    this.context.unloadModule(this, false);
  }

  /** @internal */
  unloadQuietly(): void {
    if (this.unloaded) return;
    this.unloaded = true;
    this.forgetGlobals();
    this.context.unloadModule(this, true);
  }

  /** The module's variables go with it: copies through a ModuleGlobal kept past the unload are refused. */
  private forgetGlobals(): void {
    for (const g of this.globals.values()) g.markFreed();
    this.globals.clear();
  }
}

export class CudaFunction {
  /** @internal Cached CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES. */
  dynamicSharedLimit: number | undefined;

  /** @internal */
  constructor(
    readonly module: CudaModule,
    readonly name: string,
    readonly handle: CuHandle,
    /** Parameter sizes from the PTX signature, when it could be read. */
    readonly params: readonly PtxParam[] | undefined,
  ) {}

  attributes(): CudaFunctionAttributes {
    return this.module.context.functionAttributes(this);
  }
}

export class CudaStream {
  destroyed = false;

  /** @internal */
  constructor(
    readonly context: CudaContext,
    readonly handle: CuHandle,
    /** Created with CU_STREAM_NON_BLOCKING: not ordered with the NULL stream. */
    readonly nonBlocking = false,
  ) {}

  /** Blocks until all work on this stream is done. */
  synchronize(): void {
    this.alive();
    this.context.makeCurrent();
    this.context.call("cuStreamSynchronize", this.context.driver.api.cuStreamSynchronize(this.handle));
    this.context.streamCompleted(this);
  }

  /** True when all work issued on this stream is done (cuStreamQuery). */
  query(): boolean {
    this.alive();
    this.context.makeCurrent();
    const done = this.context.ready("cuStreamQuery", this.context.driver.api.cuStreamQuery(this.handle));
    if (done) this.context.streamCompleted(this);
    return done;
  }

  /** Waits for all work on this stream without blocking the event loop (polls query()). */
  synchronizeAsync(): Promise<void> {
    return pollUntil(() => this.query());
  }

  destroy(): void {
    this.alive();
    this.destroyed = true;
    this.context.forgetStream(this);
    this.context.makeCurrent();
    this.context.call("cuStreamDestroy_v2", this.context.driver.api.cuStreamDestroy_v2(this.handle));
  }

  /** @internal */
  destroyQuietly(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.context.forgetStream(this);
    this.context.driver.api.cuStreamDestroy_v2(this.handle);
  }

  private alive(): void {
    if (this.destroyed) throw new CudaUsageError("CSD005", "the stream was destroyed");
  }
}

export class CudaEvent {
  destroyed = false;

  /** @internal */
  constructor(
    readonly context: CudaContext,
    readonly handle: CuHandle,
  ) {}

  /** Records the event on `stream` (default: the NULL stream). */
  record(stream: CudaStream | null = null): void {
    this.alive();
    this.context.makeCurrent();
    this.context.call("cuEventRecord", this.context.driver.api.cuEventRecord(this.handle, this.context.streamHandle(stream)));
  }

  /** Blocks until the work recorded before this event is done. */
  synchronize(): void {
    this.alive();
    this.context.makeCurrent();
    this.context.call("cuEventSynchronize", this.context.driver.api.cuEventSynchronize(this.handle));
  }

  /**
   * True when the work before the event's last record has completed (cuEventQuery); also true for
   * an event that was never recorded (nothing to wait for), as in CUDA.
   */
  query(): boolean {
    this.alive();
    return this.context.ready("cuEventQuery", this.context.driver.api.cuEventQuery(this.handle));
  }

  /** Waits for the event without blocking the event loop (polls query()). */
  synchronizeAsync(): Promise<void> {
    return pollUntil(() => this.query());
  }

  /** Milliseconds from `start` to this event (both recorded and complete). */
  elapsedSince(start: CudaEvent): number {
    this.alive();
    return this.context.elapsedMillis(start, this);
  }

  destroy(): void {
    this.alive();
    this.destroyed = true;
    this.context.forgetEvent(this);
    this.context.makeCurrent();
    this.context.call("cuEventDestroy_v2", this.context.driver.api.cuEventDestroy_v2(this.handle));
  }

  /** @internal */
  destroyQuietly(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.context.forgetEvent(this);
    this.context.driver.api.cuEventDestroy_v2(this.handle);
  }

  private alive(): void {
    if (this.destroyed) throw new CudaUsageError("CSD005", "the event was destroyed");
  }
}

/**
 * Resolves once `done()` is true, checking it from the event loop: at once, then after growing
 * pauses (0, 1, 2 ms, capped at 2 ms) so a short wait costs little and a long one little CPU.
 * Rejects with what `done()` throws (e.g. the kernel fault a query reports).
 */
function pollUntil(done: () => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    let pause = 0;
    const check = (): void => {
      try {
        if (done()) return resolve();
      } catch (e) {
        return reject(e instanceof Error ? e : new Error(String(e)));
      }
      setTimeout(check, pause);
      pause = Math.min(2, pause + 1);
    };
    check();
  });
}

// ----------------------------------------------------------------------------------------------
// kernelParams

/**
 * Builds `void *kernelParams[n]` in one reusable native-stable buffer: the n pointers first, then
 * each argument's bytes at a 16-byte-aligned offset; kernelParams[i] points at argument i. The
 * buffer is an ArrayBuffer (its memory never moves), and the driver copies the arguments during
 * cuLaunchKernel, so the same buffer serves every launch.
 */
export class ParamScratch {
  private bytes = new Uint8Array(new ArrayBuffer(1024));
  private base = koffi.address(this.bytes);

  /** Packs `args` and returns the address of the pointer array (null when there are no arguments). */
  pack(args: readonly ArrayBufferView[]): bigint | null {
    if (args.length === 0) return null;
    const table = align16(args.length * 8);
    let size = table;
    for (const arg of args) size += align16(Math.max(arg.byteLength, 1));
    if (size > this.bytes.length) {
      let capacity = this.bytes.length;
      while (capacity < size) capacity *= 2;
      this.bytes = new Uint8Array(new ArrayBuffer(capacity));
      this.base = koffi.address(this.bytes);
    }
    const view = new DataView(this.bytes.buffer);
    let offset = table;
    args.forEach((arg, i) => {
      view.setBigUint64(i * 8, this.base + BigInt(offset), true);
      this.bytes.set(new Uint8Array(arg.buffer, arg.byteOffset, arg.byteLength), offset);
      offset += align16(Math.max(arg.byteLength, 1));
    });
    return this.base;
  }
}

const paramScratch = new WeakMap<CudaDriver, ParamScratch>(); // one kernelParams buffer per driver

function align16(n: number): number {
  return Math.ceil(n / 16) * 16;
}

function checkArguments(fn: CudaFunction, args: readonly ArrayBufferView[]): void {
  const params = fn.params;
  if (!params) return;
  if (args.length !== params.length) {
    const sizes = params.map((p) => p.size).join(", ");
    throw new CudaUsageError(
      "CSD006",
      `kernel ${fn.name} takes ${params.length} parameter${params.length === 1 ? "" : "s"}` +
        `${params.length ? ` (${sizes} bytes)` : ""}, but ${args.length} argument buffer${args.length === 1 ? " was" : "s were"} given`,
    );
  }
  params.forEach((param, i) => {
    const arg = args[i] as ArrayBufferView;
    if (arg.byteLength !== param.size) {
      throw new CudaUsageError(
        "CSD006",
        `argument ${i} of kernel ${fn.name} is ${arg.byteLength} bytes, but parameter ${param.name} (${param.type}) is ${param.size} bytes`,
      );
    }
  });
}

function dims(d: Dim3, what: string, kernel: string): [number, number, number] {
  const triple: [number, number, number] =
    typeof d === "number" ? [d, 1, 1] : Array.isArray(d) ? [d[0] ?? 1, d[1] ?? 1, d[2] ?? 1] : [(d as { x: number }).x, (d as { y?: number }).y ?? 1, (d as { z?: number }).z ?? 1];
  for (const n of triple) {
    if (!Number.isInteger(n) || n < 1 || n > 0xffffffff) {
      throw new CudaUsageError("CSD006", `launch of ${kernel}: ${what} dimensions must be positive integers, got [${triple.join(", ")}]`);
    }
  }
  return triple;
}

function cString(buffer: Uint8Array): string {
  const end = buffer.indexOf(0);
  return Buffer.from(buffer.subarray(0, end < 0 ? buffer.length : end)).toString("utf8");
}
