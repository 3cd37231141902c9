// Test helpers for the TEST DOUBLE of libcuda.so.1 (test/driver-double/libcuda.c) — a fake CUDA
// driver written in C that keeps "device memory" in host RAM, records every call and returns
// scripted errors. It is NOT NVIDIA's driver: nothing runs on a GPU.
//
// `driverDoubleOrSkip(t)` builds the double with gcc (once per source version, into the OS temp
// dir), loads it through the ordinary loader (loadCudaDriver({ path })), and returns a handle to
// its control API (cudaDouble_*). Without gcc the test is skipped loudly, unless
// CUDASCRIPT_REQUIRE_DRIVER_DOUBLE=1 (then it fails). It lives beside libcuda.c, in the repository's
// tests only (test/tsconfig.support.json builds it into test/dist/driver-double/): the published
// @cudascript/native-bindings ships no part of the double.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { TestContext } from "node:test";
import * as v8 from "node:v8";
import * as vm from "node:vm";
import { CudaContext, forgetCudaContexts, loadCudaDriver, type CudaDriver, type DevicePointer } from "@cudascript/native-bindings/cuda";

/** One call recorded by the double (a line of its JSON-lines log). */
export interface DoubleLogEntry {
  /** Issue order, from 1 after each reset. */
  seq: number;
  /** The exported symbol that was called, e.g. "cuMemAlloc_v2". */
  call: string;
  /** The CUresult it returned. */
  result: number;
  /** Call-specific fields (see test/driver-double/README.md); handles and pointers are "0x…" strings. */
  [field: string]: unknown;
}

export interface DoubleLiveObjects {
  allocations: number;
  allocationBytes: number;
  pinned: number;
  modules: number;
  streams: number;
  events: number;
  pendingOperations: number;
}

/** The control API of a loaded test double, plus the CudaDriver bound to it. */
export interface DriverDouble {
  /** Path of the built libcuda.so.1 (the TEST DOUBLE). */
  path: string;
  driver: CudaDriver;
  /** Frees everything, forgets scripting and the log, back to "cuInit not called"; returns how many objects were still alive. */
  reset(): number;
  log(): DoubleLogEntry[];
  /** Log entries of the given calls only. */
  calls(...names: string[]): DoubleLogEntry[];
  clearLog(): void;
  /** Off (false): calls are counted but not logged, so the double's JSON formatting stays out of launch timings (bench/launch.mjs). On again after reset(). */
  setLogging(on: boolean): void;
  failNext(functionName: string, result: number): void;
  failNextJit(result: number, errorLog: string): void;
  failKernel(kernel: string, result: number): void;
  /** The next launch of `kernel` faults at once: the very next call of any kind returns `result` (sticky). */
  failKernelAtNextCall(kernel: string, result: number): void;
  poison(result: number): void;
  setDeviceCount(count: number): void;
  setInitResult(result: number): void;
  setDriverVersion(version: number): void;
  setMaxPtxVersion(version: number): void;
  setDeviceName(device: number, name: string): void;
  setDeviceAttribute(device: number, attribute: number, value: number): void;
  setTotalMem(device: number, bytes: number): void;
  setFunctionAttribute(kernel: string, attribute: number, value: number): void;
  setLaunchMillis(ms: number): void;
  callCount(functionName: string): number;
  /**
   * Every launch of `kernel` prints `text` with device printf: buffered in the context's printf
   * FIFO (one record per line, records beyond CU_LIMIT_PRINTF_FIFO_SIZE dropped) and written to
   * the process's stdout only at a synchronization point or when the context is destroyed.
   */
  printfOnLaunch(kernel: string, text: string): void;
  /**
   * Every launch of `kernel` adds `amount` to the 8-byte module-scope variable `global` of its
   * module when the launch executes (at a synchronization point), as the kernel's atomicAdd would.
   */
  addToGlobalOnLaunch(kernel: string, global: string, amount: number | bigint): void;
  /** Printf bytes device `device`'s context dropped because its FIFO was full. */
  printfDropped(device?: number): number;
  live(): DoubleLiveObjects;
  primaryContextRefcount(device: number): number;
  stickyError(): number;
  /** Device memory as the double holds it (no driver call, not logged); undefined if out of range. */
  readDevice(pointer: DevicePointer | { readonly pointer: DevicePointer }, bytes: number): Uint8Array | undefined;
  /** Writes device memory directly, e.g. to play a kernel's output. */
  writeDevice(pointer: DevicePointer | { readonly pointer: DevicePointer }, data: ArrayBufferView): boolean;
}

