/**
 * The one interface between the host API (`cuda.toDevice`, `kernel.launch`, streams, events) and a
 * device. Two implementations: the CPU simulator (runtime/src/simulator/backend.ts) and the GPU (CUDA
 * driver API through koffi, loading PTX made by the CUDA C++ backend — a later issue).
 *
 * The interface is deliberately GPU-shaped: device memory is untyped bytes behind an opaque handle;
 * copies name a stream and may be asynchronous (the host must synchronise the stream, or use an event,
 * before it reads the destination of an asynchronous device-to-host copy); launches are asynchronous
 * on their stream. The simulator happens to complete everything before returning, which is a valid
 * implementation of the same contract. Errors are CudaScriptErrors (see errors.ts).
 */
import type { KernelArtifact } from "@cudascript/compiler/artifact";
import type { AnyDTypeName, ComplexValue } from "./dtypes";

export type { KernelArtifact };

/** Opaque device allocation. `bytes` is its size; `backend` says who made it. */
export interface DeviceBuffer {
  readonly backend: "gpu" | "simulator";
  readonly bytes: number;
  /** Set once freed; using a freed buffer is CSR010. */
  readonly freed: boolean;
}

/** A stream: work queued on one stream runs in order. `null` is the default (legacy) stream. */
export interface StreamHandle {
  readonly id: number;
}

export interface EventHandle {
  readonly id: number;
}

/** A loaded module: one source file's kernels. */
export interface ModuleHandle {
  readonly artifact: KernelArtifact;
}

export type Dim3Tuple = readonly [number, number, number];

export interface LaunchConfig {
  readonly grid: Dim3Tuple;
  readonly block: Dim3Tuple;
  /** Dynamic shared memory in bytes. */
  readonly sharedMem: number;
  readonly stream: StreamHandle | null;
}

/**
 * The brand of a device array (host/arrays.ts DeviceNDArray), by which the GPU launch fast path
 * recognises one without importing the host layer.
 */
export const DEVICE_ARRAY: unique symbol = Symbol("cudascript.deviceArray");

/** What the GPU launch fast path reads of a device array argument. */
export interface DeviceArrayArgument {
  readonly [DEVICE_ARRAY]: true;
  readonly dtype: { readonly name: AnyDTypeName };
  readonly shape: readonly number[];
  readonly freed: boolean;
  readonly buffer: DeviceBuffer;
  readonly byteOffset: number;
  readonly elementStrides: readonly number[];
}

export function isDeviceArrayArgument(v: unknown): v is DeviceArrayArgument {
  return typeof v === "object" && v !== null && (v as { [DEVICE_ARRAY]?: unknown })[DEVICE_ARRAY] === true;
}

/** See Backend.fastLauncher: true when it launched, false when the generic path must (nothing was done). */
export type FastLaunch = (args: readonly unknown[]) => boolean;

/** One kernel argument, already checked against the kernel's signature. */
export type KernelArg =
  | {
      readonly kind: "array";
      readonly buffer: DeviceBuffer;
      /** Where element [0, 0, …] is. */
      readonly byteOffset: number;
      readonly dtype: AnyDTypeName;
      readonly shape: readonly number[];
      /**
       * ELEMENT strides, one per dimension (layout.ts: C order, F order or any positive strides). A 1-D
       * argument is contiguous (stride 1): kernels index 1-D parameters without a stride (docs/abi.md).
       */
      readonly strides: readonly number[];
    }
  | { readonly kind: "scalar"; readonly dtype: AnyDTypeName; readonly value: number | boolean | bigint | ComplexValue };

export interface DeviceLimits {
  readonly maxThreadsPerBlock: number;
  readonly maxBlockDim: Dim3Tuple;
  readonly maxGridDim: Dim3Tuple;
  /** Shared memory a block may use without opting in (48 KiB): the limit for static shared arrays. */
  readonly maxSharedPerBlock: number;
  /**
   * Shared memory (static + dynamic) a block may use once its kernel opts in to more dynamic shared
   * memory (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES; the GPU backend opts in automatically).
   */
  readonly maxSharedPerBlockOptin: number;
  readonly warpSize: number;
}

export interface DeviceInfo {
  readonly id: number;
  readonly name: string;
  /** e.g. "sm_80"; "sim" for the simulator. */
  readonly arch: string;
  readonly totalMemory: number;
  readonly multiprocessors: number;
}

export interface Backend {
  readonly kind: "gpu" | "simulator";
  /** Human-readable: "simulator (no CUDA driver found)", "NVIDIA A100 (sm_80)". */
  readonly description: string;
  readonly limits: DeviceLimits;
  devices(): readonly DeviceInfo[];
  selectDevice(id: number): void;

