/**
 * A kernel compiled by the CudaScript build (its artifact was embedded by the esbuild plugin):
 * `kernel.launch(grid, block, { stream, sharedMem })(...args)`. The launch configuration is checked
 * when `launch` is called, the arguments against the kernel's signature before anything runs; host
 * typed arrays are copied to the device and back around the launch, as Numba does.
 */
import { numberRange } from "@cudascript/compiler/dtypes";
import type { Backend, Dim3Tuple, FastLaunch, KernelArg, KernelArtifact, LaunchConfig, ModuleHandle } from "../backend";
import { dtypes, isComplexDTypeName, type DTypeName, type TypedArray } from "../dtypes";
import { checkComplexArg, prepareComplexArg } from "./complex-args";
import { checkRecordArg, isRecordArgument, recordBytes } from "./record-args";
import { CudaScriptError, ErrorCodes } from "../errors";
import type { ForallOptions, Kernel, LaunchDim, LaunchOptions } from "../kernel-api";
import { f16round } from "../float16";
import { describeValue, DeviceNDArray, dtypeOfTypedArray, isHostNDArray, NDArray, streamHandle } from "./arrays";
import { asCudaArray, isForeignCudaArray } from "./array-interface";
import { kernelSpanProblem, rowMajorStrides, spanElements } from "../layout";
import { hostVisibleBuffer } from "./host-memory";
import { currentBackend } from "./device";
import { formatBytes } from "../sizes";
import { reportFault, reportingLaunches, reportLaunch } from "../report/launches";
import type { Stream } from "./streams";

type ParamSignature = KernelArtifact["kernels"][string]["signature"][number];

let fastPathEnabled = true;

/** Modules whose load time a kernel has already taken into its "compile" timing (one per module). */
const timedModuleLoads = new WeakSet<ModuleHandle>();

/**
 * @internal Turns the backends' launch fast path off (false) or on: with it off every launch takes the
 * generic path — for the launch benchmark's before/after columns and the tests that compare the two.
 */
export function setLaunchFastPath(enabled: boolean): void {
  fastPathEnabled = enabled;
}

export function paramTypeName(p: ParamSignature): string {
  if (p.kind === "scalar") return p.dtype;
  if (p.record) return p.record.byValue ? p.record.name : `Array${p.rank}D<${p.record.name}>`;
  if (isComplexDTypeName(p.dtype)) return p.rank === 1 ? (p.dtype === "c64" ? "Complex64Array" : "Complex128Array") : `Array${p.rank}D<${p.dtype}>`;
  // bool has no typed array of its own (Uint8Array is u8): 1-D bool parameters are Array1D<bool>.
  if (p.rank === 1 && p.dtype !== "bool") return dtypes[p.dtype].arrayType.name;
  return `Array${p.rank}D<${p.dtype}>`;
}

function signatureText(name: string, sig: readonly ParamSignature[]): string {
  return `${name}(${sig.map((p) => `${p.name}: ${paramTypeName(p)}`).join(", ")})`;
}

export function normalizeDim(d: LaunchDim, what: "grid" | "block", kernel: string): Dim3Tuple {
  const list = typeof d === "number" ? [d] : Array.isArray(d) ? [...d] : undefined;
  const bad = (why: string): never => {
    throw new CudaScriptError("CSR007", `kernel '${kernel}': the ${what} ${why}`);
  };
  if (!list) return bad(`must be a number or a tuple of 1 to 3 numbers, got ${describeValue(d)}`);
  if (list.length < 1 || list.length > 3) return bad(`has ${list.length} dimensions; give 1 to 3 ([x], [x, y] or [x, y, z])`);
  list.forEach((n, i) => {
    if (typeof n !== "number" || !Number.isInteger(n) || n < 1)
      bad(`size ${"xyz"[i]} must be a whole number ≥ 1, got ${typeof n === "number" ? n : describeValue(n)}${typeof n === "number" && n > 0 && !Number.isInteger(n) ? " (use Math.ceil(n / blockSize) for the grid)" : ""}`);
  });
  return [list[0]!, list[1] ?? 1, list[2] ?? 1];
}

