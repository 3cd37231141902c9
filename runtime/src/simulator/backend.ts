/**
 * The simulator's implementation of the Backend interface. Device memory is SharedArrayBuffers (so
 * worker threads can run blocks against it); everything completes before the call returns, which
 * satisfies the asynchronous contract trivially. Events record wall-clock time when recorded.
 */
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

export { checkSimulatorOptions, SIMULATOR_ABI, type SimulatorOptions } from "./options";

/** V8's longest typed array (2^32 elements): the simulator's copies and kernels view an array's bytes through one. */
const MAX_ARRAY_BYTES = 2 ** 32;

/** The share of the machine's memory the simulated device has by default: the rest is the host program's. */
const DEFAULT_MEMORY_SHARE = 0.5;

export class SimBuffer implements DeviceBuffer {
  readonly backend = "simulator" as const;
  /** Undefined once freed: the buffer drops its memory so the program's own references to the array do not keep it alive. */
  private store: SharedArrayBuffer | undefined;
  constructor(
    readonly bytes: number,
    memory: SharedArrayBuffer,
  ) {
    this.store = memory;
  }
  get freed(): boolean {
    return this.store === undefined;
  }
  /** The memory of a live buffer; CSR010 once freed. */
  get memory(): SharedArrayBuffer {
    if (!this.store) throw new CudaScriptError("CSR010", "this device array was freed");
    return this.store;
  }
  release(): void {
    this.store = undefined;
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
  const uninitializedShared = (env.CUDASCRIPT_UNINITIALIZED_SHARED || "warn") as SimulatorOptions["uninitializedShared"];
  checkSimulatorOptions({ uninitializedShared }, "CUDASCRIPT_UNINITIALIZED_SHARED");
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
  /** Arrays the program dropped without free() give their bytes back when collected, as on the GPU backend. */
  private readonly collected = new FinalizationRegistry<number>((bytes) => (this.inUse -= bytes));
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
    const buffer = new SimBuffer(bytes, memory);
    this.inUse += bytes;
    this.collected.register(buffer, bytes, buffer);
    return buffer;
  }

  /** The simulated device's memory is host memory: a mapped or managed array is a device buffer's own. */
  allocHostVisible(bytes: number): { host: SharedArrayBuffer; device: DeviceBuffer } {
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
    b.release();
    this.collected.unregister(b);
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

  private mem(b: DeviceBuffer): SharedArrayBuffer {
    return this.own(b).memory;
  }

  copyHtoD(dst: DeviceBuffer, dstOffset: number, src: ArrayBufferView): void {
    new Uint8Array(this.mem(dst), dstOffset, src.byteLength).set(new Uint8Array(src.buffer, src.byteOffset, src.byteLength));
  }

  copyDtoH(dst: ArrayBufferView, src: DeviceBuffer, srcOffset: number): void {
    new Uint8Array(dst.buffer, dst.byteOffset, dst.byteLength).set(new Uint8Array(this.mem(src), srcOffset, dst.byteLength));
  }

  copyDtoD(dst: DeviceBuffer, dstOffset: number, src: DeviceBuffer, srcOffset: number, bytes: number): void {
    new Uint8Array(this.mem(dst), dstOffset, bytes).set(new Uint8Array(this.mem(src), srcOffset, bytes));
  }

  memset(dst: DeviceBuffer, offset: number, bytes: number, value: number): void {
    new Uint8Array(this.mem(dst), offset, bytes).fill(value);
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
    });
  }

  /** A launch's arguments as the executor (and the debugger's stepping backend) takes them: device memory as its SharedArrayBuffer. */
  protected argDescs(args: readonly KernelArg[]): ArgDesc[] {
    return args.map((x) => {
      if (x.kind === "scalar") return { kind: "scalar", value: x.value };
      // The typed array the kernel indexes covers every element the layout reaches.
      const length = spanElements(x.shape, x.strides);
      return { kind: "array", buffer: this.mem(x.buffer), byteOffset: x.byteOffset, length, dtype: x.dtype, shape: x.shape, strides: x.strides };
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
