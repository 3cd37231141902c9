/**
 * Every error the CudaScript runtime raises is a CudaScriptError with a stable code (CSRxxx); the
 * table is in docs/host-api.md. Kernel faults found by the simulator (out-of-bounds, races, …) carry
 * the kernel, the TypeScript location, and the block and thread in `details`.
 */

export const ErrorCodes = {
  KernelOnlyApi: "CSR001",
  NotCompiled: "CSR002",
  ArgumentCount: "CSR003",
  ArgumentKind: "CSR004",
  ArgumentDType: "CSR005",
  ArgumentRank: "CSR006",
  LaunchConfig: "CSR007",
  BlockTooLarge: "CSR008",
  SharedMemoryTooLarge: "CSR009",
  FreedArray: "CSR010",
  ShapeMismatch: "CSR011",
  ScalarValue: "CSR012",
  InvalidAllocation: "CSR013",
  InvalidHandle: "CSR014",
  BackendUnavailable: "CSR015",
  OutOfDeviceMemory: "CSR016",
  OutOfHostMemory: "CSR017",
  InvalidSetting: "CSR018",
  /** An array argument spanning 2^31 elements or more: kernels index arrays in 32-bit ints (layout.ts kernelSpanProblem). */
  ArrayTooLargeForKernel: "CSR019",
  OutOfBounds: "CSR020",
  SharedRace: "CSR021",
  DivergentBarrier: "CSR022",
  UninitializedShared: "CSR023",
  /** Under --sanitize: a value read from shared memory no thread wrote reaches a store to global memory, a condition, an index, an atomic, a print or a throw (sanitizer/undefined-values.ts). */
  UndefinedValueUse: "CSR068",
  /** A warning, not thrown: under --sanitize, copyToHost of device-array elements no kernel or copy wrote (simulator/sanitizer/written.ts). */
  UnwrittenCopyToHost: "CSR069",
  Timeout: "CSR024",
  DivergentWarp: "CSR025",
  /** `--sanitize`: two threads of one block access a global element, one a plain write, with no barrier between (simulator/sanitizer/global-races.ts). */
  GlobalRaceInBlock: "CSR066",
  /** `--sanitize`: threads of two blocks access a global element, one a plain write, with no grid barrier or threadfence+atomic ordering them. */
  GlobalRaceBetweenBlocks: "CSR067",
  /** A c64/c128 kernel parameter given something else than `{ re, im }` / a Complex64Array / Complex128Array (host/complex-args.ts). */
  ComplexArgument: "CSR029",
  Internal: "CSR030",
  /** `cuda.random.createXoroshiro128pStates` / `initXoroshiro128pStates` given a bad n, seed or subsequenceStart (random/host.ts). */
  RandomStateArgument: "CSR032",
  /** Not a xoroshiro128+ state array (a `[n, 2]` u64 device array): given to initXoroshiro128pStates, or drawn from in a kernel. */
  RandomStateArray: "CSR033",
  /** A cooperative kernel (g.sync()) launched with more blocks than can be resident at once (simulator and GPU). */
  CooperativeLaunchTooLarge: "CSR034",
  /** A block or thread that does not reach a g.sync() the others reach (simulator; the sanitizer for threads). */
  DivergentGridBarrier: "CSR035",
  /** A cooperative kernel on a device without cooperative launch (CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH = 0). */
  CooperativeLaunchUnsupported: "CSR036",
  /** A warning, not thrown: kernel console.log output was overwritten in the GPU's printf FIFO (gpu/printf-overflow.ts). */
  PrintfOutputLost: "CSR050",
  /** A kernel threw (`throw new Error(…)`, a failed console.assert): the first thread to raise, on every backend (simulator/fault.ts kernelRaised). */
  KernelRaised: "CSR085",
  /** A recursive device function nested deeper than its kernel's recursionDepth (simulator; a GPU faults at an illegal address). */
  RecursionTooDeep: "CSR086",
  /** Replay to a fault (debugger): the replayed run did not meet the fault the run reported — a determinism bug of the simulator (debugger/replay-target.ts). */
  FaultDidNotRecur: "CSR089",
  SourceNotFound: "CSR051",
  SourceDoesNotCompile: "CSR052",
  KernelNotIdentified: "CSR053",
  /** `cudascript run` without esbuild runs the program from its TypeScript source, and a file of it does not parse (or nests too deeply to). */
  ProgramDoesNotParse: "CSR055",
  /** A Complex64Array / Complex128Array made from a bad length, buffer or parts, or indexed outside it (complex-array.ts). */
  ComplexArray: "CSR056",
  /** A device-array view that would need a copy (`slice` with a step, `reshape`/`ravel` in an order the array is not contiguous in). */
  ViewNeedsStrides: "CSR057",
  /** `cuda.pinned` of memory that is pinned already (the same array twice, or two views of one buffer). */
  PinnedTwice: "CSR058",
  /** The arguments of a ufunc (`cuda.vectorize`) do not broadcast, or its `out` has another shape (ufunc.ts). */
  UfuncShape: "CSR038",
  /** A ufunc or reduction given an array (or `out`, `res`) of another dtype than its function's: no silent casts. */
  UfuncDType: "CSR039",
  /** A ufunc or reduction called with the wrong number or kind of arguments or options. */
  UfuncArguments: "CSR037",
  /** A bad array layout: `order` other than "C"/"F", byte `strides` that are not positive multiples of the item size (host/arrays.ts). */
  InvalidLayout: "CSR028",
  /** A strided 1-D array (a column of a C-order array, a row of an F-order one) for a kernel's 1-D parameter, which is contiguous. */
  StridedVectorArgument: "CSR059",
  /** A kernel called like a function, `k(…)`, instead of launched: `k.launch(blocks, threads)(…)` (host/kernel.ts callableKernel). */
  LaunchConfigurationMissing: "CSR060",
  /** A bad `__cuda_array_interface__` (unknown typestr, a mask, bad strides, a null pointer with elements, …) or an object without one (host/array-interface.ts). */
  InvalidArrayInterface: "CSR061",
  /** A foreign pointer outside every live allocation of the simulated device (simulator/address-space.ts). */
  ForeignPointerOutsideMemory: "CSR062",
  /** An IPC handle that cannot be made or opened: not a handle, opened in its own process, its memory gone, … (host/ipc.ts). */
  IpcHandle: "CSR063",
  /** Interop this backend or platform cannot do (IPC without /dev/shm on the simulator, a backend without device pointers). */
  InteropUnsupported: "CSR064",
  /** A bad DLPack capsule: not a DLManagedTensor, consumed twice, an unsupported dtype or device (host/dlpack.ts). */
  InvalidDlpack: "CSR065",
  /** A bad rank environment or launcher setting: CUDASCRIPT_RANK / CUDASCRIPT_WORLD_SIZE / CUDASCRIPT_DIST_ADDR that do not fit together (distributed/env.ts). */
  DistSetup: "CSR070",
  /** A collective or send/recv given a bad argument: not a device array, a bad op, root or peer, sizes that do not fit (distributed/api.ts). */
  DistArgument: "CSR071",
  /** The ranks disagree: different collectives at the same step, or different dtypes or sizes; a recv of another size than the send (distributed/collective.ts). */
  DistMismatch: "CSR072",
  /** Another rank failed or ended while this one still needed it: the job stops with that rank's error (distributed/transport.ts). */
  DistRankFailed: "CSR073",
  /** A collective or recv waited longer than the collective time limit (--collective-timeout, CUDASCRIPT_DIST_TIMEOUT) for a rank that never came. */
  DistTimeout: "CSR074",
  /** `cudascript launch`: a rank was killed by a signal (out of memory, scancel, kill -9). */
  DistRankKilled: "CSR075",
  /** `cudascript launch`: the launcher could not start the job (srun/sbatch missing or refused, the Kubernetes API refused it). */
  DistLauncher: "CSR076",
  /** The ranks could not meet: rank 0's rendezvous unreachable, or a rank never connected within the time limit. */
  DistRendezvous: "CSR077",
  /** NCCL failed on the GPU backend (its error name and text). */
  DistNccl: "CSR078",
  /** A gufunc's core dimensions do not fit its layout: one symbol bound to two sizes, or too few dimensions (gufunc.ts). */
  GufuncCoreDimension: "CSR026",
  /** A gufunc output's core dimension is named in no input, so its size is unknown without `out` (gufunc.ts). */
  GufuncOutputSize: "CSR027",
  /** A record array (host or device) for a kernel's record parameter whose fields differ from the kernel's record type (host/kernel.ts, records.ts). */
  RecordFieldsMismatch: "CSR080",
  /** A kernel's record parameter (`Array1D<Particle>`) given something that is not a record array. */
  RecordArgument: "CSR081",
  /** A record array given for a parameter that is not a record array. */
  RecordArrayForNonRecord: "CSR082",
  /** `cuda.record` / `cuda.recordArray` given something other than dtype fields / a record dtype and a count. */
  RecordDtypeInvalid: "CSR083",
  /** A record array's `get` / `set` given a bad index or a value that does not fit the fields. */
  RecordAccess: "CSR084",
  /** `cudascript profile --gpu` / `cuda.profile({ gpu })` / CUDASCRIPT_PROFILE_GPU naming a GPU the profiler's table does not have (profiler/gpus.ts). */
  ProfileUnknownGpu: "CSR090",
  /** Profiling asked of a program running on the GPU backend: the counts come from the simulator (profiler/session.ts). */
  ProfileNeedsSimulator: "CSR091",
  /** A launch the profiler cannot count: an artifact built without its IR, a kernel with a grid barrier (profiler/launch.ts). */
  ProfileUnsupported: "CSR092",
  /** The profile report cannot be written (CUDASCRIPT_PROFILE or -o naming an unwritable file). */
  ProfileOutput: "CSR093",
} as const;

export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

/** Where in a kernel a fault happened. */
export interface FaultDetails {
  readonly kind: "out-of-bounds" | "race" | "divergent-barrier" | "uninitialized-shared" | "timeout" | "divergent-warp" | "internal" | "divergent-grid-barrier" | "exception" | "recursion-depth" | "undefined-value";
  readonly kernel?: string;
  readonly file?: string;
  readonly line?: number;
  readonly col?: number;
  readonly block?: readonly [number, number, number];
  readonly thread?: readonly [number, number, number];
  readonly array?: string;
  readonly index?: number;
  /** The message a kernel threw (kind "exception"). */
  readonly message?: string;
}

export class CudaScriptError extends Error {
  /** Set for faults inside kernels. */
  details?: FaultDetails;
  constructor(
    readonly code: string,
    message: string,
    details?: FaultDetails,
  ) {
    super(`${code}: ${message}`);
    this.name = "CudaScriptError";
    if (details) this.details = details;
  }
}

export function fail(code: ErrorCode, message: string): never {
  throw new CudaScriptError(code, message);
}
