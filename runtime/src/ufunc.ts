/**
 * The host side of `cuda.vectorize(fn)` and `cuda.reduce(fn)` (Numba's `@vectorize(target="cuda")` and
 * `@cuda.reduce`). The kernels are made at build time by the compiler from the scalar function
 * (compiler/src/checker/ufuncs.ts); this module broadcasts the arguments, moves them to the device and
 * launches those kernels. It never loads the compiler: without a build-time artifact the kernel compiles
 * from its source at the first call, as a `cuda.jit` kernel does (host/from-source).
 */
import type { KernelArtifact } from "./backend";
import { dtypes, type DTypeName, type TypedArray } from "./dtypes";
import { CudaScriptError } from "./errors";
import { describeValue, DeviceNDArray, dtypeOfTypedArray, isHostNDArray, NDArray } from "./host/arrays";
import { asCudaArray, isForeignCudaArray, viewIfForeign } from "./host/array-interface";
import type { CudaArrayLike } from "./kernel-api";
import { captureCallSite, type PendingCallSite } from "./host/from-source/call-site";
import type { SourceKernel } from "./host/from-source/source-kernel";
import { CompiledKernel } from "./host/kernel";
import type { Stream } from "./host/streams";

type Value = number | bigint | boolean;
type HostArray = TypedArray | NDArray;
/** Any device array: CudaScript's, or another library's through its CUDA Array Interface (docs/interop.md). */
type AnyDeviceArray = DeviceNDArray | CudaArrayLike;
export type UfuncArgument = Value | HostArray | AnyDeviceArray;

export interface UfuncOptions {
  /** Where the result goes: an array of the broadcast shape and the result's dtype (host or device). */
  readonly out?: HostArray | AnyDeviceArray;
  readonly stream?: Stream;
}

/** What a ufunc takes for a parameter of type P: a number (broadcast), a host or device array of its dtype. */
export type UfuncInput<P> = P | HostArray | AnyDeviceArray;

/**
 * `cuda.vectorize(fn)`: applies `fn` to each element, broadcasting its arguments by NumPy's rules. It
 * returns a device array when an input is a device array, else a host array (a typed array for a 1-D
 * result, an NDArray for 2-D and 3-D, a number when every input is a number), or `out` when given.
 */
export interface Ufunc<P extends unknown[] = any[]> {
  (...args: { [K in keyof P]: UfuncInput<P[K]> } | [...{ [K in keyof P]: UfuncInput<P[K]> }, UfuncOptions]): any;
  /** The name of the kernel it launches (`<name>_vectorize`). */
  readonly kernelName: string;
}

export interface ReduceOptions {
  /** The value folded in first: the result is fn(init, fn(…fn(a[0], a[1])…)); returned for an empty array. Default 0. */
  readonly init?: Value;
  /** Reduce only the first `size` elements. */
  readonly size?: number;
  /** A device array whose element 0 receives the result; then nothing is copied back and the call returns undefined. */
  readonly res?: AnyDeviceArray;
  readonly stream?: Stream;
}

/** `cuda.reduce(fn)`: folds a 1-D array with an associative binary function. */
export interface Reducer<T = number> {
  /** With `res`, the result stays on the device and the call returns undefined. */
  (arr: TypedArray | AnyDeviceArray, options: ReduceOptions & { readonly res: AnyDeviceArray }): undefined;
  (arr: TypedArray | AnyDeviceArray, options?: ReduceOptions): T;
  readonly kernelName: string;
}

/** Threads per block of both kernels; the reduction's shared-memory tree has this many slots (compiler REDUCE_BLOCK). */
export const BLOCK = 256;
/** At most this many blocks: the kernels loop over the rest (grid-stride / per-thread chunks). */
export const MAX_BLOCKS = 1024;

