// koffi bindings to the CUDA driver API (libcuda.so.1 / nvcuda.dll), found at run time.
//
// Loading never throws: a machine without the NVIDIA driver gets `{ ok: false, error }` with code
// CSD001, and CudaScript runs kernels in its CPU simulator instead. This file is the raw layer:
// every function is declared with its versioned symbol and returns the CUresult number; out-params
// are one-element arrays (or typed arrays for device pointers). device.ts builds the checked,
// high-level API on top of it.
//
// Tests point CUDASCRIPT_LIBCUDA at a TEST DOUBLE of libcuda.so.1 (test/driver-double/libcuda.c);
// `info.isTestDouble` says when the loaded library is that double rather than NVIDIA's driver.
import * as fs from "node:fs";
import { koffi, type LibraryHandle, type TypeObject } from "../koffi";
import { CUDA_SUCCESS, cuResultDescription, cuResultName } from "./results";

/** One-element array koffi writes an out-parameter into. */
export type Out<T> = [T];
/** An opaque driver handle (CUcontext, CUmodule, CUfunction, CUstream, CUevent) as koffi returns it. */
export type CuHandle = bigint;
/** A device address (CUdeviceptr, 64-bit). */
export type DevicePointer = bigint;
/** Host memory the driver reads or writes: a typed array / Buffer / DataView, or a raw address. */
export type HostMemory = ArrayBufferView | bigint;

/**
 * The raw driver API. Every function returns a CUresult (0 = CUDA_SUCCESS). Handle arguments take
 * a bigint or null (the NULL stream / no context). Symbol names are the ABI names (`_v2` where the
 * CUDA 13 header maps the plain name to a versioned one).
 */
