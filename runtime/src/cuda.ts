/**
 * The `cuda` value users import. In kernels its members are compiled (GPU or simulator); on the host
 * it is Numba's host API camelCased (`cuda.toDevice`, `cuda.deviceArray`, streams, events, …).
 * Kernel-only members throw when touched outside a kernel, with a message that says so.
 */
import type { JitOptions, Kernel, KernelNamespace } from "./kernel-api";
import type { KernelArtifact } from "./backend";
import { CudaScriptError } from "./errors";
import { deviceArray, deviceArrayLike, DeviceNDArray, ndarray, NDArray, pinnedArray, toDevice } from "./host/arrays";
import { currentBackend } from "./host/device";
import { callableKernel, CompiledKernel } from "./host/kernel";
import { captureCallSite } from "./host/from-source/call-site";
import { managedArray, mappedArray, pinned } from "./host/host-memory";
import { SourceKernel } from "./host/from-source/source-kernel";
import { Event, eventElapsedTime, Stream } from "./host/streams";
import { reduce, vectorize } from "./ufunc";
import { guvectorize } from "./gufunc";
import { createXoroshiro128pStates, initXoroshiro128pStates } from "./random/host";
import { KERNEL_ONLY_MEMBERS } from "./kernel-intrinsics";
import { asCudaArray, fromCudaArrayInterface, isCudaArray } from "./host/array-interface";
import { fromDlpack } from "./host/dlpack";
import { openIpcArray } from "./host/ipc";
import { record, recordArray } from "./records";
import { checkProfilingBackend, profile, type ProfileOptions } from "./profiler/session";
import type { ProfileReport } from "./profiler/report";

export { CudaScriptError };

function kernelOnly(name: string): never {
  throw new CudaScriptError(
    "CSR001",
    `cuda.${name} can only be used inside a kernel or device function (cuda.jit / cuda.device); on the host, launch the kernel with kernel.launch(grid, block)(...args).`,
  );
}

/**
 * `cuda.jit(fn, options)`. A build step (the bundler plugins, `cudascript run`) rewrites each call to
 * `cuda.jit(fn, options, artifact, "name")` so that the kernel carries its compiled form; without it
 * (tsx, Vitest, node on tsc's output) the kernel compiles from its source at its first launch, found
 * from where this was called (host/from-source).
 */
function jit<Args extends unknown[]>(fn: Function, options?: JitOptions, artifact?: KernelArtifact, name?: string): Kernel<Args> {
  if (artifact && typeof artifact === "object" && name) return callableKernel(new CompiledKernel<Args>(artifact, name, options));
  return callableKernel(new SourceKernel<Args>(typeof fn === "function" ? fn.name : "", options, captureCallSite(jit)));
}

