/**
 * The simulator's implementation of the Backend interface. Device memory is SharedArrayBuffers (so
 * worker threads can run blocks against it); everything completes before the call returns, which
 * satisfies the asynchronous contract trivially. Events record wall-clock time when recorded.
 */
import { checkUninitializedMemory, poisonLaunch } from "./poison";
import { unwrittenCopyMessage, WrittenMemory, type AllocationOrigin } from "./sanitizer/written";
import { DTYPES } from "@cudascript/compiler/dtypes";
import type { Backend, DeviceBuffer, DeviceInfo, DeviceLimits, EventHandle, KernelArg, KernelArtifact, LaunchConfig, ModuleHandle, StreamHandle } from "../backend";
import * as os from "node:os";
import { CudaScriptError } from "../errors";
import { formatBytes, parseBytes } from "../sizes";
import { defaultWorkers, Executor, type ArgDesc } from "./executor";
import { checkSimulatorOptions, SIMULATOR_ABI, type SimulatorOptions } from "./options";
import type { PrivSpec } from "./privatize";
import { cooperativeLaunchTooLarge, simulatorCoResidentBlocks } from "./co-residency";
import { spanElements } from "../layout";
import { reclaimFreedMemory, worthReclaiming } from "./reclaim";
import { AddressSpace, type Allocation } from "./address-space";
import { exportSimulatorIpc, forgetExport, openSimulatorIpc } from "./ipc";
import { profilingGpus } from "../profiler/session";
import { runProfiled } from "../profiler/launch";

export { checkSimulatorOptions, SIMULATOR_ABI, type SimulatorOptions } from "./options";

/** V8's longest typed array (2^32 elements): the simulator's copies and kernels view an array's bytes through one. */
const MAX_ARRAY_BYTES = 2 ** 32;

/** The share of the machine's memory the simulated device has by default: the rest is the host program's. */
const DEFAULT_MEMORY_SHARE = 0.5;

/**
 * The memory of one simulated allocation, the payload of its range in the address space: shared by
 * its SimBuffer and any foreign view of it (a pointer resolved in the address space gives another
 * SimBuffer over the same range), so freeing the allocation frees it for all of them. Undefined once
 * freed (the program's own references to the array do not keep the memory alive). A
 * SharedArrayBuffer (workers run blocks against it), or — once shared with another process through
 * an IPC handle — a file mapping (simulator/ipc.ts), which kernels use on the main thread only.
 */
export type SimMemory = ArrayBufferLike | undefined;

/** Allocations opened from another process's IPC handle: not this process's to export again. */
const importedAllocations = new WeakSet<Allocation<SimMemory>>();

export class SimBuffer implements DeviceBuffer {
  readonly backend = "simulator" as const;
  constructor(
    readonly bytes: number,
    /** @internal its range in the simulator's address space (address-space.ts), whose payload is its memory */
    readonly allocation: Allocation<SimMemory>,
  ) {}
  /** Its device address: 256-byte aligned. */
  get address(): number {
    return this.allocation.address;
  }
  get freed(): boolean {
    return this.allocation.payload === undefined;
  }
  /** Opened from another process's IPC handle. */
  get imported(): boolean {
    return importedAllocations.has(this.allocation);
  }
  /** The memory of a live buffer; CSR010 once freed. */
  get memory(): ArrayBufferLike {
    const store = this.allocation.payload;
    if (!store) throw new CudaScriptError("CSR010", "this device array was freed");
    return store;
  }
  /** @internal moves a live buffer's bytes to other memory (an IPC export's file mapping). */
  replaceMemory(memory: ArrayBufferLike): void {
    this.allocation.payload = memory;
  }
  release(): void {
    this.allocation.payload = undefined;
  }
}

/**
 * The simulator's launch limits model an sm_80 GPU (A100, the CUDA Programming Guide's compute
 * capability 8.0 column): 48 KiB of static shared memory per block, up to 163 KiB of static +
 * dynamic shared memory once a kernel opts in — as the GPU backend does automatically — so that a
 * launch the simulator accepts also launches on such a GPU (docs/simulator.md).
 */