export interface CudaDriverApi {
  cuInit(flags: number): number;
  cuDriverGetVersion(version: Out<number>): number;
  cuDeviceGetCount(count: Out<number>): number;
  cuDeviceGet(device: Out<number>, ordinal: number): number;
  /** Writes a NUL-terminated name into `name` (at most `length` bytes). */
  cuDeviceGetName(name: Uint8Array, length: number, device: number): number;
  cuDeviceGetAttribute(value: Out<number>, attribute: number, device: number): number;
  cuDeviceTotalMem_v2(bytes: Out<number>, device: number): number;
  cuDevicePrimaryCtxRetain(context: Out<CuHandle | null>, device: number): number;
  /** cuDevicePrimaryCtxRelease_v2, or the unversioned symbol on drivers older than CUDA 11. */
  cuDevicePrimaryCtxRelease(device: number): number;
  cuCtxSetCurrent(context: CuHandle | null): number;
  cuCtxSynchronize(): number;
  /** CUlimit (CU_LIMIT), value in bytes. */
  cuCtxSetLimit(limit: number, value: number): number;
  cuCtxGetLimit(value: Out<number>, limit: number): number;
  /** `pointer` receives the CUdeviceptr in element 0. */
  cuMemAlloc_v2(pointer: BigUint64Array, bytes: number): number;
  cuMemFree_v2(pointer: DevicePointer): number;
  cuMemcpyHtoD_v2(dst: DevicePointer, src: HostMemory, bytes: number): number;
  cuMemcpyDtoH_v2(dst: HostMemory, src: DevicePointer, bytes: number): number;
  cuMemcpyHtoDAsync_v2(dst: DevicePointer, src: HostMemory, bytes: number, stream: CuHandle | null): number;
  cuMemcpyDtoHAsync_v2(dst: HostMemory, src: DevicePointer, bytes: number, stream: CuHandle | null): number;
  cuMemsetD8_v2(dst: DevicePointer, value: number, count: number): number;
  /** `pointer` receives the host address in element 0. */
  cuMemHostAlloc(pointer: BigUint64Array, bytes: number, flags: number): number;
  cuMemFreeHost(pointer: bigint): number;
  /** Page-locks existing host memory (a typed array's bytes) for fast copies; CU_MEMHOSTREGISTER flags. */
  cuMemHostRegister_v2(host: ArrayBufferView, bytes: number, flags: number): number;
  /** `host` is the same memory (the same typed array) that was registered. */
  cuMemHostUnregister(host: ArrayBufferView): number;
  /** `pointer` receives the device address of mapped host memory (CU_MEMHOSTALLOC_DEVICEMAP) in element 0. */
  cuMemHostGetDevicePointer_v2(pointer: BigUint64Array, host: bigint, flags: number): number;
  /** `pointer` receives the address of unified memory, valid on the host and every device, in element 0. */
  cuMemAllocManaged(pointer: BigUint64Array, bytes: number, flags: number): number;
  /**
   * `image` is NUL-terminated PTX (or a cubin). `options` holds CUjit_option values; `optionValues`
   * the matching `void *` slots (sizes as integers, buffers as addresses) — the driver writes
   * outputs (log sizes, wall time) back into those slots.
   */
  cuModuleLoadDataEx(
    module: Out<CuHandle | null>,
    image: Uint8Array,
    numOptions: number,
    options: Int32Array | null,
    optionValues: BigUint64Array | null,
  ): number;
  cuModuleGetFunction(fn: Out<CuHandle | null>, module: CuHandle, name: string): number;
  cuModuleUnload(module: CuHandle): number;
  /** cuModuleGetGlobal_v2 (what cuda.h names cuModuleGetGlobal): `pointer` receives the CUdeviceptr in element 0. */
  cuModuleGetGlobal_v2(pointer: BigUint64Array, bytes: Out<number>, module: CuHandle, name: string): number;
  /** `kernelParams` is the address of a `void *[n]` array (see device.ts for how it is built). */
  cuLaunchKernel(
    fn: CuHandle,
    gridX: number,
    gridY: number,
    gridZ: number,
    blockX: number,
    blockY: number,
    blockZ: number,
    sharedMemBytes: number,
    stream: CuHandle | null,
    kernelParams: bigint | null,
    extra: null,
  ): number;
  /** cuLaunchKernel for a kernel whose blocks must all be resident (grid sync); no `extra`. */
  cuLaunchCooperativeKernel(
    fn: CuHandle,
    gridX: number,
    gridY: number,
    gridZ: number,
    blockX: number,
    blockY: number,
    blockZ: number,
    sharedMemBytes: number,
    stream: CuHandle | null,
    kernelParams: bigint | null,
  ): number;
  cuStreamCreate(stream: Out<CuHandle | null>, flags: number): number;
  cuStreamSynchronize(stream: CuHandle | null): number;
  /** CUDA_SUCCESS when all work on the stream is done, CUDA_ERROR_NOT_READY while some is pending. */
  cuStreamQuery(stream: CuHandle | null): number;
  cuStreamDestroy_v2(stream: CuHandle): number;
  cuEventCreate(event: Out<CuHandle | null>, flags: number): number;
  cuEventRecord(event: CuHandle, stream: CuHandle | null): number;
  cuEventSynchronize(event: CuHandle): number;
  /** CUDA_SUCCESS when the work before the event's last record is done (or it was never recorded), CUDA_ERROR_NOT_READY before. */
  cuEventQuery(event: CuHandle): number;
  /** cuEventElapsedTime_v2 (CUDA 13), or cuEventElapsedTime on older drivers: see info.symbols. */
  cuEventElapsedTime(milliseconds: Out<number>, start: CuHandle, end: CuHandle): number;
  cuEventDestroy_v2(event: CuHandle): number;
  /**
   * Inter-process memory (CUDA IPC): the 64-byte handle (CUipcMemHandle) of an allocation's base,
   * written into `handle`. Undefined where the driver does not export it.
   */
  cuIpcGetMemHandle?(handle: Uint8Array, pointer: DevicePointer): number;
  /** cuIpcOpenMemHandle_v2: maps another process's allocation; `pointer` receives its address here in element 0. */
  cuIpcOpenMemHandle?(pointer: BigUint64Array, handle: { reserved: Uint8Array }, flags: number): number;
  cuIpcCloseMemHandle?(pointer: DevicePointer): number;
  cuFuncGetAttribute(value: Out<number>, attribute: number, fn: CuHandle): number;
  cuFuncSetAttribute(fn: CuHandle, attribute: number, value: number): number;
  cuOccupancyMaxActiveBlocksPerMultiprocessor(blocks: Out<number>, fn: CuHandle, blockSize: number, dynamicSharedBytes: number): number;
  cuGetErrorName(result: number, name: Out<string | null>): number;
  cuGetErrorString(result: number, description: Out<string | null>): number;
}