/**
 * A kernel as `cuda.jit` returns it: a function only so that calling it like one (`k(2.5, out)`) says
 * how to launch it (CSR060, Numba's "Kernel launch configuration was not specified") instead of a bare
 * "k is not a function". Everything else — launch, forall, name, toString — is the kernel's, reached
 * through the prototype chain (the function's own `name` and `length` are removed so the kernel's show).
 */
export function callableKernel<K extends Kernel<never[]>>(kernel: K): K {
  const notLaunched = (): never => {
    const name = (notLaunched as unknown as K).name;
    throw new CudaScriptError(
      ErrorCodes.LaunchConfigurationMissing,
      `kernel '${name}' was called without a launch configuration: write ${name}.launch(blocks, threadsPerBlock)(…), e.g. ${name}.launch(Math.ceil(n / 256), 256)(…) for n threads, or ${name}.forall(n)(…), which picks the block size`,
    );
  };
  delete (notLaunched as { name?: string }).name;
  delete (notLaunched as { length?: number }).length;
  Object.setPrototypeOf(notLaunched, kernel);
  return notLaunched as unknown as K;
}

export class CompiledKernel<Args extends unknown[]> implements Kernel<Args> {
  readonly name: string;
  readonly signature: readonly ParamSignature[];

  constructor(
    readonly artifact: KernelArtifact,
    kernelName: string,
    readonly options: unknown,
  ) {
    const e = artifact.kernels[kernelName];
    if (!e) throw new CudaScriptError("CSR002", `kernel '${kernelName}' is missing from its compiled artifact (${artifact.file}): rebuild the program`);
    this.name = kernelName;
    this.signature = e.signature;
  }

  toString(): string {
    return `Kernel ${signatureText(this.name, this.signature)}`;
  }

  forall(n: number, options: ForallOptions = {}): (...args: any[]) => void {
    const name = this.name;
    if (typeof n !== "number" || !Number.isInteger(n) || n < 0)
      throw new CudaScriptError("CSR007", `kernel '${name}': forall(n) takes the number of tasks, a whole number ≥ 0, got ${describeValue(n)}`);
    if (typeof options !== "object" || options === null) throw new CudaScriptError("CSR007", `kernel '${name}': forall options must be an object like { tpb, stream, sharedMem }, got ${describeValue(options)}`);
    const { tpb, ...launchOptions } = options;
    const backend = currentBackend();
    const maxThreads = Math.min(backend.limits.maxThreadsPerBlock, this.artifact.kernels[name]!.launchBounds?.maxThreadsPerBlock ?? Infinity);
    const block = tpb ?? backend.suggestBlockSize?.(this.artifact, name, options.sharedMem ?? 0, maxThreads) ?? Math.min(256, maxThreads);
    if (typeof block !== "number" || !Number.isInteger(block) || block < 1)
      throw new CudaScriptError("CSR007", `kernel '${name}': forall's tpb is the number of threads per block, a whole number ≥ 1, got ${describeValue(block)}`);
    if (n === 0) return () => {};
    return this.launch(Math.ceil(n / block), block, launchOptions);
  }

  launch(grid: LaunchDim, block: LaunchDim, options?: LaunchOptions): (...args: any[]) => void {
    const backend = currentBackend();
    // `k.launch(g, b)(…)` in a loop configures the same launcher again and again: the last one is
    // reused while nothing its checks read has changed (the backend, its current device's limits —
    // a new object when the device changes —, the dimensions and the options' values).
    const last = this.lastLauncher;
    if (
      last !== undefined &&
      last.backend === backend &&
      last.limits === backend.limits &&
      sameDim(last.grid, grid) &&
      sameDim(last.block, block) &&
      (options === undefined ? last.stream === undefined && last.sharedMem === undefined : typeof options === "object" && options !== null && options.stream === last.stream && options.sharedMem === last.sharedMem)
    )
      return last.launcher;
    const launcher = this.configure(backend, grid, block, options === undefined ? {} : options);
    this.lastLauncher = {
      backend,
      limits: backend.limits,
      grid: Array.isArray(grid) ? [...(grid as readonly unknown[])] : grid,
      block: Array.isArray(block) ? [...(block as readonly unknown[])] : block,
      stream: options?.stream,
      sharedMem: options?.sharedMem,
      launcher,
    };
    return launcher;
  }