export const SIMULATOR_LIMITS: DeviceLimits = {
  maxThreadsPerBlock: 1024,
  maxBlockDim: [1024, 1024, 64],
  maxGridDim: [2147483647, 65535, 65535],
  maxSharedPerBlock: 48 * 1024,
  maxSharedPerBlockOptin: 163 * 1024,
  warpSize: 32,
};

export function simulatorOptionsFromEnv(): SimulatorOptions {
  const env = process.env;
  const uninitializedShared = (env.CUDASCRIPT_UNINITIALIZED_SHARED || "error") as SimulatorOptions["uninitializedShared"];
  checkSimulatorOptions({ uninitializedShared }, "CUDASCRIPT_UNINITIALIZED_SHARED");
  const uninitialized = (env.CUDASCRIPT_UNINITIALIZED || "zero") as SimulatorOptions["uninitialized"];
  checkUninitializedMemory(uninitialized, "CUDASCRIPT_UNINITIALIZED");
  const deadline = env.CUDASCRIPT_DEADLINE && /^\d+$/.test(env.CUDASCRIPT_DEADLINE) ? Number(env.CUDASCRIPT_DEADLINE) : Infinity;
  return {
    workers: defaultWorkers(),
    inProcessThreshold: env.CUDASCRIPT_INPROCESS_THRESHOLD && /^\d+$/.test(env.CUDASCRIPT_INPROCESS_THRESHOLD) ? Number(env.CUDASCRIPT_INPROCESS_THRESHOLD) : 32768,
    mainThreadExecutes: env.CUDASCRIPT_MAIN_EXECUTES !== "0",
    sanitize: env.CUDASCRIPT_SANITIZE === "1" || env.CUDASCRIPT_SANITIZE === "true",
    deadline,
    deadlineLabel: env.CUDASCRIPT_DEADLINE_LABEL || undefined,
    print: (text) => process.stdout.write(text),
    privatize: env.CUDASCRIPT_PRIVATIZE !== "0" && env.CUDASCRIPT_PRIVATIZE !== "false",
    adaptive: env.CUDASCRIPT_ADAPTIVE !== "0" && env.CUDASCRIPT_ADAPTIVE !== "false",
    memoryLimit: env.CUDASCRIPT_SIM_MEMORY ? memoryLimitFromEnv(env.CUDASCRIPT_SIM_MEMORY) : Math.floor(os.totalmem() * DEFAULT_MEMORY_SHARE),
    uninitializedShared,
    uninitialized,
    warn: (text) => void process.stderr.write(text),
  };
}

function memoryLimitFromEnv(text: string): number {
  const n = parseBytes(text);
  if (n === undefined || n <= 0)
    throw new CudaScriptError("CSR018", `CUDASCRIPT_SIM_MEMORY=${text} is not a memory size: write a whole number of bytes or a size such as 512MiB or 8GiB`);
  return n;
}

function checkMemoryLimit(n: unknown): number {
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n <= 0)
    throw new CudaScriptError("CSR018", `configureSimulator: memoryLimit is the simulated device's memory in bytes, a whole number > 0 (e.g. 8 * 2 ** 30 for 8 GiB), got ${typeof n === "number" ? n : typeof n}`);
  return n;
}

/** The worker script this simulator's large launches start (`cudascript doctor` checks that one). */
export { WORKER_FILE as SIMULATOR_WORKER_FILE } from "./executor";

let nextHandle = 1;

/** Most virtual devices the simulator offers: more than any node has GPUs. */
const MAX_VIRTUAL_DEVICES = 64;

function virtualDeviceCount(): number {
  const text = process.env.CUDASCRIPT_SIM_DEVICES;
  if (text === undefined || text === "") return 1;
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > MAX_VIRTUAL_DEVICES)
    throw new CudaScriptError("CSR018", `CUDASCRIPT_SIM_DEVICES=${text} is not a number of virtual devices: write a whole number from 1 to ${MAX_VIRTUAL_DEVICES}`);
  return Number(text);
}

/** CUDASCRIPT_DEVICE when it names a virtual device, else 0 (as the GPU backend falls back to device 0). */
function initialDevice(count: number): number {
  const text = process.env.CUDASCRIPT_DEVICE;
  return text && /^\d+$/.test(text) && Number(text) < count ? Number(text) : 0;
}