export interface CudaDriverInfo {
  /** The library that was loaded: a path, or the bare name the dynamic loader resolved. */
  path: string;
  /** Why discovery tried it (e.g. "environment variable CUDASCRIPT_LIBCUDA"). */
  reason: string;
  /** True when the library is CudaScript's TEST DOUBLE of libcuda (it exports cudaDouble_isTestDouble). */
  isTestDouble: boolean;
  /** Which symbol each version-dependent entry point was bound to. */
  symbols: { eventElapsedTime: string; primaryCtxRelease: string };
}

/** One place the loader tried, and why it gave no usable driver. */
export interface CudaDriverAttempt {
  place: string;
  reason: string;
  failure: string;
}

export const CUDA_DRIVER_UNAVAILABLE_CODE = "CSD001";

export const CUDA_DRIVER_INSTALL_HINT = [
  "To run kernels on an NVIDIA GPU, install the NVIDIA driver for your GPU (`nvidia-smi` must list it):",
  "  - Linux: your distribution's NVIDIA driver package, or https://www.nvidia.com/Download/index.aspx;",
  "    it provides libcuda.so.1. In a container, run with the NVIDIA Container Toolkit (`--gpus all`).",
  "  - WSL2: install the Windows NVIDIA driver; WSL exposes /usr/lib/wsl/lib/libcuda.so.1.",
  "  - Windows: the NVIDIA display driver installs nvcuda.dll.",
  "Or point CUDASCRIPT_LIBCUDA at a libcuda.so.1 you already have.",
].join("\n");

/** The driver could not be loaded. Returned by loadCudaDriver (never thrown by it). */
export class CudaDriverUnavailable extends Error {
  readonly code = CUDA_DRIVER_UNAVAILABLE_CODE;
  /** Every place tried, in order, with why it failed. */
  readonly attempts: readonly CudaDriverAttempt[];

  constructor(attempts: CudaDriverAttempt[], platform: string = process.platform) {
    const headline =
      platform === "darwin"
        ? "There is no NVIDIA CUDA driver on macOS, so kernels cannot run on a GPU here."
        : "The NVIDIA CUDA driver library (libcuda) was not found, so kernels cannot run on a GPU here " +
          "(no NVIDIA driver is installed, or this machine has no NVIDIA GPU).";
    const meaning = "CudaScript runs kernels in its CPU simulator instead: results are the same, only slower, and there are no GPU timings.";
    const tried =
      attempts.length === 0
        ? "No place to look for the driver on this platform."
        : ["Places tried:", ...attempts.map((a) => `  - ${a.place} (${a.reason}): ${a.failure}`)].join("\n");
    const hint = platform === "darwin" ? "" : `\n${CUDA_DRIVER_INSTALL_HINT}`;
    super(`${CUDA_DRIVER_UNAVAILABLE_CODE}: ${headline}\n${meaning}${hint}\n${tried}`);
    this.name = "CudaDriverUnavailable";
    this.attempts = attempts;
  }
}

export type CudaDriverLoad = { ok: true; driver: CudaDriver } | { ok: false; error: CudaDriverUnavailable };

export interface LoadCudaDriverOptions {
  /** Load exactly this library instead of discovering one. */
  path?: string;
  /** Environment to read CUDASCRIPT_LIBCUDA from (default process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  platform?: string;
}

export interface CudaDriverCandidate {
  /** Absolute path, or a bare name for the dynamic loader. */
  path: string;
  reason: string;
}