  private lastLauncher: LastLauncher | undefined;

  private configure(backend: Backend, grid: LaunchDim, block: LaunchDim, options: LaunchOptions): (...args: any[]) => void {
    const name = this.name;
    const g = normalizeDim(grid, "grid", name);
    const b = normalizeDim(block, "block", name);
    const L = backend.limits;
    const threads = b[0] * b[1] * b[2];
    if (threads > L.maxThreadsPerBlock)
      throw new CudaScriptError("CSR008", `kernel '${name}': a block of (${b.join(", ")}) has ${threads} threads, but a block can have at most ${L.maxThreadsPerBlock}: use a smaller block and a larger grid`);
    const bound = this.artifact.kernels[name]!.launchBounds?.maxThreadsPerBlock;
    // A GPU refuses such a launch (CUDA_ERROR_INVALID_VALUE: the code was compiled for at most `bound`
    // threads); the check is here so that the simulator refuses it the same way.
    if (bound !== undefined && threads > bound)
      throw new CudaScriptError(
        "CSR008",
        `kernel '${name}': a block of (${b.join(", ")}) has ${threads} threads, but the kernel was compiled with launchBounds ${bound}, so it can run at most ${bound} threads per block: launch blocks of at most ${bound} threads, or raise launchBounds in cuda.jit(fn, { launchBounds })`,
      );
    b.forEach((n, i) => {
      if (n > L.maxBlockDim[i]!) throw new CudaScriptError("CSR008", `kernel '${name}': block size ${"xyz"[i]} = ${n} is over the limit of ${L.maxBlockDim[i]} for that dimension`);
    });
    g.forEach((n, i) => {
      if (n > L.maxGridDim[i]!) throw new CudaScriptError("CSR007", `kernel '${name}': grid size ${"xyz"[i]} = ${n} is over the limit of ${L.maxGridDim[i]} for that dimension`);
    });
    if (typeof options !== "object" || options === null) throw new CudaScriptError("CSR007", `kernel '${name}': launch options must be an object like { stream, sharedMem }, got ${describeValue(options)}`);
    const sharedMem = options.sharedMem ?? 0;
    if (typeof sharedMem !== "number" || !Number.isInteger(sharedMem) || sharedMem < 0)
      throw new CudaScriptError("CSR007", `kernel '${name}': sharedMem is the number of bytes of dynamic shared memory, a whole number ≥ 0, got ${describeValue(sharedMem)}`);
    const entry = this.artifact.kernels[name]!;
    // Static shared arrays are limited to the default 48 KiB; dynamic shared memory may go up to the
    // device's opt-in limit (the GPU backend opts the kernel in above the default).
    if (entry.staticSharedBytes > L.maxSharedPerBlock)
      throw new CudaScriptError(
        "CSR009",
        `kernel '${name}': ${formatBytes(entry.staticSharedBytes)} of static shared memory are over the ${formatBytes(L.maxSharedPerBlock)} a block can have in static shared arrays: declare the rest as dynamic shared memory (cuda.shared.array(0, dtype)) sized with { sharedMem }`,
      );
    const total = sharedMem + entry.staticSharedBytes;
    if (total > L.maxSharedPerBlockOptin)
      throw new CudaScriptError(
        "CSR009",
        `kernel '${name}': ${formatBytes(entry.staticSharedBytes)} of static shared memory plus sharedMem ${sharedMem} (${formatBytes(sharedMem)}) is ${formatBytes(total)}, over the ${formatBytes(L.maxSharedPerBlockOptin)} of shared memory a block can have on ${backend.kind === "simulator" ? "the simulator (which models an sm_80 GPU)" : backend.description}: give each block less (smaller tiles, more blocks)`,
      );
    const stream = streamHandle(options.stream as Stream | undefined);
    // The module's load is timed only for reported launches: every other launch configures straight through.
    const loadStart = reportingLaunches() ? performance.now() : undefined;
    const module = backend.loadModule(this.artifact);
    if (loadStart !== undefined && !timedModuleLoads.has(module)) {
      timedModuleLoads.add(module);
      this.addCompileTime(performance.now() - loadStart);
    }
    const config = { grid: g, block: b, sharedMem, stream };
    // The backend's fast path (GPU: gpu/launch-packer.ts), made at the first launch; it launches only
    // what it can check exactly as the generic path does, and leaves everything else — errors
    // included — to that path.
    let fast: FastLaunch | undefined | null = null;
    const arity = this.signature.length;
    // The arguments of a fast launch go in this array, made once: a rest parameter would be a new
    // array per launch. A launch made while it is in use (re-entrancy, from a Proxy argument's trap)
    // takes the generic path.
    const fastArgs = new Array<unknown>(arity).fill(undefined);
    let fastArgsInUse = false;
    const generic = (args: unknown[]) => this.launchGeneric(backend, module, config, args);
    return function launcher(this: unknown): void {
      const count = arguments.length;
      if (fast === null) fast = backend.fastLauncher?.(module, name, config);
      if (fast !== undefined && count === arity && !fastArgsInUse && fastPathEnabled && !reportingLaunches()) {
        for (let i = 0; i < count; i++) fastArgs[i] = arguments[i];
        fastArgsInUse = true;
        let launched: boolean;
        try {
          launched = fast(fastArgs);
        } finally {
          fastArgsInUse = false;
          fastArgs.fill(undefined); // keep no argument alive after its launch
        }
        if (launched) return;
      }
      const args: unknown[] = [];
      for (let i = 0; i < count; i++) args.push(arguments[i]);
      generic(args);
    };
  }