/** Finds the ufunc's kernel: from the build-time artifact, else compiled from the source at the first call. */
export function kernelOf(what: string, fn: unknown, artifact: KernelArtifact | undefined, name: string | undefined, site: PendingCallSite): () => CompiledKernel<unknown[]> {
  if (artifact && typeof artifact === "object" && name) {
    const k = new CompiledKernel<unknown[]>(artifact, name, undefined);
    return () => k;
  }
  if (typeof fn !== "function")
    throw new CudaScriptError("CSR037", `${what} takes the scalar function, e.g. ${what}((a: f32, b: f32): f32 => a + b), got ${describeValue(fn)}`);
  let lazy: SourceKernel<unknown[]> | undefined;
  return () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { SourceKernel } = require("./host/from-source/source-kernel") as typeof import("./host/from-source/source-kernel");
    return (lazy ??= new SourceKernel<unknown[]>(fn.name, undefined, site)).compile();
  };
}

// ───────────────────────── vectorize ─────────────────────────

interface Operand {
  /** Padded to 3 dimensions on the left with 1s. */
  readonly shape: readonly number[];
  readonly rank: number;
  readonly device: DeviceNDArray;
  /** A copy this call made (a host array or a scalar): freed after the launch. */
  readonly temporary: boolean;
}

export function vectorize<P extends unknown[]>(fn: (...args: P) => unknown): Ufunc<P>;
export function vectorize(fn: Function, artifact?: KernelArtifact, kernelName?: string): Ufunc;
export function vectorize(fn: Function, artifact?: KernelArtifact, kernelName?: string): Ufunc {
  const kernel = kernelOf("cuda.vectorize", fn, artifact, kernelName, captureCallSite(vectorize));
  const call = (...args: unknown[]): unknown => {
    const k = kernel();
    const sig = k.signature;
    const nin = (sig.length - 3) / 4;
    const inputDtypes = Array.from({ length: nin }, (_, i) => sig[3 + 4 * i]!.dtype as DTypeName);
    const resultDtype = sig[2]!.dtype as DTypeName;
    const ufunc = `ufunc '${k.name.replace(/_vectorize$/, "")}' (${inputDtypes.join(", ")}) => ${resultDtype}`;
    let options: UfuncOptions = {};
    if (args.length === nin + 1 && isOptions(args[nin])) options = args.pop() as UfuncOptions;
    // Another library's arrays (with a __cuda_array_interface__) are device arrays over its memory, as in Numba.
    args = args.map(viewIfForeign);
    if (options.out !== undefined && isForeignCudaArray(options.out)) options = { ...options, out: asCudaArray(options.out) };
    if (args.length !== nin)
      throw new CudaScriptError("CSR037", `${ufunc} takes ${nin} input${nin === 1 ? "" : "s"} (then optionally { out, stream }), but was called with ${args.length} argument${args.length === 1 ? "" : "s"}`);
    if (typeof options !== "object" || options === null) throw new CudaScriptError("CSR037", `${ufunc}: the options are an object like { out, stream }, got ${describeValue(options)}`);
    const stream = options.stream;
    // Check every argument before copying anything.
    const shapes = args.map((a, i) => checkedShape(a, inputDtypes[i]!, `input ${i + 1} of ${ufunc}`));
    const shape = broadcastShapes(shapes, ufunc);
    const out = options.out;
    if (out !== undefined) {
      const outShape = checkedShape(out, resultDtype, `'out' of ${ufunc}`, true);
      if (outShape.length !== shape.length || outShape.some((n, i) => n !== shape[i]))
        throw new CudaScriptError("CSR038", `${ufunc}: 'out' has shape [${outShape.join(", ")}], but the inputs broadcast to [${shape.join(", ")}]: pass an out of shape [${shape.join(", ")}] (cuda.deviceArray([${shape.join(", ")}], ${resultDtype}))`);
    }
    const size = shape.reduce((a, b) => a * b, 1);
    const operands: Operand[] = [];
    let outDevice: DeviceNDArray | undefined;
    try {
      args.forEach((a, i) => operands.push(toOperand(a, inputDtypes[i]!, stream)));
      // The kernel writes a C-order result: an out of another layout gets it through a C-order temporary.
      outDevice = out instanceof DeviceNDArray && out.isCContiguous() ? out : new DeviceNDArray(shape.length ? shape : [1], dtypes[resultDtype]);
      if (size > 0) {
        const [d0, d1, d2] = pad3(shape);
        const launchArgs: unknown[] = [d1, d2, outDevice.ravel()];
        for (const op of operands) {
          const [a0, a1, a2] = op.shape;
          // C strides of the operand, 0 along a dimension it broadcasts (size 1 against a larger result).
          launchArgs.push(op.device.ravel(), a0 === d0 ? a1! * a2! : 0, a1 === d1 ? a2! : 0, a2 === d2 ? 1 : 0);
        }
        k.launch(Math.min(Math.ceil(size / BLOCK), MAX_BLOCKS), BLOCK, { stream })(...launchArgs);
      }
      const anyDevice = args.some((a) => a instanceof DeviceNDArray);
      if (out instanceof DeviceNDArray) {
        if (outDevice !== out && size > 0) out.copyToDevice(outDevice, { stream });
        return out;
      }
      if (out !== undefined) {
        if (size > 0) outDevice.copyToHost(out as HostArray, { stream });
        stream?.synchronize();
        return out;
      }
      // Numba's rule: a device array when any input is on the device, else a host array.
      if (anyDevice) {
        const result = outDevice;
        outDevice = undefined;
        return result;
      }
      const host = new dtypes[resultDtype].arrayType(size) as TypedArray; // a shape [] (all scalars) has size 1
      if (size > 0) outDevice.copyToHost(host, { stream });
      stream?.synchronize();
      if (shape.length === 0) return host[0]; // every input a scalar: a scalar, as NumPy's ufuncs give
      return shape.length === 1 ? host : new NDArray(host, shape);
    } finally {
      if (operands.some((o) => o.temporary) || (outDevice && outDevice !== out)) stream?.synchronize();
      for (const o of operands) if (o.temporary) o.device.free();
      if (outDevice && outDevice !== out) outDevice.free();
    }
  };
  return withKernelName(call, kernel) as unknown as Ufunc;
}