const LIBCUDA_ENV = "CUDASCRIPT_LIBCUDA";

/**
 * The libraries to try, best first: $CUDASCRIPT_LIBCUDA, then the loader's libcuda.so.1 and
 * libcuda.so, then fixed locations (Debian/Ubuntu multiarch, RHEL, WSL2). Windows: nvcuda.dll by
 * name only (it lives in System32). CUDASCRIPT_LIBCUDA=off gives no candidates (hides the driver).
 */
export function cudaDriverCandidates(options: { env?: Readonly<Record<string, string | undefined>>; platform?: string } = {}): CudaDriverCandidate[] {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const explicit = env[LIBCUDA_ENV];
  if (explicit === "off") return [];
  const list: CudaDriverCandidate[] = [];
  if (explicit) list.push({ path: explicit, reason: `environment variable ${LIBCUDA_ENV}` });
  if (platform === "win32") {
    list.push({ path: "nvcuda.dll", reason: "the NVIDIA display driver's library, found by the Windows loader" });
  } else if (platform === "linux") {
    list.push({ path: "libcuda.so.1", reason: "dynamic loader search (ld.so.cache, LD_LIBRARY_PATH)" });
    list.push({ path: "libcuda.so", reason: "dynamic loader search, unversioned name" });
    list.push({ path: "/usr/lib/x86_64-linux-gnu/libcuda.so.1", reason: "Debian/Ubuntu driver package" });
    list.push({ path: "/usr/lib64/libcuda.so.1", reason: "RHEL/Fedora/SUSE driver package" });
    list.push({ path: "/usr/lib/wsl/lib/libcuda.so.1", reason: "WSL2 (the Windows driver exposes it)" });
  }
  const seen = new Set<string>();
  return list.filter((c) => !seen.has(c.path) && seen.add(c.path));
}

/** The loaded driver: the raw API plus error names and the JS-side view of the current context. */
export class CudaDriver {
  /** The context this process last made current with cuCtxSetCurrent (JS runs on one thread). */
  currentContext: CuHandle | null = null;

  constructor(
    readonly info: CudaDriverInfo,
    readonly api: CudaDriverApi,
    /** Functions the TEST DOUBLE exports (cudaDouble_*); only for test helpers. */
    readonly library: LibraryHandle,
  ) {}

  /** The CUresult name, e.g. 700 → "CUDA_ERROR_ILLEGAL_ADDRESS" (driver first, then cuda.h's table). */
  errorName(result: number): string {
    const out: Out<string | null> = [null];
    if (this.api.cuGetErrorName(result, out) === CUDA_SUCCESS && out[0]) return out[0];
    return cuResultName(result) ?? `CUresult ${result}`;
  }

  /** The driver's description of `result` (e.g. "an illegal memory access was encountered"). */
  errorString(result: number): string {
    const out: Out<string | null> = [null];
    if (this.api.cuGetErrorString(result, out) === CUDA_SUCCESS && out[0]) return out[0];
    return cuResultDescription(result) ?? "unknown CUDA error";
  }

  /** cuDriverGetVersion: 1000 × major + 10 × minor (13000 = CUDA 13.0); works before cuInit. */
  version(): { result: number; version: number } {
    const out: Out<number> = [0];
    const result = this.api.cuDriverGetVersion(out);
    return { result, version: out[0] };
  }
}

const loaded = new Map<string, CudaDriverLoad>(); // by explicit path / CUDASCRIPT_LIBCUDA value
const byLibrary = new Map<string, CudaDriver>(); // by real path (or bare name) of the loaded library