  private pendingCompileMs: number | undefined;

  /**
   * Time spent making this kernel runnable (compiling it from source, NVRTC/JIT on a GPU, loading the
   * simulator's module): the results panel's "compile" of its next reported launch.
   */
  addCompileTime(ms: number): void {
    this.pendingCompileMs = (this.pendingCompileMs ?? 0) + ms;
  }

  private takeCompileTime(): number | undefined {
    const ms = this.pendingCompileMs;
    this.pendingCompileMs = undefined;
    return ms;
  }

  /** The launch path every backend has: the host's checks (CSR003–CSR012, CSR059…), host-array copies, then Backend.launch. */
  private launchGeneric(backend: Backend, module: ModuleHandle, config: LaunchConfig, args: readonly unknown[]): void {
    const name = this.name;
    const { grid: g, block: b, sharedMem, stream } = config;
    // Timed only when someone shows results: the kernel between two events on its stream (device
    // time on a GPU), the copies of host arrays around it by wall clock.
    const timed = reportingLaunches();
    const t0 = timed ? performance.now() : 0;
    // Any object with a __cuda_array_interface__ (CuPy's, PyTorch's, a native addon's) is a device
    // array argument, as in Numba: viewed in place, its stream synchronised first.
    const prepared = this.prepareArgs(args.some(isForeignCudaArray) ? args.map((v) => (isForeignCudaArray(v) ? asCudaArray(v) : v)) : args);
    const t1 = timed ? performance.now() : 0;
    try {
      const events = timed ? ([backend.createEvent(), backend.createEvent()] as const) : undefined;
      if (events) backend.recordEvent(events[0], stream);
      backend.launch(module, name, config, prepared.args);
      let kernelMs = 0;
      if (events) {
        backend.recordEvent(events[1], stream);
        backend.synchronizeEvent(events[1]);
        kernelMs = backend.elapsedTime(events[0], events[1]);
      }
      const t2 = timed ? performance.now() : 0;
      for (const c of prepared.copyBack) backend.copyDtoH(c.host, c.dev.buffer, 0, stream);
      if (prepared.copyBack.length) backend.synchronizeStream(stream);
      if (timed)
        reportLaunch(backend, this.artifact, name, { grid: g, block: b, sharedMem }, {
          compileMs: this.takeCompileTime(),
          hostToDeviceMs: prepared.copyBack.length ? t1 - t0 : undefined,
          kernelMs,
          deviceToHostMs: prepared.copyBack.length ? performance.now() - t2 : undefined,
        });
    } catch (err) {
      // The launch that failed is a launch too (the panel lists it with its error).
      if (timed) reportLaunch(backend, this.artifact, name, { grid: g, block: b, sharedMem }, { compileMs: this.takeCompileTime() }, err);
      reportFault(backend, err);
      throw err;
    } finally {
      for (const c of prepared.copyBack) c.dev.free();
    }
  }