export interface BuildOptions {
  /** Extra compiler flags, e.g. ["-DCUDASCRIPT_DOUBLE_OLD_DRIVER"]. */
  flags?: string[];
  /** Where test/driver-double lives (default: found from this file, or $CUDASCRIPT_DRIVER_DOUBLE_DIR). */
  sourceDir?: string;
}

export type BuildResult = { ok: true; path: string } | { ok: false; reason: string };

/** The directory holding libcuda.c and build.sh. */
export function driverDoubleSourceDir(): string {
  return process.env.CUDASCRIPT_DRIVER_DOUBLE_DIR ?? path.resolve(__dirname, "..", "..", "driver-double") /* from test/dist/driver-double */;
}

/** Builds the double (cached by source hash and flags) and returns the path of its libcuda.so.1. */
export function buildDriverDouble(options: BuildOptions = {}): BuildResult {
  if (process.platform !== "linux") return { ok: false, reason: `the driver test double is built for Linux only (this is ${process.platform})` };
  const dir = options.sourceDir ?? driverDoubleSourceDir();
  const source = path.join(dir, "libcuda.c");
  const script = path.join(dir, "build.sh");
  if (!fs.existsSync(source) || !fs.existsSync(script)) return { ok: false, reason: `no test double source in ${dir}` };
  // CUDASCRIPT_DRIVER_DOUBLE_CFLAGS adds compiler flags, e.g. "-fsanitize=address" when debugging the double.
  const extra = (process.env.CUDASCRIPT_DRIVER_DOUBLE_CFLAGS ?? "").split(/\s+/).filter((f) => f.length > 0);
  const flags = [...(options.flags ?? []), ...extra];
  const hash = createHash("sha256")
    .update(fs.readFileSync(source))
    .update(fs.readFileSync(script))
    .update(JSON.stringify(flags))
    .update(process.env.CC ?? "")
    .digest("hex")
    .slice(0, 16);
  const user = typeof process.getuid === "function" ? String(process.getuid()) : "user";
  const outDir = path.join(os.tmpdir(), `cudascript-driver-double-${user}`, hash);
  const library = path.join(outDir, "libcuda.so.1");
  if (fs.existsSync(library)) return { ok: true, path: library };
  const run = spawnSync("sh", [script, outDir, ...flags], { encoding: "utf8" });
  if (run.error) return { ok: false, reason: `could not run ${script}: ${run.error.message}` };
  if (run.status !== 0) return { ok: false, reason: `${script} failed (exit ${run.status}); is gcc installed?\n${run.stderr}` };
  return fs.existsSync(library) ? { ok: true, path: library } : { ok: false, reason: `${script} did not produce ${library}` };
}

const doubles = new Map<string, DriverDouble>();
let explained = false;

/** The test double for this test (reset, with the log cleared), or undefined after skipping the test. */
export function driverDoubleOrSkip(t: TestContext, options: BuildOptions = {}): DriverDouble | undefined {
  const built = buildDriverDouble(options);
  if (!built.ok) {
    const headline = `libcuda test double unavailable: ${built.reason.split("\n")[0]}`;
    if (process.env.CUDASCRIPT_REQUIRE_DRIVER_DOUBLE === "1") throw new Error(`CUDASCRIPT_REQUIRE_DRIVER_DOUBLE=1 but ${headline}\n${built.reason}`);
    console.warn(`\n*** SKIPPING "${t.name}": ${headline}${explained ? "" : `\n${built.reason}\n(set CUDASCRIPT_REQUIRE_DRIVER_DOUBLE=1 to make this a failure)`}\n`);
    explained = true;
    t.skip(headline);
    return undefined;
  }
  const double = openDriverDouble(built.path);
  double.reset();
  return double;
}