/** Finds and loads the CUDA driver library; cached. Never throws. Does not call cuInit. */
export function loadCudaDriver(options: LoadCudaDriverOptions = {}): CudaDriverLoad {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const key = options.path !== undefined ? `path:${options.path}` : `env:${env[LIBCUDA_ENV] ?? ""}:${platform}`;
  const cached = loaded.get(key);
  if (cached) return cached;
  let result: CudaDriverLoad;
  try {
    if (options.path !== undefined) {
      const attempt = tryLoad(options.path, "path given to loadCudaDriver");
      result = "driver" in attempt ? { ok: true, driver: attempt.driver } : { ok: false, error: new CudaDriverUnavailable([attempt], platform) };
    } else {
      result = loadDiscovered(env, platform);
    }
  } catch (e) {
    // Defensive: tryLoad catches its own errors, but nothing may escape from here.
    result = { ok: false, error: new CudaDriverUnavailable([{ place: options.path ?? "discovery", reason: "loader", failure: errorText(e) }], platform) };
  }
  loaded.set(key, result);
  return result;
}

/** Forget cached failures, so the next loadCudaDriver looks again (e.g. after installing the driver). */
export function forgetCudaDriverLoadFailures(): void {
  for (const [key, value] of loaded) if (!value.ok) loaded.delete(key);
}

function loadDiscovered(env: Readonly<Record<string, string | undefined>>, platform: string): CudaDriverLoad {
  const attempts: CudaDriverAttempt[] = [];
  if (env[LIBCUDA_ENV] === "off") {
    attempts.push({ place: `${LIBCUDA_ENV}=off`, reason: `environment variable ${LIBCUDA_ENV}`, failure: "the GPU driver is disabled on purpose" });
  }
  for (const candidate of cudaDriverCandidates({ env, platform })) {
    const attempt = tryLoad(candidate.path, candidate.reason);
    if ("driver" in attempt) return { ok: true, driver: attempt.driver };
    attempts.push(attempt);
  }
  return { ok: false, error: new CudaDriverUnavailable(attempts, platform) };
}

function tryLoad(libraryPath: string, reason: string): { driver: CudaDriver } | CudaDriverAttempt {
  const fail = (failure: string): CudaDriverAttempt => ({ place: libraryPath, reason, failure });
  const isBareName = !libraryPath.includes("/") && !libraryPath.includes("\\");
  if (!isBareName && !fs.existsSync(libraryPath)) return fail("file does not exist");
  const realKey = isBareName ? libraryPath : realPathOr(libraryPath);
  const already = byLibrary.get(realKey);
  if (already) return { driver: already };
  let lib: LibraryHandle;
  try {
    lib = koffi.load(libraryPath);
  } catch (e) {
    return fail(`could not be loaded: ${firstLine(errorText(e))}`);
  }
  let bound: { api: CudaDriverApi; symbols: CudaDriverInfo["symbols"] };
  try {
    bound = bindDriver(lib);
  } catch (e) {
    lib.unload();
    return fail(`not a usable CUDA driver library: ${firstLine(errorText(e))}`);
  }
  let isTestDouble = false;
  try {
    isTestDouble = lib.func("int cudaDouble_isTestDouble(void)")() === 1;
  } catch {
    // NVIDIA's driver: no such symbol
  }
  const driver = new CudaDriver({ path: libraryPath, reason, isTestDouble, symbols: bound.symbols }, bound.api, lib);
  byLibrary.set(realKey, driver);
  return { driver };
}

// koffi types are process-wide: the handle types are anonymous so that no other module declaring
// `CUctx_st` or similar can collide with them.
let handleTypes: { context: TypeObject; module: TypeObject; fn: TypeObject; stream: TypeObject; event: TypeObject } | undefined;
function types() {
  handleTypes ??= {
    context: koffi.pointer(koffi.opaque()),
    module: koffi.pointer(koffi.opaque()),
    fn: koffi.pointer(koffi.opaque()),
    stream: koffi.pointer(koffi.opaque()),
    event: koffi.pointer(koffi.opaque()),
  };
  return handleTypes;
}