/** `kernelName`, read lazily: a kernel without an artifact compiles only when it is needed. */
export function withKernelName<F extends Function>(call: F, kernel: () => CompiledKernel<unknown[]>): F {
  return Object.defineProperty(call, "kernelName", { get: () => kernel().name, enumerable: true });
}

export function isOptions(v: unknown): boolean {
  return typeof v === "object" && v !== null && Object.getPrototypeOf(v) === Object.prototype;
}

/** The shape of an argument (`[]` for a scalar), after checking its kind and dtype. */
export function checkedShape(v: unknown, dtype: DTypeName, which: string, isOut = false): number[] {
  if (!(dtype in dtypes)) throw new CudaScriptError("CSR037", `${which} is ${dtype}: ufuncs and reductions take real and bool dtypes only; write a cuda.jit kernel`);
  const arrayName = dtypes[dtype].arrayType.name;
  const wrongDtype = (got: string): never => {
    throw new CudaScriptError(
      "CSR039",
      `${which} is ${dtype}, but ${isOut ? "'out' holds" : "the array holds"} ${got}: ${isOut ? `pass a ${arrayName} (or a ${dtype} device array)` : `convert it first (${arrayName}.from(values)), or declare the function's parameter as ${got}`} — CudaScript does not cast silently`,
    );
  };
  if (v instanceof DeviceNDArray) {
    v.checkAlive(which);
    if (v.dtype.name !== dtype) wrongDtype(v.dtype.name);
    return checkRank([...v.shape], which);
  }
  if (isHostNDArray(v) || dtypeOfTypedArray(v)) {
    const data = isHostNDArray(v) ? v.data : (v as TypedArray);
    const got = dtypeOfTypedArray(data);
    if (!got) throw new CudaScriptError("CSR037", `${which}: its .data is ${describeValue(data)}, not a typed array`);
    if (got !== dtype && !(dtype === "bool" && got === "u8")) wrongDtype(got);
    const shape = isHostNDArray(v) ? [...v.shape] : [data.length];
    if (shape.reduce((a, b) => a * b, 1) !== data.length)
      throw new CudaScriptError("CSR038", `${which}: shape [${shape.join(", ")}] holds ${shape.reduce((a, b) => a * b, 1)} elements but the data has ${data.length}`);
    return checkRank(shape, which);
  }
  if (!isOut) {
    if (dtype === "i64" || dtype === "u64") {
      if (typeof v === "bigint") return [];
      throw new CudaScriptError("CSR037", `${which} is ${dtype}: pass a bigint${typeof v === "number" && Number.isSafeInteger(v) ? ` (${v}n)` : ""} or a ${arrayName}, not ${describeValue(v)}`);
    }
    if (dtype === "bool" && typeof v === "boolean") return [];
    if (typeof v === "number") {
      if (dtype !== "f32" && dtype !== "f64" && dtype !== "f16" && !Number.isInteger(v))
        throw new CudaScriptError("CSR039", `${which} is ${dtype}, an integer type, but got ${v}: pass a whole number (Math.trunc or Math.round it), or declare the parameter as f32/f64`);
      return [];
    }
  }
  if (Array.isArray(v)) throw new CudaScriptError("CSR037", `${which} is a plain JavaScript array: pass ${arrayName}.from(values)${isOut ? "" : ", or a number"}`);
  throw new CudaScriptError("CSR037", `${which} must be ${isOut ? "" : "a number, "}a typed array, a cuda.ndarray or a device array, not ${describeValue(v)}`);
}