export class SimulatorBackend implements Backend {
  readonly kind = "simulator" as const;
  readonly limits = SIMULATOR_LIMITS;
  private readonly executor: Executor;
  private readonly modules = new Map<string, ModuleHandle>();
  private readonly events = new Map<number, number>();
  private opts: SimulatorOptions;
  /** Bytes of device memory allocated and neither freed nor garbage-collected. */
  private inUse = 0;
  /** Every allocation's device address (address-space.ts): pointers in interface descriptors resolve to buffers. */
  readonly addressSpace = new AddressSpace<SimMemory>();
  /** Under the sanitizer: which bytes of new arrays something wrote (sanitizer/written.ts). */
  private readonly written = new WrittenMemory();
  /** Arrays the program dropped without free() give their bytes and their addresses back when collected, as on the GPU backend. */
  private readonly collected = new FinalizationRegistry<Allocation<SimMemory>>((a) => {
    if (!this.addressSpace.release(a)) return;
    this.inUse -= a.bytes;
    a.payload = undefined; // unreachable now, as the SimBuffer that held it
  });
  /** Bytes freed since memory was last reclaimed (reclaim.ts): free() gives memory back, not only the budget. */
  private freedSinceReclaim = 0;

  constructor(
    readonly description = "simulator",
    opts: Partial<SimulatorOptions> = {},
  ) {
    checkSimulatorOptions(opts);
    this.opts = { ...simulatorOptionsFromEnv(), ...opts };
    checkMemoryLimit(this.opts.memoryLimit);
    this.executor = new Executor(this.execOptions());
  }

  /** Device memory in use (bytes): allocated, not yet freed or collected. */
  get memoryInUse(): number {
    return this.inUse;
  }

  private execOptions() {
    const o = this.opts;
    return { workers: o.workers, inProcessThreshold: o.inProcessThreshold, mainThreadExecutes: o.mainThreadExecutes, deadline: o.deadline, deadlineLabel: o.deadlineLabel, print: o.print, privatize: o.privatize, adaptive: o.adaptive, uninitializedShared: o.uninitializedShared, warn: o.warn };
  }

  get options(): Readonly<SimulatorOptions> {
    return this.opts;
  }

  configure(opts: Partial<SimulatorOptions>): void {
    if (opts.memoryLimit !== undefined) checkMemoryLimit(opts.memoryLimit);
    checkSimulatorOptions(opts);
    this.opts = { ...this.opts, ...opts };
    this.executor.configure(this.execOptions());
  }

  /**
   * The simulated node's devices: one, or CUDASCRIPT_SIM_DEVICES virtual ones (`cudascript launch`
   * gives a job of n ranks on one machine n of them, and each rank its own, CUDASCRIPT_DEVICE), so a
   * multi-GPU program sees the devices it would on a multi-GPU node. They share the host's memory budget.
   */
  private readonly deviceCount = virtualDeviceCount();
  private currentDevice = initialDevice(this.deviceCount);

  devices(): readonly DeviceInfo[] {
    return Array.from({ length: this.deviceCount }, (_, id) => ({ id, name: "CudaScript simulator", arch: "sim", totalMemory: this.opts.memoryLimit, multiprocessors: this.opts.workers }));
  }

  /** The device `cuda.selectDevice` chose (0 unless there are virtual devices). */
  get selectedDevice(): number {
    return this.currentDevice;
  }

  selectDevice(id: number): void {
    if (!Number.isInteger(id) || id < 0 || id >= this.deviceCount)
      throw new CudaScriptError("CSR014", `device ${id} does not exist: the simulator has ${this.deviceCount === 1 ? "one device, 0" : `${this.deviceCount} virtual devices, 0 to ${this.deviceCount - 1} (CUDASCRIPT_SIM_DEVICES)`}`);
    this.currentDevice = id;
  }