/** Declares every driver function in `lib`. Throws if a required symbol is missing. */
export function bindDriver(lib: LibraryHandle): { api: CudaDriverApi; symbols: CudaDriverInfo["symbols"] } {
  const t = types();
  const intOut = koffi.out(koffi.pointer("int"));
  const out = (handle: TypeObject) => koffi.out(koffi.pointer(handle));
  const first = (names: string[], result: string | TypeObject, args: (string | TypeObject | ReturnType<typeof koffi.out>)[]) => {
    const errors: string[] = [];
    for (const name of names) {
      try {
        return { name, fn: lib.func(name, result, args) };
      } catch (e) {
        errors.push(errorText(e));
      }
    }
    throw new Error(errors.join("; "));
  };
  const cuInit = lib.func("cuInit", "int", ["uint"]); // first: a library without it is no CUDA driver
  const elapsed = first(["cuEventElapsedTime_v2", "cuEventElapsedTime"], "int", [koffi.out(koffi.pointer("float")), t.event, t.event]);
  const release = first(["cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"], "int", ["int"]);
  const api: CudaDriverApi = {
    cuInit,
    cuDriverGetVersion: lib.func("cuDriverGetVersion", "int", [intOut]),
    cuDeviceGetCount: lib.func("cuDeviceGetCount", "int", [intOut]),
    cuDeviceGet: lib.func("cuDeviceGet", "int", [intOut, "int"]),
    cuDeviceGetName: lib.func("cuDeviceGetName", "int", ["void *", "int", "int"]),
    cuDeviceGetAttribute: lib.func("cuDeviceGetAttribute", "int", [intOut, "int", "int"]),
    cuDeviceTotalMem_v2: lib.func("cuDeviceTotalMem_v2", "int", [koffi.out(koffi.pointer("size_t")), "int"]),
    cuDevicePrimaryCtxRetain: lib.func("cuDevicePrimaryCtxRetain", "int", [out(t.context), "int"]),
    cuDevicePrimaryCtxRelease: release.fn,
    cuCtxSetCurrent: lib.func("cuCtxSetCurrent", "int", [t.context]),
    cuCtxSynchronize: lib.func("cuCtxSynchronize", "int", []),
    cuCtxSetLimit: lib.func("cuCtxSetLimit", "int", ["int", "size_t"]),
    cuCtxGetLimit: lib.func("cuCtxGetLimit", "int", [koffi.out(koffi.pointer("size_t")), "int"]),
    cuMemAlloc_v2: lib.func("cuMemAlloc_v2", "int", ["void *", "size_t"]),
    cuMemFree_v2: lib.func("cuMemFree_v2", "int", ["uint64_t"]),
    cuMemcpyHtoD_v2: lib.func("cuMemcpyHtoD_v2", "int", ["uint64_t", "void *", "size_t"]),
    cuMemcpyDtoH_v2: lib.func("cuMemcpyDtoH_v2", "int", ["void *", "uint64_t", "size_t"]),
    cuMemcpyHtoDAsync_v2: lib.func("cuMemcpyHtoDAsync_v2", "int", ["uint64_t", "void *", "size_t", t.stream]),
    cuMemcpyDtoHAsync_v2: lib.func("cuMemcpyDtoHAsync_v2", "int", ["void *", "uint64_t", "size_t", t.stream]),
    cuMemsetD8_v2: lib.func("cuMemsetD8_v2", "int", ["uint64_t", "uint8_t", "size_t"]),
    cuMemHostAlloc: lib.func("cuMemHostAlloc", "int", ["void *", "size_t", "uint"]),
    cuMemFreeHost: lib.func("cuMemFreeHost", "int", ["void *"]),
    cuMemHostRegister_v2: lib.func("cuMemHostRegister_v2", "int", ["void *", "size_t", "uint"]),
    cuMemHostUnregister: lib.func("cuMemHostUnregister", "int", ["void *"]),
    cuMemHostGetDevicePointer_v2: lib.func("cuMemHostGetDevicePointer_v2", "int", ["void *", "void *", "uint"]),
    cuMemAllocManaged: lib.func("cuMemAllocManaged", "int", ["void *", "size_t", "uint"]),
    cuModuleLoadDataEx: lib.func("cuModuleLoadDataEx", "int", [out(t.module), "void *", "uint", "void *", "void *"]),
    cuModuleGetFunction: lib.func("cuModuleGetFunction", "int", [out(t.fn), t.module, "str"]),
    cuModuleUnload: lib.func("cuModuleUnload", "int", [t.module]),
    cuModuleGetGlobal_v2: lib.func("cuModuleGetGlobal_v2", "int", ["void *", koffi.out(koffi.pointer("size_t")), t.module, "str"]),
    cuLaunchKernel: lib.func("cuLaunchKernel", "int", [t.fn, "uint", "uint", "uint", "uint", "uint", "uint", "uint", t.stream, "void *", "void *"]),
    cuLaunchCooperativeKernel: lib.func("cuLaunchCooperativeKernel", "int", [t.fn, "uint", "uint", "uint", "uint", "uint", "uint", "uint", t.stream, "void *"]),
    cuStreamCreate: lib.func("cuStreamCreate", "int", [out(t.stream), "uint"]),
    cuStreamSynchronize: lib.func("cuStreamSynchronize", "int", [t.stream]),
    cuStreamQuery: lib.func("cuStreamQuery", "int", [t.stream]),
    cuStreamDestroy_v2: lib.func("cuStreamDestroy_v2", "int", [t.stream]),
    cuEventCreate: lib.func("cuEventCreate", "int", [out(t.event), "uint"]),
    cuEventRecord: lib.func("cuEventRecord", "int", [t.event, t.stream]),
    cuEventSynchronize: lib.func("cuEventSynchronize", "int", [t.event]),
    cuEventQuery: lib.func("cuEventQuery", "int", [t.event]),
    cuEventElapsedTime: elapsed.fn,
    cuEventDestroy_v2: lib.func("cuEventDestroy_v2", "int", [t.event]),
    cuFuncGetAttribute: lib.func("cuFuncGetAttribute", "int", [intOut, "int", t.fn]),
    cuFuncSetAttribute: lib.func("cuFuncSetAttribute", "int", [t.fn, "int", "int"]),
    cuOccupancyMaxActiveBlocksPerMultiprocessor: lib.func("cuOccupancyMaxActiveBlocksPerMultiprocessor", "int", [intOut, t.fn, "int", "size_t"]),
    cuGetErrorName: lib.func("cuGetErrorName", "int", ["int", koffi.out(koffi.pointer("str"))]),
    cuGetErrorString: lib.func("cuGetErrorString", "int", ["int", koffi.out(koffi.pointer("str"))]),
    ...ipcFunctions(lib),
  };
  return { api, symbols: { eventElapsedTime: elapsed.name, primaryCtxRelease: release.name } };
}

let ipcHandleType: TypeObject | undefined;

/** The IPC functions, where the library exports them (every NVIDIA driver since CUDA 4 does; Windows' return NOT_SUPPORTED). */
function ipcFunctions(lib: LibraryHandle): Pick<CudaDriverApi, "cuIpcGetMemHandle" | "cuIpcOpenMemHandle" | "cuIpcCloseMemHandle"> {
  // CUipcMemHandle: struct { char reserved[64]; }, passed BY VALUE to cuIpcOpenMemHandle.
  ipcHandleType ??= koffi.struct({ reserved: koffi.array("uint8_t", 64, "Typed") });
  try {
    return {
      cuIpcGetMemHandle: lib.func("cuIpcGetMemHandle", "int", ["void *", "uint64_t"]),
      cuIpcOpenMemHandle: lib.func("cuIpcOpenMemHandle_v2", "int", ["void *", ipcHandleType, "uint"]),
      cuIpcCloseMemHandle: lib.func("cuIpcCloseMemHandle", "int", ["uint64_t"]),
    };
  } catch {
    return {};
  }
}

function realPathOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

function firstLine(text: string): string {
  return text.split("\n")[0] ?? text;
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