  private prepareArgs(args: readonly unknown[]): { args: KernelArg[]; copyBack: { host: TypedArray; dev: DeviceNDArray }[] } {
    const sig = this.signature;
    if (args.length !== sig.length)
      throw new CudaScriptError(
        "CSR003",
        `kernel ${signatureText(this.name, sig)} takes ${sig.length} argument${sig.length === 1 ? "" : "s"}, but was launched with ${args.length}`,
      );
    // Check everything before copying anything.
    sig.forEach((p, i) => this.checkArg(p, i, args[i]));
    // A record array is passed as its bytes (docs/abi.md), its fields checked above (records-args.ts).
    args = args.map((v, i) => recordBytes(v, sig[i]!));
    const out: KernelArg[] = [];
    const copyBack: { host: TypedArray; dev: DeviceNDArray }[] = [];
    try {
      sig.forEach((p, i) => {
        const v = args[i];
        if (isComplexDTypeName(p.dtype)) {
          out.push(prepareComplexArg({ ...p, dtype: p.dtype }, v, copyBack));
          return;
        }
        if (p.kind === "scalar") {
          out.push({ kind: "scalar", dtype: p.dtype, value: scalarValue(p, v) });
          return;
        }
        if (v instanceof DeviceNDArray) {
          out.push({ kind: "array", buffer: v.buffer, byteOffset: v.byteOffset, dtype: p.dtype, shape: v.shape, strides: v.elementStrides });
          return;
        }
        const shape = isHostNDArray(v) ? v.shape : [(v as TypedArray).length];
        // A host array goes to the device in its own layout: the bytes its strides span, as they are.
        const strides = v instanceof NDArray ? v.elementStrides : rowMajorStrides(shape);
        const full = isHostNDArray(v) ? v.data : (v as TypedArray);
        const host = full.subarray(0, spanElements(shape, strides)) as TypedArray;
        const inPlace = hostVisibleBuffer(host);
        if (inPlace) {
          // A mapped or managed array: the kernel uses the memory itself, no copies.
          out.push({ kind: "array", buffer: inPlace, byteOffset: host.byteOffset, dtype: p.dtype, shape, strides });
          return;
        }
        const dev = new DeviceNDArray(shape, dtypes[p.dtype], undefined, undefined, strides);
        currentBackend().copyHtoD(dev.buffer, 0, host, null);
        copyBack.push({ host, dev });
        out.push({ kind: "array", buffer: dev.buffer, byteOffset: 0, dtype: p.dtype, shape, strides });
      });
    } catch (e) {
      for (const c of copyBack) c.dev.free();
      throw e;
    }
    return { args: out, copyBack };
  }