  alloc(bytes: number): DeviceBuffer {
    if (!Number.isInteger(bytes) || bytes < 0) throw new CudaScriptError("CSR013", `cannot allocate ${bytes} bytes`);
    const limit = this.opts.memoryLimit;
    if (bytes > MAX_ARRAY_BYTES) throw this.outOfMemory(bytes, `the simulator holds at most ${formatBytes(MAX_ARRAY_BYTES)} in one array, the most a JavaScript typed array can view`);
    if (this.inUse + bytes > limit) throw this.outOfMemory(bytes, "the simulated device has no more");
    let memory: SharedArrayBuffer;
    try {
      memory = new SharedArrayBuffer(bytes);
    } catch (e) {
      if (e instanceof RangeError) throw this.outOfMemory(bytes, "the machine could not provide it");
      throw e;
    }
    return this.place(bytes, memory, false);
  }

  /** Gives `memory` an address and a buffer (imported: another process's, opened from an IPC handle). */
  place(bytes: number, memory: ArrayBufferLike, imported: boolean): SimBuffer {
    const at = this.addressSpace.allocate(bytes, memory);
    if (!at) throw this.outOfMemory(bytes, "its address space is exhausted");
    if (imported) importedAllocations.add(at);
    const buffer = new SimBuffer(bytes, at);
    this.inUse += bytes;
    this.collected.register(buffer, at, buffer);
    return buffer;
  }

  /** The device address of a buffer (as a bigint, as C's pointers are). */
  addressOf(buffer: DeviceBuffer): bigint {
    // A pointer handed out: writes through it are out of the simulator's sight.
    this.written.drop(this.own(buffer).allocation);
    return BigInt(this.own(buffer).address);
  }

  /**
   * The live allocation holding [pointer, pointer + bytes) and the offset in it: a foreign view of
   * simulator memory aliases the allocation's own bytes. CSR062 when no allocation holds the range.
   */
  resolve(pointer: bigint, bytes: number, what: string): { buffer: SimBuffer; byteOffset: number } {
    const found = pointer <= BigInt(Number.MAX_SAFE_INTEGER) && pointer >= 0n ? this.addressSpace.find(Number(pointer), bytes) : undefined;
    if (!found || found.allocation.payload === undefined)
      throw new CudaScriptError(
        "CSR062",
        `${what}: the pointer 0x${pointer.toString(16)} (${bytes} bytes) is outside every live allocation of the simulated device (its memory starts at 0x${this.addressSpace.base.toString(16)}): pass the pointer of a live device array — its __cuda_array_interface__.data[0] — and a shape and strides that stay inside it`,
      );
    const a = found.allocation;
    // Another buffer object over the same memory: freeing the allocation frees it too.
    return { buffer: new SimBuffer(a.bytes, a), byteOffset: found.offset };
  }

  /** The simulated device's memory is host memory: a mapped or managed array is a device buffer's own. */
  allocHostVisible(bytes: number): { host: ArrayBufferLike; device: DeviceBuffer } {
    const device = this.alloc(bytes);
    return { host: this.mem(device), device };
  }

  private outOfMemory(bytes: number, why: string): CudaScriptError {
    return new CudaScriptError(
      "CSR016",
      `out of device memory: asked ${formatBytes(bytes)}, ${formatBytes(this.inUse)} of ${formatBytes(this.opts.memoryLimit)} in use (${why}). ` +
        `Free device arrays you no longer need with .free(), use smaller arrays, or give the simulator more memory with CUDASCRIPT_SIM_MEMORY (e.g. CUDASCRIPT_SIM_MEMORY=16GiB)`,
    );
  }

  free(buffer: DeviceBuffer): void {
    const b = this.own(buffer);
    if (b.freed) return;
    forgetExport(b);
    // The written map is as large as the array: it goes with it, not when the array object is collected.
    this.written.drop(b.allocation);
    b.release();
    this.collected.unregister(b);
    this.addressSpace.release(b.allocation);
    this.inUse -= b.bytes;
    this.freedSinceReclaim += b.bytes;
    if (worthReclaiming(this.freedSinceReclaim)) {
      this.freedSinceReclaim = 0;
      reclaimFreedMemory();
      this.executor.reclaimFreedMemory();
    }
  }

  private own(b: DeviceBuffer): SimBuffer {
    if (!(b instanceof SimBuffer)) throw new CudaScriptError("CSR014", "this device buffer does not belong to the simulator");
    return b;
  }