/** Loads the double at `libraryPath` (through loadCudaDriver) and binds its control API. */
export function openDriverDouble(libraryPath: string): DriverDouble {
  const cached = doubles.get(libraryPath);
  if (cached) return cached;
  const load = loadCudaDriver({ path: libraryPath });
  if (!load.ok) throw load.error;
  const driver = load.driver;
  if (!driver.info.isTestDouble) throw new Error(`${libraryPath} is not the CudaScript driver test double`);
  const lib = driver.library;
  const fn = {
    reset: lib.func("int cudaDouble_reset(void)"),
    copyLog: lib.func("size_t cudaDouble_copyLog(void *out, size_t capacity)"),
    clearLog: lib.func("void cudaDouble_clearLog(void)"),
    setLogging: lib.func("void cudaDouble_setLogging(int on)"),
    failNext: lib.func("void cudaDouble_failNext(const char *fn, int result)"),
    failNextJit: lib.func("void cudaDouble_failNextJit(int result, const char *log)"),
    failKernel: lib.func("void cudaDouble_failKernel(const char *kernel, int result)"),
    failKernelAtNextCall: lib.func("void cudaDouble_failKernelAtNextCall(const char *kernel, int result)"),
    poison: lib.func("void cudaDouble_poison(int result)"),
    setDeviceCount: lib.func("void cudaDouble_setDeviceCount(int count)"),
    setInitResult: lib.func("void cudaDouble_setInitResult(int result)"),
    setDriverVersion: lib.func("void cudaDouble_setDriverVersion(int version)"),
    setMaxPtxVersion: lib.func("void cudaDouble_setMaxPtxVersion(int version)"),
    setDeviceName: lib.func("void cudaDouble_setDeviceName(int device, const char *name)"),
    setDeviceAttribute: lib.func("void cudaDouble_setDeviceAttribute(int device, int attribute, int value)"),
    setTotalMem: lib.func("void cudaDouble_setTotalMem(int device, unsigned long long bytes)"),
    setFunctionAttribute: lib.func("void cudaDouble_setFunctionAttribute(const char *kernel, int attribute, int value)"),
    setLaunchMillis: lib.func("void cudaDouble_setLaunchMillis(double ms)"),
    printfOnLaunch: lib.func("void cudaDouble_printfOnLaunch(const char *kernel, const char *text)"),
    printfDropped: lib.func("unsigned long long cudaDouble_printfDropped(int device)"),
    addToGlobalOnLaunch: lib.func("void cudaDouble_addToGlobalOnLaunch(const char *kernel, const char *global, unsigned long long amount)"),
    callCount: lib.func("long cudaDouble_callCount(const char *fn)"),
    liveAllocations: lib.func("int cudaDouble_liveAllocations(void)"),
    liveAllocationBytes: lib.func("unsigned long long cudaDouble_liveAllocationBytes(void)"),
    livePinned: lib.func("int cudaDouble_livePinned(void)"),
    liveModules: lib.func("int cudaDouble_liveModules(void)"),
    liveStreams: lib.func("int cudaDouble_liveStreams(void)"),
    liveEvents: lib.func("int cudaDouble_liveEvents(void)"),
    pending: lib.func("int cudaDouble_pendingOperations(void)"),
    refcount: lib.func("int cudaDouble_primaryContextRefcount(int device)"),
    sticky: lib.func("int cudaDouble_stickyError(void)"),
    readDevice: lib.func("int cudaDouble_readDevice(unsigned long long dptr, void *out, size_t bytes)"),
    writeDevice: lib.func("int cudaDouble_writeDevice(unsigned long long dptr, const void *data, size_t bytes)"),
  };
  const log = (): DoubleLogEntry[] => {
    const size = Number(fn.copyLog(null, 0));
    const buffer = Buffer.alloc(size + 1);
    fn.copyLog(buffer, buffer.length);
    return buffer
      .subarray(0, size)
      .toString("utf8")
      .split("\n")
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as DoubleLogEntry);
  };
  const double: DriverDouble = {
    path: libraryPath,
    driver,
    reset: () => {
      forgetCudaContexts(driver);
      driver.currentContext = null;
      return fn.reset() as number;
    },
    log,
    calls: (...names) => log().filter((e) => names.includes(e.call)),
    clearLog: () => fn.clearLog(),
    setLogging: (on) => fn.setLogging(on ? 1 : 0),
    failNext: (name, result) => fn.failNext(name, result),
    failNextJit: (result, errorLog) => fn.failNextJit(result, errorLog),
    failKernel: (kernel, result) => fn.failKernel(kernel, result),
    failKernelAtNextCall: (kernel, result) => fn.failKernelAtNextCall(kernel, result),
    poison: (result) => fn.poison(result),
    setDeviceCount: (count) => fn.setDeviceCount(count),
    setInitResult: (result) => fn.setInitResult(result),
    setDriverVersion: (version) => fn.setDriverVersion(version),
    setMaxPtxVersion: (version) => fn.setMaxPtxVersion(version),
    setDeviceName: (device, name) => fn.setDeviceName(device, name),
    setDeviceAttribute: (device, attribute, value) => fn.setDeviceAttribute(device, attribute, value),
    setTotalMem: (device, bytes) => fn.setTotalMem(device, bytes),
    setFunctionAttribute: (kernel, attribute, value) => fn.setFunctionAttribute(kernel, attribute, value),
    setLaunchMillis: (ms) => fn.setLaunchMillis(ms),
    callCount: (name) => Number(fn.callCount(name)),
    printfOnLaunch: (kernel, text) => fn.printfOnLaunch(kernel, text),
    printfDropped: (device = 0) => Number(fn.printfDropped(device)),
    addToGlobalOnLaunch: (kernel, global, amount) => fn.addToGlobalOnLaunch(kernel, global, BigInt(amount)),
    live: () => ({
      allocations: fn.liveAllocations() as number,
      allocationBytes: Number(fn.liveAllocationBytes()),
      pinned: fn.livePinned() as number,
      modules: fn.liveModules() as number,
      streams: fn.liveStreams() as number,
      events: fn.liveEvents() as number,
      pendingOperations: fn.pending() as number,
    }),
    primaryContextRefcount: (device) => fn.refcount(device) as number,
    stickyError: () => fn.sticky() as number,
    readDevice: (pointer, bytes) => {
      const out = new Uint8Array(Math.max(bytes, 1));
      return fn.readDevice(address(pointer), out, bytes) === 0 ? out.subarray(0, bytes) : undefined;
    },
    writeDevice: (pointer, data) => fn.writeDevice(address(pointer), data, data.byteLength) === 0,
  };
  doubles.set(libraryPath, double);
  return double;
}