  private checkArg(p: ParamSignature, i: number, v: unknown): void {
    const which = `argument ${i + 1} '${p.name}' of kernel '${this.name}'`;
    if (p.record || isRecordArgument(v)) return checkRecordArg(p, which, v);
    const want = paramTypeName(p);
    if ((v instanceof DeviceNDArray || v instanceof NDArray) && p.kind === "array" && p.rank === 1 && v.ndim === 1 && v.elementStrides[0] !== 1 && v.shape[0]! > 1)
      throw new CudaScriptError(
        "CSR059",
        `${which} is a 1-D array, which kernels index as contiguous, but this ${v instanceof NDArray ? "host" : "device"} array is a strided view (every ${v.elementStrides[0]}th element: a column of a C-order array or a row of an F-order one): pass the 2-D array and index it in the kernel (a[i][col]), or copy the elements into a contiguous array first (cuda.deviceArray(n, dtype) and copyToDevice)`,
      );
    if (isComplexDTypeName(p.dtype)) return checkComplexArg({ ...p, dtype: p.dtype }, which, want, v);
    if (p.kind === "scalar") {
      if (p.dtype === "bool") {
        if (typeof v !== "boolean" && !(typeof v === "number" && (v === 0 || v === 1)))
          throw new CudaScriptError("CSR004", `${which} is a bool: pass true or false, not ${describeValue(v)}`);
        return;
      }
      if (p.dtype === "i64" || p.dtype === "u64") return checkInt64Arg(p.dtype, which, v);
      if (typeof v !== "number")
        throw new CudaScriptError("CSR004", `${which} is a number (${p.dtype}), not ${describeValue(v)}${v instanceof DeviceNDArray || ArrayBuffer.isView(v) ? ": check the order of the arguments" : ""}`);
      const range = numberRange(p.dtype);
      if (range) {
        if (!Number.isInteger(v)) throw new CudaScriptError("CSR012", `${which} is an integer (${p.dtype}), got ${v}: pass a whole number (Math.trunc or Math.round it)`);
        if (v < range[0] || v > range[1]) throw new CudaScriptError("CSR012", `${which} is ${p.dtype}, whose range is ${range[0]} … ${range[1]}, got ${v}`);
      }
      return;
    }
    const rankText = (r: number) => (r === 1 ? "1-D" : `${r}-D`);
    if (v instanceof DeviceNDArray) {
      v.checkAlive(which);
      if (v.dtype.name !== p.dtype && !(p.dtype === "bool" && v.dtype.name === "u8"))
        throw new CudaScriptError(
          "CSR005",
          `${which} expects ${want}, but the device array holds ${v.dtype.name}: ${
            v.dtype.name === "bool" ? `declare the parameter Array${p.rank}D<bool> to take a bool array, or copy` : "copy"
          } a ${dtypes[p.dtype].arrayType.name} to the device instead`,
        );
      if (v.ndim !== p.rank)
        throw new CudaScriptError("CSR006", `${which} expects a ${rankText(p.rank)} array (${want}), but the device array is ${rankText(v.ndim)} with shape [${v.shape.join(", ")}]${p.rank > 1 ? ": make it with cuda.toDevice(cuda.ndarray(data, [rows, cols]))" : ""}`);
      return checkKernelSpan(which, v.shape, v.elementStrides);
    }
    let data: unknown, rank: number, shape: readonly number[];
    if (isHostNDArray(v)) {
      data = v.data;
      shape = v.shape;
      rank = shape.length;
      const size = shape.reduce((a, b) => a * b, 1);
      if (!dtypeOfTypedArray(data)) throw new CudaScriptError("CSR004", `${which} expects ${want}; its .data is ${describeValue(data)}, not a typed array`);
      if ((data as TypedArray).length !== size)
        throw new CudaScriptError("CSR011", `${which}: shape [${shape.join(", ")}] holds ${size} elements but the data has ${(data as TypedArray).length}`);
    } else if (dtypeOfTypedArray(v)) {
      data = v;
      shape = [(v as TypedArray).length];
      rank = 1;
    } else if (Array.isArray(v)) {
      throw new CudaScriptError("CSR004", `${which} expects ${want}, got a plain JavaScript array: pass ${dtypes[p.dtype].arrayType.name}.from(values)${p.rank > 1 ? ` wrapped as cuda.ndarray(data, shape)` : ""}`);
    } else {
      throw new CudaScriptError("CSR004", `${which} expects ${want} (a host typed array or a device array), got ${describeValue(v)}`);
    }
    const dt = dtypeOfTypedArray(data)!;
    if (dt !== p.dtype && !(p.dtype === "bool" && dt === "u8"))
      throw new CudaScriptError(
        "CSR005",
        `${which} expects ${want}, got a ${(data as object).constructor.name} (${dt}): convert it, e.g. ${dtypes[p.dtype].arrayType.name}.from(values)`,
      );
    if (rank !== p.rank)
      throw new CudaScriptError(
        "CSR006",
        `${which} expects a ${rankText(p.rank)} array (${want}), got a ${rankText(rank)} one with shape [${shape.join(", ")}]${p.rank > 1 ? `: wrap the data with cuda.ndarray(data, [${p.rank === 2 ? "rows, cols" : "d0, d1, d2"}])` : ": pass the flat typed array (its .data)"}`,
      );
    checkKernelSpan(which, shape, v instanceof NDArray ? v.elementStrides : rowMajorStrides(shape));
  }
}