  private mem(b: DeviceBuffer): ArrayBufferLike {
    return this.own(b).memory;
  }

  /** A foreign view of simulator memory is a view of the allocation holding it (CSR062 outside every one). */
  foreignMemory(pointer: bigint, bytes: number, what: string): { buffer: DeviceBuffer; byteOffset: number } {
    return this.resolve(pointer, bytes, what);
  }

  /** Everything completes before returning: every stream is always idle. */
  synchronizeRawStream(): void {}

  exportIpc(buffer: DeviceBuffer): Uint8Array {
    const b = this.own(buffer);
    if (b.freed) throw new CudaScriptError("CSR010", "getIpcHandle: this device array was freed");
    // Another process writes it from now on, out of the written map's sight.
    this.written.drop(b.allocation);
    return exportSimulatorIpc(b);
  }

  openIpc(handle: Uint8Array, bytes: number): { buffer: DeviceBuffer; close(): void } {
    const buffer = openSimulatorIpc(handle, bytes, (size, memory) => this.place(size, memory, true));
    return { buffer, close: () => this.free(buffer) };
  }

  copyHtoD(dst: DeviceBuffer, dstOffset: number, src: ArrayBufferView): void {
    new Uint8Array(this.mem(dst), dstOffset, src.byteLength).set(new Uint8Array(src.buffer, src.byteOffset, src.byteLength));
    this.written.mark(this.own(dst).allocation, dstOffset, src.byteLength);
  }

  copyDtoH(dst: ArrayBufferView, src: DeviceBuffer, srcOffset: number): void {
    new Uint8Array(dst.buffer, dst.byteOffset, dst.byteLength).set(new Uint8Array(this.mem(src), srcOffset, dst.byteLength));
  }

  copyDtoD(dst: DeviceBuffer, dstOffset: number, src: DeviceBuffer, srcOffset: number, bytes: number): void {
    new Uint8Array(this.mem(dst), dstOffset, bytes).set(new Uint8Array(this.mem(src), srcOffset, bytes));
    this.written.mark(this.own(dst).allocation, dstOffset, bytes);
  }

  memset(dst: DeviceBuffer, offset: number, bytes: number, value: number): void {
    new Uint8Array(this.mem(dst), offset, bytes).fill(value);
    this.written.mark(this.own(dst).allocation, offset, bytes);
  }

  /** Under the sanitizer: a new array's written map (sanitizer/written.ts); `origin` undefined stops tracking it. */
  trackUnwritten(buffer: DeviceBuffer, item: number, origin: (() => AllocationOrigin) | undefined): void {
    const a = this.own(buffer).allocation;
    if (origin && this.opts.sanitize) this.written.track(a, buffer.bytes, item, origin());
    else this.written.drop(a);
  }

  /** Under the sanitizer: CSR069 (a warning, once per array) when an element of the copy was never written. */
  checkCopyToHost(buffer: DeviceBuffer, byteOffset: number, dtype: string, itemBytes: number, shape: readonly number[], elementStrides: readonly number[]): void {
    const a = this.own(buffer).allocation;
    const found = this.written.unwritten(a, byteOffset, itemBytes, shape, elementStrides);
    if (!found) {
      // Every element of the whole array written: it stays so (nothing un-writes), and its kernels stop marking.
      if (byteOffset === 0 && shape.reduce((x, y) => x * y, 1) * itemBytes === buffer.bytes) this.written.drop(a);
      return;
    }
    this.written.drop(a);
    this.opts.warn(`cudascript: CSR069 warning: ${unwrittenCopyMessage(dtype, shape, found)}\n`);
  }

  loadModule(artifact: KernelArtifact): ModuleHandle {
    const abi = artifact.simulator?.abi;
    if (abi !== SIMULATOR_ABI)
      throw new CudaScriptError(
        "CSR002",
        `the kernels of ${artifact.file} were compiled for simulator ABI ${abi ?? "(none)"}, but this runtime runs ABI ${SIMULATOR_ABI}: rebuild the program with this version of CudaScript`,
      );
    let m = this.modules.get(artifact.hash);
    if (!m) {
      m = { artifact };
      this.modules.set(artifact.hash, m);
    }
    return m;
  }