function checkRank(shape: number[], which: string): number[] {
  if (shape.length > 3) throw new CudaScriptError("CSR038", `${which} has ${shape.length} dimensions; CudaScript arrays have 1 to 3`);
  return shape;
}

/** NumPy's broadcasting: shapes aligned on the right; each dimension equal, or 1 (stretched). */
export function broadcastShapes(shapes: readonly (readonly number[])[], what: string): number[] {
  const rank = Math.max(0, ...shapes.map((s) => s.length));
  const out: number[] = [];
  for (let d = 0; d < rank; d++) {
    let n = 1;
    for (const s of shapes) {
      const m = s[s.length - rank + d] ?? 1;
      if (m === 1) continue;
      if (n !== 1 && m !== n) {
        const list = shapes.map((x) => `[${x.join(", ")}]`).join(", ");
        throw new CudaScriptError(
          "CSR038",
          `${what}: shapes ${list} do not broadcast: aligned on the right, each dimension must be the same or 1 (NumPy's rule); reshape an input (d.reshape(…) or cuda.ndarray(data, shape)) so that they line up`,
        );
      }
      n = m;
    }
    out.push(n);
  }
  return out;
}

export function pad3(shape: readonly number[]): [number, number, number] {
  const p = [1, 1, 1, ...shape].slice(-3);
  return [p[0]!, p[1]!, p[2]!];
}

/**
 * Ufunc and gufunc kernels read their operands in C order: an F-order or strided host or device array
 * as a C-order device copy (the caller frees it), undefined for any other argument.
 */
export function cOrderCopy(v: unknown, dtype: DTypeName, stream: Stream | undefined): DeviceNDArray | undefined {
  if (!((v instanceof DeviceNDArray || v instanceof NDArray) && !v.isCContiguous())) return undefined;
  const device = new DeviceNDArray(v.shape, dtypes[dtype]);
  device.copyToDevice(v as DeviceNDArray, { stream });
  return device;
}

function toOperand(v: unknown, dtype: DTypeName, stream: Stream | undefined): Operand {
  const copy = cOrderCopy(v, dtype, stream);
  if (copy) return { shape: pad3(copy.shape), rank: copy.ndim, device: copy, temporary: true };
  if (v instanceof DeviceNDArray) return { shape: pad3(v.shape), rank: v.ndim, device: v, temporary: false };
  const dt = dtypes[dtype];
  const host: TypedArray = isHostNDArray(v) ? v.data : dtypeOfTypedArray(v) ? (v as TypedArray) : scalarArray(dtype, v as Value);
  const shape = isHostNDArray(v) ? v.shape : dtypeOfTypedArray(v) ? [host.length] : [];
  const device = new DeviceNDArray([Math.max(host.length, 1)], dt);
  if (host.length) device.copyToDevice(host, { stream });
  return { shape: pad3(shape), rank: shape.length, device, temporary: true };
}

/** A one-element array holding a scalar argument (its dtype's rounding: Float32Array rounds an f32). */
export function scalarArray(dtype: DTypeName, v: Value): TypedArray {
  const a = new dtypes[dtype].arrayType(1) as TypedArray;
  (a as unknown as Value[])[0] = typeof v === "boolean" ? (v ? 1 : 0) : v;
  return a;
}