/** CSR019: kernels index arrays in 32-bit ints (docs/abi.md), on every backend alike. */
function checkKernelSpan(which: string, shape: readonly number[], strides: readonly number[]): void {
  const problem = kernelSpanProblem(shape, strides);
  if (problem)
    throw new CudaScriptError(
      "CSR019",
      `${which} ${problem}, but kernels index arrays with 32-bit ints: an array argument may span at most 2^31 − 1 elements. Split it into parts of fewer elements (views such as d.slice(start, stop)) and launch once per part`,
    );
}

/** The last launcher `launch` configured, and what its checks read. */
interface LastLauncher {
  readonly backend: Backend;
  readonly limits: Backend["limits"];
  /** The dimensions as given (a copy of a tuple). */
  readonly grid: unknown;
  readonly block: unknown;
  readonly stream: unknown;
  readonly sharedMem: number | undefined;
  readonly launcher: (...args: any[]) => void;
}

/** The same launch dimension: the same number, or a tuple of the same numbers (compared by value: the caller may reuse and change an array). */
function sameDim(a: unknown, b: unknown): boolean {
  if (typeof a === "number" || typeof b === "number") return a === b;
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function scalarValue(p: ParamSignature, v: unknown): number | boolean | bigint {
  if (p.dtype === "bool") return v === true || v === 1;
  // A bigint, checked in range (checkInt64Arg): the simulator's i64 value and the GPU's 8 bytes.
  if (p.dtype === "i64" || p.dtype === "u64") return v as bigint;
  const n = v as number;
  if (p.dtype === "f32") return Math.fround(n);
  if (p.dtype === "f16") return f16round(n);
  return n;
}

/** A bigint argument for an i64/u64 parameter: a number is CSR004 (TypeScript would refuse it too), a bigint out of range CSR012. */
function checkInt64Arg(dtype: "i64" | "u64", which: string, v: unknown): void {
  if (typeof v !== "bigint") {
    const instead = typeof v === "number" && Number.isSafeInteger(v) ? `${v}n` : "BigInt(x)";
    throw new CudaScriptError("CSR004", `${which} is a ${dtype} (a bigint), not ${describeValue(v)}: pass ${instead}`);
  }
  const [lo, hi] = dtype === "i64" ? [-(2n ** 63n), 2n ** 63n - 1n] : [0n, 2n ** 64n - 1n];
  if (v < lo || v > hi) throw new CudaScriptError("CSR012", `${which} is ${dtype}, whose range is ${lo} … ${hi}, got ${v}n: wrap it with BigInt.as${dtype === "i64" ? "Int" : "Uint"}N(64, x) if you mean its low 64 bits`);
}