  launch(module: ModuleHandle, kernel: string, config: LaunchConfig, args: readonly KernelArg[]): void {
    const a = module.artifact;
    const sanitize = this.opts.sanitize;
    const cooperative = a.kernels[kernel]?.simulator.cooperative === true;
    if (cooperative) {
      const blocks = config.grid[0] * config.grid[1] * config.grid[2];
      const threads = config.block[0] * config.block[1] * config.block[2];
      const limit = simulatorCoResidentBlocks(threads, a.kernels[kernel]?.staticSharedBytes ?? 0, config.sharedMem);
      if (blocks > limit) throw cooperativeLaunchTooLarge(kernel, blocks, threads, limit, "the simulator's modelled device (an A100: sm_80, 108 SMs)");
    }
    const descs = this.argDescs(args);
    if (profilingGpus()) {
      // Sectors are counted at the arrays' device addresses (256-byte aligned, as cudaMalloc's).
      const addresses = new Map(args.flatMap((x) => (x.kind === "array" ? [[this.mem(x.buffer), this.own(x.buffer).address] as const] : [])));
      return runProfiled(this.executor, a, { kernel, grid: config.grid, block: config.block, sharedMem: config.sharedMem, args: descs, cooperative }, addresses);
    }
    this.executor.run({
      variant: { key: `${a.hash}:${sanitize ? "san" : "fast"}`, source: sanitize ? a.simulator.jsSanitize : a.simulator.js },
      kernel,
      grid: config.grid,
      block: config.block,
      sharedMem: config.sharedMem,
      args: descs,
      privatize: a.kernels[kernel]?.simulator.privatize as readonly PrivSpec[] | undefined,
      atomics: a.kernels[kernel]?.simulator.atomics,
      cooperative,
      ...(sanitize ? { sanitize: true } : {}),
      poison: poisonLaunch(this.opts.uninitialized),
    });
  }

  /** A launch's arguments as the executor (and the debugger's stepping backend) takes them: device memory as its SharedArrayBuffer. */
  protected argDescs(args: readonly KernelArg[]): ArgDesc[] {
    return args.map((x) => {
      if (x.kind === "scalar") return { kind: "scalar", value: x.value };
      // The typed array the kernel indexes covers every element the layout reaches.
      const length = spanElements(x.shape, x.strides);
      // The written map travels with a sanitized launch (the kernel marks it); a plain launch's writes
      // are not marked, so the array stops being tracked.
      const allocation = this.own(x.buffer).allocation;
      const written = this.opts.sanitize ? this.written.argument(allocation, x.byteOffset, DTYPES[x.dtype as keyof typeof DTYPES]?.bytes ?? 0) : (this.written.drop(allocation), undefined);
      return { kind: "array", buffer: this.mem(x.buffer), byteOffset: x.byteOffset, length, dtype: x.dtype, shape: x.shape, strides: x.strides, ...(written ? { written: written.buffer, writtenFirst: written.first } : {}) };
    });
  }

  createStream(): StreamHandle {
    return { id: nextHandle++ };
  }
  destroyStream(): void {}
  synchronizeStream(): void {}
  createEvent(): EventHandle {
    return { id: nextHandle++ };
  }
  recordEvent(event: EventHandle): void {
    this.events.set(event.id, performance.now());
  }
  synchronizeEvent(event: EventHandle): void {
    if (!this.events.has(event.id)) throw new CudaScriptError("CSR014", "this event was never recorded: call event.record() first");
  }
  /** The simulator finishes work before returning, so a recorded event has always completed. */
  queryEvent(event: EventHandle): boolean {
    this.synchronizeEvent(event);
    return true;
  }
  elapsedTime(start: EventHandle, end: EventHandle): number {
    const a = this.events.get(start.id), b = this.events.get(end.id);
    if (a === undefined || b === undefined) throw new CudaScriptError("CSR014", `cuda.eventElapsedTime needs two recorded events; ${a === undefined ? "the first" : "the second"} was never recorded`);
    return b - a;
  }
  synchronize(): void {}
  dispose(): void {
    this.executor.terminate();
  }
}