// ───────────────────────── reduce ─────────────────────────

export function reduce<T>(fn: (a: T, b: T) => T): Reducer<T>;
export function reduce(fn: Function, artifact?: KernelArtifact, kernelName?: string): Reducer;
export function reduce(fn: Function, artifact?: KernelArtifact, kernelName?: string): Reducer {
  const kernel = kernelOf("cuda.reduce", fn, artifact, kernelName, captureCallSite(reduce));
  const call = (arr: unknown, options: ReduceOptions = {}): Value | undefined => {
    const k = kernel();
    arr = viewIfForeign(arr);
    if (isForeignCudaArray(options?.res)) options = { ...options, res: asCudaArray(options.res) };
    const dtype = k.signature[1]!.dtype as DTypeName;
    const what = `reduce '${k.name.replace(/_reduce$/, "")}' (${dtype}, ${dtype}) => ${dtype}`;
    if (!isOptions(options)) throw new CudaScriptError("CSR037", `${what}: the options are an object like { init, size, res, stream }, got ${describeValue(options)}`);
    const shape = checkedShape(arr, dtype, `the array given to ${what}`, true);
    if (shape.length !== 1) throw new CudaScriptError("CSR037", `${what} reduces a 1-D array, got shape [${shape.join(", ")}]: pass a 1-D view of every element (d.ravel(), or the NDArray's .data)`);
    const zero: Value = dtype === "i64" || dtype === "u64" ? 0n : dtype === "bool" ? false : 0;
    const init = options.init ?? zero;
    const { res, stream } = options;
    let n = shape[0]!;
    if (options.size !== undefined) {
      if (typeof options.size !== "number" || !Number.isInteger(options.size) || options.size < 0 || options.size > n)
        throw new CudaScriptError("CSR037", `${what}: size is how many elements to reduce, a whole number from 0 to ${n} (the array's length), got ${describeValue(options.size)}`);
      n = options.size;
    }
    if (res !== undefined) {
      if (!(res instanceof DeviceNDArray)) throw new CudaScriptError("CSR037", `${what}: res is a device array that receives the result in its element 0 (cuda.deviceArray(1, ${dtype})), got ${describeValue(res)}`);
      res.checkAlive(`res of ${what}`);
      if (res.dtype.name !== dtype || res.size < 1)
        throw new CudaScriptError("CSR039", `${what}: res must be a ${dtype} device array with at least one element, got ${res.toString()}: pass cuda.deviceArray(1, ${dtype})`);
    }
    if (n === 0) {
      if (!res) return init;
      checkedShape(init, dtype, `init of ${what}`);
      res.ravel().slice(0, 1).copyToDevice(scalarArray(dtype, init), { stream });
      return undefined;
    }
    const blocks = Math.min(Math.ceil(n / BLOCK), MAX_BLOCKS);
    const chunk = Math.ceil(n / (blocks * BLOCK));
    const used = Math.ceil(n / (BLOCK * chunk)); // blocks that hold elements: the partials of the second pass
    const temporaries: DeviceNDArray[] = [];
    try {
      let src: DeviceNDArray;
      if (arr instanceof DeviceNDArray && arr.isCContiguous()) src = arr;
      else {
        src = toOperand(arr, dtype, stream).device;
        temporaries.push(src);
      }
      const partials = new DeviceNDArray([blocks], dtypes[dtype]);
      temporaries.push(partials);
      const result = res ? res.ravel() : new DeviceNDArray([1], dtypes[dtype]);
      if (!res) temporaries.push(result);
      k.launch(blocks, BLOCK, { stream })(n, src, partials, init, 0);
      k.launch(1, BLOCK, { stream })(used, partials, result, init, 1);
      if (res) return undefined;
      const host = result.copyToHost<TypedArray>(undefined, { stream });
      stream?.synchronize();
      const value = (host as unknown as Value[])[0]!;
      return dtype === "bool" ? value !== 0 : value;
    } finally {
      stream?.synchronize();
      for (const t of temporaries) t.free();
    }
  };
  return withKernelName(call, kernel) as unknown as Reducer;
}