/** The host half of `cuda` (Numba's host API, camelCased). */
export interface HostApi {
  /** Copies a typed array, `cuda.ndarray` or record array to a new device array. */
  toDevice: typeof toDevice;
  /**
   * A record dtype, Numba's `np.dtype([...], align=True)`: `cuda.record({ x: f32, y: f32, id: i32 })`,
   * with the same fields in the same order as the kernel-side `interface` (docs/host-api.md#records).
   */
  record: typeof record;
  /** `n` records of a record dtype, zeroed: `a.get(i)`, `a.set(i, { … })`, `a.length`, `a.bytes`. */
  recordArray: typeof recordArray;
  /** A new device array of zeros on every backend (Numba's `cuda.to_device(np.zeros(n))`; docs/host-api.md#new-arrays-start-zeroed). */
  deviceArray: typeof deviceArray;
  deviceArrayLike: typeof deviceArrayLike;
  /** Host memory for fast transfers (page-locked on the GPU backend). */
  pinnedArray: typeof pinnedArray;
  /** A host N-D view of row-major data, accepted wherever a kernel takes Array2D/Array3D. */
  ndarray: typeof ndarray;
  /** Host memory kernels read and write in place, with no copies (page-locked and mapped on a GPU). */
  mappedArray: typeof mappedArray;
  /** Unified memory: one array for the host and the GPUs (cuMemAllocManaged). */
  managedArray: typeof managedArray;
  /** Page-locks existing host arrays for fast copies while `work` runs (or until disposed, with `using`). */
  pinned: typeof pinned;
  /**
   * Numba's `@vectorize(target="cuda")`: a ufunc from a scalar function whose annotations are its
   * signature, `cuda.vectorize((a: f32, b: f32): f32 => a + b)`; call it on numbers, typed arrays,
   * N-D arrays and device arrays (broadcast by NumPy's rules), with `{ out, stream }` last.
   */
  vectorize: typeof vectorize;
  /** Numba's `cuda.reduce`: `cuda.reduce((a: f32, b: f32): f32 => a + b)(arr, { init, size, res, stream })`. */
  reduce: typeof reduce;
  /**
   * Numba's `@guvectorize(…, "(n),(n)->()", target="cuda")`: a generalized ufunc from a function of whole
   * rows whose annotations are its signature, `cuda.guvectorize((a: Array1D<f32>, b: Array1D<f32>,
   * out: Array1D<f32>): void => { … }, "(n),(n)->()")`; call it on arrays whose leading (loop) dimensions
   * broadcast, with optional `{ out, stream }`.
   */
  guvectorize: typeof guvectorize;
  stream(): Stream;
  event(): Event;
  /** Milliseconds between two recorded events. */
  eventElapsedTime(start: Event, end: Event): number;
  /** Waits for all queued work on the current device. */
  synchronize(): void;
  selectDevice(id: number): void;
  /** The devices of the current backend. */
  readonly gpus: readonly { readonly id: number; readonly name: string; readonly arch: string }[];
  /** Which backend runs kernels: "gpu" or "simulator". */
  readonly backend: "gpu" | "simulator";
  /** Numba's `cuda.random` host functions: the generator states kernels draw from. */
  readonly random: HostRandomApi;
  /** Numba's `is_cuda_array`: whether an object has a `__cuda_array_interface__` (docs/interop.md). */
  isCudaArray: typeof isCudaArray;
  /** Numba's `as_cuda_array`: a device array viewing any CUDA array (CuPy, PyTorch, a native addon's) without copying. */
  asCudaArray: typeof asCudaArray;
  /** Numba's `from_cuda_array_interface(desc, owner)`: a device array over the memory a descriptor describes, keeping `owner` alive. */
  fromCudaArrayInterface: typeof fromCudaArrayInterface;
  /** A device array viewing a DLPack capsule's memory (a `DLManagedTensor` address); its `free()` calls the deleter once. */
  fromDlpack: typeof fromDlpack;
  /** Numba's `open_ipc_array(handle, shape, dtype, strides, offset)`: another process's device array, from its `getIpcHandle()`. */
  openIpcArray: typeof openIpcArray;
  /**
   * Profiles the simulator launches `work` makes and returns their report (coalescing, bank conflicts,
   * divergence per launch and source line, with a roofline estimate for `gpu`; docs/profiling.md): a
   * promise of it when `work` is async.
   */
  profile(work: () => Promise<unknown>, options?: ProfileOptions): Promise<ProfileReport>;
  profile(work: () => void, options?: ProfileOptions): ProfileReport;
}

/** The host half of `cuda.random` (runtime/src/random/host.ts); the draws are kernel-only. */
export interface HostRandomApi {
  /** Numba's `create_xoroshiro128p_states(n, seed, subsequence_start, stream)`: a new `[n, 2]` u64 device array of states. */
  createXoroshiro128pStates: typeof createXoroshiro128pStates;
  /** Numba's `init_xoroshiro128p_states(states, seed, subsequence_start, stream)`: reseeds an existing state array. */
  initXoroshiro128pStates: typeof initXoroshiro128pStates;
}

/** `cuda.random`: the host functions, and the kernel-only draws (which throw CSR001 on the host). */
const random = { createXoroshiro128pStates, initXoroshiro128pStates };
for (const draw of ["xoroshiro128pUniformFloat32", "xoroshiro128pUniformFloat64", "xoroshiro128pNormalFloat32", "xoroshiro128pNormalFloat64"]) {
  Object.defineProperty(random, draw, { get: () => kernelOnly(`random.${draw}`), enumerable: false });
}

const host = {
  jit,
  record,
  recordArray,
  device: <F>(fn: F): F => fn,
  toDevice,
  deviceArray,
  deviceArrayLike,
  pinnedArray,
  ndarray,
  mappedArray,
  managedArray,
  pinned,
  vectorize,
  reduce,
  guvectorize,
  stream: () => new Stream(),
  event: () => new Event(),
  eventElapsedTime,
  synchronize: () => currentBackend().synchronize(),
  selectDevice: (id: number) => currentBackend().selectDevice(id),
  random,
  isCudaArray,
  asCudaArray,
  fromCudaArrayInterface,
  fromDlpack,
  openIpcArray,
  profile: (work: () => unknown, options?: ProfileOptions) => {
    checkProfilingBackend(currentBackend().kind, "cuda.profile");
    return profile(work, options);
  },
};
Object.defineProperty(host, "gpus", { get: () => currentBackend().devices(), enumerable: true });
Object.defineProperty(host, "backend", { get: () => currentBackend().kind, enumerable: true });

// Generated from the intrinsic records and the front end's kernel names (scripts/gen-kernel-intrinsics.mjs).
const kernelOnlyMembers = KERNEL_ONLY_MEMBERS;

for (const member of kernelOnlyMembers) {
  Object.defineProperty(host, member, { get: () => kernelOnly(member), enumerable: false });
}

export const cuda = host as unknown as KernelNamespace & HostApi;
export { DeviceNDArray, NDArray, Stream, Event };