  alloc(bytes: number): DeviceBuffer;
  free(buffer: DeviceBuffer): void;
  /** Host → device. With a non-default stream the copy may complete later; `src` must stay unchanged until then. */
  copyHtoD(dst: DeviceBuffer, dstOffset: number, src: ArrayBufferView, stream: StreamHandle | null): void;
  /** Device → host. With a non-default stream, synchronise the stream before reading `dst`. */
  copyDtoH(dst: ArrayBufferView, src: DeviceBuffer, srcOffset: number, stream: StreamHandle | null): void;
  copyDtoD(dst: DeviceBuffer, dstOffset: number, src: DeviceBuffer, srcOffset: number, bytes: number, stream: StreamHandle | null): void;
  memset(dst: DeviceBuffer, offset: number, bytes: number, value: number, stream: StreamHandle | null): void;
  /**
   * The simulator's sanitizer: `buffer` is a new array nothing wrote yet (its zero fill aside), whose
   * elements `checkCopyToHost` reports when they are read back unwritten (simulator/sanitizer/written.ts);
   * `origin` undefined: stop tracking it (its writes cannot all be seen).
   */
  trackUnwritten?(buffer: DeviceBuffer, itemBytes: number, origin: (() => { api: string; site?: { file?: string; line?: number; col?: number } }) | undefined): void;
  /** Before a copy of this array to the host: warns (CSR069) about an element nothing wrote, under the simulator's sanitizer. */
  checkCopyToHost?(buffer: DeviceBuffer, byteOffset: number, dtype: string, itemBytes: number, shape: readonly number[], elementStrides: readonly number[]): void;

  /** Loads (or returns the cached) module for an artifact; the GPU backend compiles/loads PTX here. */
  loadModule(artifact: KernelArtifact): ModuleHandle;
  /** Queues a launch. Faults inside the kernel surface as CudaScriptErrors from this call or from the next synchronisation. */
  launch(module: ModuleHandle, kernel: string, config: LaunchConfig, args: readonly KernelArg[]): void;
  /**
   * A launcher for one launch configuration that takes the host's arguments as they are (unchecked)
   * and launches when it can check and pack them itself, returning false — having done nothing —
   * for anything the generic path (the host's checks, then `launch`) must handle; undefined when
   * that is always. The GPU's is specialised per kernel signature (gpu/launch-packer.ts).
   */
  fastLauncher?(module: ModuleHandle, kernel: string, config: LaunchConfig): FastLaunch | undefined;

  createStream(): StreamHandle;
  destroyStream(stream: StreamHandle): void;
  synchronizeStream(stream: StreamHandle | null): void;
  createEvent(): EventHandle;
  recordEvent(event: EventHandle, stream: StreamHandle | null): void;
  synchronizeEvent(event: EventHandle): void;
  /** True once the work before the event's last record has completed (CSR014 if never recorded); does not wait. */
  queryEvent(event: EventHandle): boolean;
  /** Milliseconds between two recorded events. */
  elapsedTime(start: EventHandle, end: EventHandle): number;
  /** Waits for all work on every stream. */
  synchronize(): void;
  /**
   * Page-locked host memory for `cuda.pinnedArray`, when the backend has such a thing (the GPU);
   * otherwise `cuda.pinnedArray` uses ordinary memory.
   */
  allocPinnedHost?(bytes: number): ArrayBuffer;
  /**
   * Host memory that kernels use in place, with no copies (`cuda.mappedArray`: mapped pinned memory;
   * `cuda.managedArray`: unified memory): the host's view and the device buffer kernels get. Freed
   * when the host view is garbage-collected. The simulator's device memory is host memory already.
   */
  allocHostVisible(bytes: number, kind: "mapped" | "managed"): { readonly host: ArrayBufferLike; readonly device: DeviceBuffer };
  /**
   * Page-locks `view`'s memory in place for fast copies (`cuda.pinned`) until the returned function
   * is called; undefined where there is nothing to lock (the simulator).
   */
  registerHost?(view: ArrayBufferView): () => void;
  /**
   * The block size (a multiple of the warp size, at most `maxThreads`) that keeps the most threads
   * resident for `kernel` (`kernel.forall`); where absent (the simulator) `forall` uses 256.
   */
  suggestBlockSize?(artifact: KernelArtifact, kernel: string, dynamicSharedBytes: number, maxThreads: number): number;
  /** Releases workers / contexts; the backend is unusable afterwards. */
  dispose(): void;

  // ── interop (docs/interop.md): device pointers other libraries and processes understand ──

  /** The device address of a buffer: the pointer `__cuda_array_interface__`, DLPack and IPC hand out. */
  addressOf?(buffer: DeviceBuffer): bigint;
  /**
   * Device memory someone else owns at [pointer, pointer + bytes), as a buffer (and the offset in it)
   * that aliases it and that `free` does not release. The simulator resolves the pointer in its
   * address space (CSR062 outside every live allocation); the GPU takes the caller's word.
   */
  foreignMemory?(pointer: bigint, bytes: number, what: string): { readonly buffer: DeviceBuffer; readonly byteOffset: number };
  /** Waits for the work on a stream named by its raw handle (a foreign array's interface `stream`; 1 and 2 are CUDA's default streams). */
  synchronizeRawStream?(handle: bigint): void;
  /** The IPC handle (64 bytes) of the allocation behind `buffer`, which another process opens with `openIpc`. */
  exportIpc?(buffer: DeviceBuffer): Uint8Array;
  /** Opens another process's allocation of `bytes` from its handle; `close` (once) releases it here. */
  openIpc?(handle: Uint8Array, bytes: number): { readonly buffer: DeviceBuffer; close(): void };
}