/** Hex string of a view's bytes, as the double logs kernel parameters. */
export function hexBytes(view: ArrayBufferView): string {
  return Buffer.from(view.buffer, view.byteOffset, view.byteLength).toString("hex");
}

/** A handle or device address (a bigint, or an allocation / range with `pointer`) as the double logs it: `0x…`. */
export const hex = (n: bigint | { readonly pointer: bigint }): string => `0x${address(n).toString(16)}`;

function address(p: DevicePointer | { readonly pointer: DevicePointer }): DevicePointer {
  return typeof p === "bigint" ? p : p.pointer;
}

/** Runs `body` (sync or async) with the double's device-0 context retained, releasing it afterwards if still usable. */
export function withContext<T>(double: DriverDouble, body: (ctx: CudaContext) => T): T {
  const ctx = CudaContext.retain(double.driver);
  const release = (): void => {
    if (ctx.refcount > 0 && ctx.usable) ctx.release();
  };
  let result: T;
  try {
    result = body(ctx);
  } catch (e) {
    release();
    throw e;
  }
  // An async body keeps the context until it has finished.
  if (result instanceof Promise) return result.finally(release) as T;
  release();
  return result;
}

/**
 * Forces garbage collection in this process until `done()` holds (at most 50 rounds, letting
 * FinalizationRegistry callbacks run in between); returns `done()`. For tests of finalizers, such
 * as pinned memory freed when its last view is collected. V8's gc is exposed at run time here, so
 * the test runner needs no --expose-gc.
 */
export async function collectGarbageUntil(done: () => boolean): Promise<boolean> {
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc") as () => void;
  for (let round = 0; round < 50 && !done(); round++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return done();
}
