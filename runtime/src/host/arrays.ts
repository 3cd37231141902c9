/**
 * Host N-D arrays (`cuda.ndarray`) and device arrays (`cuda.toDevice`, `cuda.deviceArray`, …),
 * Numba's host API camelCased.
 */
import { captureCallSite } from "./from-source/call-site";
import { RecordArray, recordByteShape, type RecordDtype, type RecordFields } from "../records";
import { DEVICE_ARRAY, type DeviceBuffer, type StreamHandle } from "../backend";
import { complexDtypes, dtypes, isComplexDTypeName, type Array2D, type Array3D, type ComplexDType, type ComplexDTypeName, type DType, type DTypeName, type NumberTypedArray, type TypedArray } from "../dtypes";
import { Complex64Array, isComplexArray, type Complex128Array, type ComplexValue } from "../complex-array";
import * as os from "node:os";
import { CudaScriptError } from "../errors";
import { formatBytes } from "../sizes";
import { isFloat16Array } from "../float16";
import { currentBackend } from "./device";
import type { Stream } from "./streams";
import { raveledLayout, reshapedLayout, rowShape, slicedRange, transposedLayout, type Order, type ViewLayout } from "./views";
import { columnMajorStrides, isContiguousIn, rowMajorStrides, spanElements } from "../layout";
import { copyDeviceToDevice, copyDeviceToHost, copyHostToDevice } from "./layout-copies";
import { describeCudaArray, type CudaArrayInterface } from "./array-interface-export";
import { ipcHandleOf, type IpcHandle } from "./ipc-export";
import { dlpackOf } from "./dlpack-export";

/** @internal device memory a DeviceNDArray views without owning it (see DeviceNDArray.foreign). */
export interface ForeignMemory {
  /** Kept alive as long as the array: the object whose memory it is. */
  readonly owner: unknown;
  /** Called once, by free() (closes an IPC mapping, calls a DLPack deleter). */
  readonly release?: () => void;
}

/** @internal how a foreign array is made: its buffer (which aliases the memory) and the offset in it. */
export interface ForeignView {
  readonly buffer: DeviceBuffer;
  readonly byteOffset: number;
  readonly foreign: ForeignMemory;
}

export type Shape = number | readonly number[];

/** A host array of complex numbers: interleaved parts behind complex elements. */
export type HostComplexArray = Complex64Array | Complex128Array;

/** The complex dtype a Complex64Array / Complex128Array stores (as a DType: device arrays need only its name and size). */
function complexDTypeOf(a: HostComplexArray): DType {
  return complexDtypes[a instanceof Complex64Array ? "c64" : "c128"] as unknown as DType;
}

/** The dtype of each typed-array class (Uint8Array is u8: a bool array is asked for by its parameter type). */
const TYPED_ARRAY_DTYPES = new Map<unknown, DTypeName>(
  (Object.keys(dtypes) as DTypeName[]).filter((d) => d !== "bool" && d !== "f16").map((d) => [dtypes[d].arrayType, d]),
);

/** The dtype a typed array stores, or undefined for other values (Uint8ClampedArray, DataView, …). */
export function dtypeOfTypedArray(a: unknown): DTypeName | undefined {
  // Before isView: the polyfill's Float16Array (Node 20/22) is a proxy that isView does not recognise.
  if (isFloat16Array(a)) return "f16";
  if (!ArrayBuffer.isView(a) || a instanceof DataView) return undefined;
  return TYPED_ARRAY_DTYPES.get(a.constructor);
}

export function describeValue(v: unknown): string {
  if (v === null) return "null";
  if (v === undefined) return "undefined";
  if (typeof v === "number") return `the number ${v}`;
  if (typeof v === "boolean") return `the boolean ${v}`;
  if (typeof v === "string") return "a string";
  if (typeof v === "bigint") return `the bigint ${v}n`;
  if (Array.isArray(v)) return "a plain JavaScript array";
  if (v instanceof DeviceNDArray) return `a device array of ${v.dtype.name} with shape [${v.shape.join(", ")}]`;
  if (v instanceof NDArray) return `a host ${v.ndim}-D array of ${v.dtype.name} with shape [${v.shape.join(", ")}]`;
  if (isComplexArray(v)) return `a ${v.constructor.name} of ${v.length} elements`;
  if (ArrayBuffer.isView(v)) return `a ${v.constructor.name}`;
  if (typeof v === "function") return "a function";
  return `an object (${Object.prototype.toString.call(v)})`;
}

export function normalizeShape(shape: Shape, what: string): number[] {
  const s = typeof shape === "number" ? [shape] : Array.isArray(shape) ? [...shape] : undefined;
  if (!s || s.length < 1 || s.length > 3 || !s.every((n) => Number.isInteger(n) && n >= 0))
    throw new CudaScriptError("CSR013", `${what}: a shape is a whole number or a tuple of 1 to 3 whole numbers ≥ 0, got ${describeShape(shape)}`);
  return s;
}

/** A shape as written (JSON.stringify would print NaN and Infinity as null). */
function describeShape(shape: unknown): string {
  if (typeof shape === "number") return String(shape);
  if (Array.isArray(shape)) return `[${shape.map((n) => (typeof n === "number" ? String(n) : describeValue(n))).join(", ")}]`;
  return describeValue(shape);
}

/** Host memory for `count` elements of `t`; CSR017 (instead of a bare RangeError) when the machine cannot provide it. */
function allocHost(t: DType, count: number, what: string, make: () => TypedArray): TypedArray {
  try {
    return make();
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    const bytes = count * t.bytes;
    const limit = count > MAX_TYPED_ARRAY_LENGTH ? `; a JavaScript typed array holds at most ${MAX_TYPED_ARRAY_LENGTH.toLocaleString("en-US")} elements` : "";
    throw new CudaScriptError(
      "CSR017",
      `out of host memory: ${what} asked ${formatBytes(bytes)} (${count.toLocaleString("en-US")} ${t.name} elements), the machine has ${formatBytes(os.freemem())} free of ${formatBytes(os.totalmem())}${limit}: use smaller arrays`,
    );
  }
}

/** V8's limit on a typed array's length (2^32 on 64-bit Node 20). */
const MAX_TYPED_ARRAY_LENGTH = 2 ** 32;

/** The dtypes a host API call takes, as its messages list them. */
const DTYPE_LIST = "f32, f64, f16, i32, u32, i16, u16, i8, u8, i64, u64, bool, c64 or c128";

export function toDType(d: DType | DTypeName | ComplexDType | ComplexDTypeName | undefined, what: string): DType {
  if (d === undefined) throw new CudaScriptError("CSR013", `${what}: give a dtype (${DTYPE_LIST} from "cudascript")`);
  const name = typeof d === "string" ? d : d?.name;
  // Complex dtypes hold two parts per element; a device array needs only their name and byte size.
  const t = name ? ((dtypes as Record<string, DType>)[name] ?? (complexDtypes as Record<string, unknown>)[name] as DType | undefined) : undefined;
  if (!t) throw new CudaScriptError("CSR013", `${what}: ${JSON.stringify(d)} is not a dtype; use ${DTYPE_LIST} from "cudascript"`);
  return t;
}

/** `cuda.ndarray` / `cuda.pinnedArray` layout options (Numba's `order`, NumPy's byte `strides`). */
export interface LayoutOptions {
  /** "C" (row-major, the default) or "F" (column-major: the first index varies fastest). */
  readonly order?: Order;
  /** Byte strides, one per dimension, positive multiples of the item size (instead of `order`). */
  readonly strides?: readonly number[];
}

/**
 * A host N-D array: `data` with a `shape`, in C order (row-major, the default), F order or any positive
 * strides. Index it like the kernel does (`a[i][j]`), or use `data` directly for speed (its elements are
 * in the array's layout). Accepted wherever a kernel takes Array2D/Array3D.
 */
// The default element arrays hold numbers, so `nd.data[i] - x` type-checks; an i64 array is NDArray<BigInt64Array>,
// a complex one NDArray<Complex64Array> (its elements `.get(i)` / `a[i][j]` are { re, im }).
export class NDArray<D extends TypedArray | HostComplexArray = NumberTypedArray> {
  readonly shape: readonly number[];
  readonly dtype: DType;
  /** @internal the element stride of each dimension; `strides` is in bytes (NumPy's). */
  readonly elementStrides: readonly number[];
  [index: number]: any;

  constructor(
    readonly data: D,
    shape: Shape,
    layout?: LayoutOptions,
  ) {
    const dt = isComplexArray(data) ? undefined : dtypeOfTypedArray(data);
    if (!dt && !isComplexArray(data))
      throw new CudaScriptError("CSR004", `cuda.ndarray takes a typed array (Float32Array, Int32Array, …) or a Complex64Array / Complex128Array, got ${describeValue(data)}`);
    this.dtype = dt ? dtypes[dt] : complexDTypeOf(data as HostComplexArray);
    this.shape = Object.freeze(normalizeShape(shape, "cuda.ndarray"));
    if (layout !== undefined && isComplexArray(data) && (layout.order === "F" || layout.strides))
      throw new CudaScriptError("CSR028", `cuda.ndarray: complex host arrays are C-ordered; give the elements in row-major order (or make an F-order complex device array with cuda.deviceArray(shape, c64, { order: "F" }))`);
    this.elementStrides = Object.freeze(layoutStrides(this.shape, this.dtype, layout, "cuda.ndarray"));
    const size = this.shape.reduce((a, b) => a * b, 1);
    const contiguous = isContiguousIn("C", this.shape, this.elementStrides) || isContiguousIn("F", this.shape, this.elementStrides);
    const span = spanElements(this.shape, this.elementStrides);
    if (contiguous ? size !== data.length : span > data.length)
      throw new CudaScriptError(
        "CSR011",
        contiguous
          ? `cuda.ndarray: shape [${this.shape.join(", ")}] holds ${size} elements but the data has ${data.length}`
          : `cuda.ndarray: shape [${this.shape.join(", ")}] with strides [${this.strides.join(", ")}] reaches element ${span - 1}, but the data has ${data.length}`,
      );
    return new Proxy(this, {
      get(target, prop, receiver) {
        if (typeof prop === "string" && /^\d+$/.test(prop)) return target.row(Number(prop));
        return Reflect.get(target, prop, receiver);
      },
    });
  }

  get ndim(): number {
    return this.shape.length;
  }
  get length(): number {
    return this.shape[0]!;
  }
  get size(): number {
    return this.shape.reduce((a, b) => a * b, 1);
  }
  /** NumPy's `strides`: the bytes between consecutive elements of each dimension. */
  get strides(): readonly number[] {
    return this.elementStrides.map((s) => s * this.dtype.bytes);
  }
  isCContiguous(): boolean {
    return isContiguousIn("C", this.shape, this.elementStrides);
  }
  isFContiguous(): boolean {
    return isContiguousIn("F", this.shape, this.elementStrides);
  }

  /**
   * `a[i]`: a row view (of a 2-D array a 1-D typed array where the row is contiguous, else a 1-D NDArray
   * with the row's stride; of a 3-D array a 2-D NDArray).
   */
  row(i: number): TypedArray | HostComplexArray | NDArray<D> | number | bigint | ComplexValue {
    const [n, ...rest] = this.shape;
    if (i >= n!) return undefined as unknown as number;
    const data = this.data;
    const [s0, ...restStrides] = this.elementStrides;
    if (rest.length === 0) return isComplexArray(data) ? data.get(i * s0!) : (data as TypedArray)[i * s0!]!;
    const first = i * s0!;
    const inner = rest.reduce((a, b) => a * b, 1);
    if (isContiguousIn("C", rest, restStrides)) {
      // A complex row is a Complex64Array / Complex128Array over its rows' parts (zero-copy, as subarray is).
      const sub = (isComplexArray(data)
        ? new (data.constructor as new (parts: Float32Array | Float64Array) => HostComplexArray)(data.data.subarray(2 * first, 2 * (first + inner)))
        : (data as TypedArray).subarray(first, first + inner)) as D;
      return rest.length === 1 ? sub : new NDArray(sub, rest);
    }
    const sub = (data as TypedArray).subarray(first, first + spanElements(rest, restStrides)) as D;
    return new NDArray(sub, rest, { strides: restStrides.map((s) => s * this.dtype.bytes) });
  }

  toString(): string {
    return `NDArray(${this.dtype.name}, [${this.shape.join(", ")}]${this.isCContiguous() ? "" : `, strides [${this.strides.join(", ")}]`})`;
  }
}

/**
 * The element strides of a new array: C order by default, `order: "F"`, or byte `strides` (positive
 * multiples of the item size, one per dimension); CSR028 for anything else.
 */
export function layoutStrides(shape: readonly number[], dtype: DType, layout: LayoutOptions | undefined, what: string): number[] {
  if (layout === undefined || layout === null) return rowMajorStrides(shape);
  if (typeof layout !== "object") throw new CudaScriptError("CSR028", `${what}: the layout options are an object like { order: "F" } or { strides: [...] }, got ${describeValue(layout)}`);
  const { order, strides } = layout;
  if (order !== undefined && order !== "C" && order !== "F")
    throw new CudaScriptError("CSR028", `${what}: order is "C" (row-major) or "F" (column-major), got ${JSON.stringify(order) ?? String(order)}`);
  if (strides === undefined) return order === "F" ? columnMajorStrides(shape) : rowMajorStrides(shape);
  if (order !== undefined) throw new CudaScriptError("CSR028", `${what}: give order or strides, not both (strides already fix the layout)`);
  const b = dtype.bytes;
  if (!Array.isArray(strides) || strides.length !== shape.length || !strides.every((s) => Number.isInteger(s) && s > 0 && s % b === 0))
    throw new CudaScriptError(
      "CSR028",
      `${what}: strides are byte strides, one per dimension (${shape.length} for shape [${shape.join(", ")}]), each a positive multiple of the ${b}-byte item size of ${dtype.name}, got ${describeValue(strides) === "a plain JavaScript array" ? `[${(strides as unknown[]).map(String).join(", ")}]` : describeValue(strides)}: e.g. [${rowMajorStrides(shape).map((s) => s * b).join(", ")}] (C order)`,
    );
  const elements = strides.map((s) => s / b);
  if (spanElements(shape, elements) > 2 ** 31 - 1)
    throw new CudaScriptError("CSR028", `${what}: strides [${strides.join(", ")}] reach past element 2^31 - 1 of shape [${shape.join(", ")}], and kernels index arrays with 32-bit ints: use smaller strides`);
  return elements;
}

/** The element strides of a host array or NDArray, read in the shape of the device array `dev`. */
export function hostStrides(host: unknown, dev: DeviceNDArray, what: string): number[] {
  if (host instanceof NDArray && !host.isCContiguous()) {
    if (host.shape.length !== dev.shape.length || host.shape.some((n, d) => n !== dev.shape[d]))
      throw new CudaScriptError("CSR011", `${what}: the host array has shape [${host.shape.join(", ")}] (not C order), the device array [${dev.shape.join(", ")}]: give arrays of the same shape`);
    return [...host.elementStrides];
  }
  return rowMajorStrides(dev.shape);
}

/**
 * A record array's bytes as the u8 array kernels receive (docs/abi.md): 1-D, or for a 2-D/3-D record
 * array an N-D array whose last extent counts bytes (records × itemsize).
 */
export function recordArrayBytes(a: RecordArray): Uint8Array | NDArray<Uint8Array> {
  return a.shape.length === 1 ? a.bytes : new NDArray(a.bytes, recordByteShape(a.shape, a.dtype.itemsize) as Shape);
}

export function isHostNDArray(v: unknown): v is { data: TypedArray; shape: readonly number[] } {
  if (v instanceof NDArray) return !isComplexArray(v.data);
  return typeof v === "object" && v !== null && !ArrayBuffer.isView(v) && !(v instanceof DeviceNDArray) && ArrayBuffer.isView((v as { data?: unknown }).data) && Array.isArray((v as { shape?: unknown }).shape);
}

/** A `cuda.ndarray` of a Complex64Array / Complex128Array (kept apart from isHostNDArray, whose data is a typed array). */
export function isComplexNDArray(v: unknown): v is NDArray<HostComplexArray> {
  return v instanceof NDArray && isComplexArray(v.data);
}

let nextArrayId = 1;

/** Device memory holding an N-D array (Numba's DeviceNDArray). */
export class DeviceNDArray<T = unknown> {
  declare readonly __deviceArrayOf?: T;
  /** @internal the brand the GPU launch fast path recognises (on the prototype: see below the class) */
  declare readonly [DEVICE_ARRAY]: true;
  readonly id = nextArrayId++;
  readonly shape: readonly number[];
  readonly dtype: DType;
  /** @internal backend allocation (a view shares its base's) */
  readonly buffer: DeviceBuffer;
  /** @internal where this array starts in `buffer` (0 unless it is a view) */
  readonly byteOffset: number;
  /** The array this one is a view of (`reshape`, `ravel`, `slice`, `row`, `T`), or undefined. */
  readonly base: DeviceNDArray | undefined;
  /**
   * @internal Memory another library or process owns (host/array-interface.ts, dlpack.ts, ipc.ts): the
   * owner kept alive while this array is, and what free() does instead of freeing the memory.
   */
  readonly foreign: ForeignMemory | undefined;
  /** The record dtype of `cuda.toDevice(recordArray)` (its bytes): a launch checks it against the kernel's record type (CSR080). */
  recordDtype: RecordDtype | undefined = undefined;
  /** @internal the element stride of each dimension (the kernel ABI's unit); `strides` is in bytes. */
  readonly elementStrides: readonly number[];
  private isFreed = false;

  /** `elementStrides` default to C order; an allocation covers the largest offset the strides reach. */
  constructor(shape: readonly number[], dtype: DType, buffer?: DeviceBuffer, view?: { base: DeviceNDArray; byteOffset: number } | ForeignView, elementStrides?: readonly number[]) {
    this.shape = Object.freeze([...shape]);
    this.dtype = dtype;
    this.elementStrides = Object.freeze([...(elementStrides ?? rowMajorStrides(shape))]);
    const base = view && "base" in view ? view.base : undefined;
    this.base = base?.base ?? base;
    this.foreign = view && "foreign" in view ? view.foreign : undefined;
    this.byteOffset = view?.byteOffset ?? 0;
    this.buffer = base ? base.buffer : view && "foreign" in view ? view.buffer : (buffer ?? currentBackend().alloc(this.spanBytes));
  }

  /**
   * The CUDA Array Interface, version 3 (Numba's `__cuda_array_interface__`): shape, typestr (`<f4`),
   * `data: [pointer, false]` with the device pointer as a bigint (0n for an empty array), byte strides
   * or null when C-contiguous, and `stream: null` (work on it is ordered by the legacy default stream,
   * or the program synchronised its streams). Any library that speaks the protocol can view it.
   */
  get __cuda_array_interface__(): CudaArrayInterface {
    this.checkAlive("__cuda_array_interface__");
    return describeCudaArray(this);
  }

  /** Numba's `strides`: the bytes between consecutive elements of each dimension. */
  get strides(): readonly number[] {
    return this.elementStrides.map((s) => s * this.dtype.bytes);
  }
  /** @internal bytes from the first element to the end of the last one the layout reaches. */
  get spanBytes(): number {
    return spanElements(this.shape, this.elementStrides) * this.dtype.bytes;
  }
  /** `d.T` (Numba's): the transpose, a view with the axes reversed (an F-order view of a C array). */
  get T(): DeviceNDArray<any> {
    return this.transpose();
  }
  /** Numba's `transpose(axes?)`: a view with the axes permuted (reversed by default); copies nothing. */
  transpose(axes?: readonly number[]): DeviceNDArray<any> {
    this.checkAlive("transpose");
    return this.view(transposedLayout(this.shape, this.elementStrides, axes));
  }

  get ndim(): number {
    return this.shape.length;
  }
  get length(): number {
    return this.shape[0]!;
  }
  get size(): number {
    return this.shape.reduce((a, b) => a * b, 1);
  }
  get nbytes(): number {
    return this.size * this.dtype.bytes;
  }
  get freed(): boolean {
    return this.isFreed || (this.base?.freed ?? false);
  }

  /** @internal */
  checkAlive(what: string): void {
    if (this.isFreed)
      throw new CudaScriptError("CSR010", `${what}: this device array (${this.dtype.name}, shape [${this.shape.join(", ")}]) was freed with .free(); allocate a new one with cuda.toDevice(…) or cuda.deviceArray(…)`);
    if (this.base?.freed)
      throw new CudaScriptError("CSR010", `${what}: this device array is a view of a ${this.base.dtype.name} array with shape [${this.base.shape.join(", ")}], which was freed with .free(); a view does not keep the memory alive`);
  }

  /** Numba's `is_c_contiguous`: row-major with no gaps (dimensions of extent 1 may have any stride). */
  isCContiguous(): boolean {
    return isContiguousIn("C", this.shape, this.elementStrides);
  }
  /** Numba's `is_f_contiguous`: column-major with no gaps (a 1-D contiguous array is both). */
  isFContiguous(): boolean {
    return isContiguousIn("F", this.shape, this.elementStrides);
  }

  /**
   * A view with another shape over the same memory (Numba's `reshape`): `d.reshape(rows, cols)` or
   * `d.reshape([rows, cols])`, one dimension may be -1. In C order (the default) of a C-contiguous
   * array or `{ order: "F" }` of an F-contiguous one; anything else would need a copy (CSR057).
   */
  reshape(...args: (number | readonly number[] | { order?: Order })[]): DeviceNDArray<any> {
    this.checkAlive("reshape");
    const last = args[args.length - 1];
    const options = typeof last === "object" && last !== null && !Array.isArray(last) ? (args.pop() as { order?: Order }) : undefined;
    const dims = args.length === 1 && Array.isArray(args[0]) ? (args[0] as readonly unknown[]) : args;
    return this.view(reshapedLayout(this.shape, this.elementStrides, dims, options?.order));
  }

  /** A 1-D view of every element (Numba's `ravel`), in an order the array is contiguous in (else CSR057). */
  ravel(order?: Order): DeviceNDArray<T extends TypedArray ? T : any> {
    this.checkAlive("ravel");
    return this.view(raveledLayout(this.shape, this.elementStrides, order));
  }

  /**
   * A view of rows `begin` to `end` (exclusive) of the first dimension, every `step`-th (Numba's
   * `d[begin:end:step]`), with `Array.prototype.slice`'s rules for negative and missing bounds. Unlike a
   * typed array's `slice` it copies nothing: writes through the view change `d`. A step makes it strided
   * (a 1-D one is then refused by 1-D kernel parameters, CSR059); a negative step is CSR057.
   */
  slice(begin?: number, end?: number, step?: number): DeviceNDArray<T> {
    this.checkAlive("slice");
    const r = slicedRange(this.shape, begin, end, step);
    const strides = [this.elementStrides[0]! * r.step, ...this.elementStrides.slice(1)];
    return this.view({ shape: r.shape, strides, offset: r.first * this.elementStrides[0]! });
  }

  /**
   * Row `i` of a 2-D or 3-D array (Numba's `d[i]`) as a view of one dimension less, with this array's
   * strides (a row of an F-order 2-D array is not contiguous: kernels refuse it as a 1-D argument).
   */
  row(i: number): DeviceNDArray<any> {
    this.checkAlive("row");
    const { first, shape } = rowShape(this.shape, i);
    return this.view({ shape, strides: this.elementStrides.slice(1), offset: first * this.elementStrides[0]! });
  }

  /** A view with `layout` over this array's memory. */
  private view(layout: ViewLayout): DeviceNDArray<any> {
    return new DeviceNDArray(layout.shape, this.dtype, undefined, { base: this, byteOffset: this.byteOffset + layout.offset * this.dtype.bytes }, layout.strides);
  }

  /**
   * Copies the array to the host: into `out` when given (a typed array or NDArray of the same size and
   * dtype, of any layout), else into a new one of this array's order (an F-order NDArray for an F-order
   * array, C order otherwise). With a stream, synchronise the stream before reading the result; a copy
   * between different layouts goes element by element and waits for the stream.
   */
  copyToHost<R = T extends TypedArray ? T : NDArray>(out?: TypedArray | NDArray<TypedArray | HostComplexArray> | Complex64Array | Complex128Array | RecordArray, options?: Stream | { stream?: Stream }): R {
    this.checkAlive("copyToHost");
    if (out instanceof RecordArray) {
      this.copyToHost(recordArrayBytes(out), options);
      return out as unknown as R;
    }
    const stream = streamOption(options);
    const fresh = () => allocHost(this.dtype, this.size, "copyToHost", () => new this.dtype.arrayType(this.size));
    // A complex array comes back as a Complex64Array / Complex128Array of all its elements, row-major.
    const complex = isComplexDTypeName(this.dtype.name);
    const order = !this.isCContiguous() && this.isFContiguous() ? "F" : "C";
    const target = out ?? (this.ndim === 1 || complex ? fresh() : new NDArray(fresh(), this.shape, { order }));
    const data = hostData(target, this, "copyToHost");
    currentBackend().checkCopyToHost?.(this.buffer, this.byteOffset, this.dtype.name, this.dtype.bytes, this.shape, this.elementStrides);
    copyDeviceToHost(this, data, hostStrides(target, this, "copyToHost"), streamHandle(stream));
    return target as unknown as R;
  }

  /** Copies host data (same size and dtype) into this array. */
  copyToDevice(host: TypedArray | NDArray<TypedArray | HostComplexArray> | DeviceNDArray | Complex64Array | Complex128Array | RecordArray, options?: Stream | { stream?: Stream }): void {
    this.checkAlive("copyToDevice");
    if (host instanceof RecordArray) host = recordArrayBytes(host);
    const stream = streamOption(options);
    if (host instanceof DeviceNDArray) {
      host.checkAlive("copyToDevice");
      if (host.size !== this.size || host.dtype !== this.dtype)
        throw new CudaScriptError("CSR011", `copyToDevice: source is ${host.dtype.name}[${host.shape.join(", ")}], this array is ${this.dtype.name}[${this.shape.join(", ")}]`);
      copyDeviceToDevice(this, host, streamHandle(stream));
      return;
    }
    const data = hostData(host, this, "copyToDevice");
    copyHostToDevice(this, data, hostStrides(host, this, "copyToDevice"), streamHandle(stream));
  }

  /**
   * Numba's `get_ipc_handle()`: a JSON-serialisable handle another process opens with
   * `cuda.openIpcArray(handle, shape, dtype, { strides, offset })` (docs/interop.md). Keep this array
   * alive until the other process has closed it.
   */
  getIpcHandle(): IpcHandle {
    return ipcHandleOf(this);
  }

  /**
   * A DLPack capsule of this array: the address (bigint) of a `DLManagedTensor` for a native addon
   * that speaks DLPack, which must call its deleter exactly once when done; until then the memory
   * stays alive (docs/interop.md).
   */
  toDlpack(): bigint {
    return dlpackOf(this);
  }

  /**
   * Releases the device memory now; later use is an error (CSR010), also through views of it. On a view
   * it releases only the view: the memory belongs to the array it views.
   */
  free(): void {
    if (this.isFreed) return;
    this.isFreed = true;
    if (this.base) return;
    // Foreign memory: release the view (an IPC mapping is closed, a DLPack deleter called), never the owner's memory.
    if (this.foreign) return this.foreign.release?.();
    currentBackend().free(this.buffer);
  }

  toString(): string {
    return `DeviceNDArray(${this.dtype.name}, [${this.shape.join(", ")}])${this.isFreed ? " (freed)" : ""}`;
  }
}
Object.defineProperty(DeviceNDArray.prototype, DEVICE_ARRAY, { value: true });

function hostData(host: unknown, dev: DeviceNDArray, what: string): TypedArray {
  if (isComplexArray(host) || isComplexDTypeName(dev.dtype.name)) return complexHostData(host, dev, what);
  let data: TypedArray;
  let shape: readonly number[];
  if (isHostNDArray(host)) {
    data = host.data;
    shape = host.shape;
  } else if (dtypeOfTypedArray(host)) {
    data = host as TypedArray;
    shape = [data.length];
  } else throw new CudaScriptError("CSR004", `${what}: expected a typed array or cuda.ndarray, got ${describeValue(host)}`);
  const dt = dtypeOfTypedArray(data);
  if (dt !== dev.dtype.name && !(dt === "u8" && dev.dtype.name === "bool"))
    throw new CudaScriptError("CSR005", `${what}: the host array is ${dt} (${data.constructor.name}) but the device array is ${dev.dtype.name}: use a ${dev.dtype.arrayType.name}`);
  // A strided NDArray's data spans more than its elements.
  const size = shape.reduce((a, b) => a * b, 1);
  if (size !== dev.size || (host instanceof NDArray ? data.length < spanElements(host.shape, host.elementStrides) : data.length !== size))
    throw new CudaScriptError("CSR011", `${what}: the host array has ${size} elements (shape [${shape.join(", ")}]) but the device array has ${dev.size} (shape [${dev.shape.join(", ")}])`);
  return data;
}

/** A stream given as itself (`copyToHost(out, stream)`) or as Numba's keyword (`{ stream }`). */
function streamOption(options: Stream | { stream?: Stream } | undefined): Stream | undefined {
  if (options === undefined || options === null) return undefined;
  if ((options as { handle?: unknown }).handle !== undefined) return options as Stream;
  if (typeof options === "object" && !ArrayBuffer.isView(options)) return (options as { stream?: Stream }).stream;
  return options as Stream; // streamHandle reports what it is
}

/** The interleaved parts of a complex host array matching the complex device array `dev`. */
function complexHostData(hostOrNd: unknown, dev: DeviceNDArray, what: string): TypedArray {
  const host = isComplexNDArray(hostOrNd) ? hostOrNd.data : hostOrNd;
  const name: string = dev.dtype.name;
  const want = name === "c64" ? "Complex64Array" : name === "c128" ? "Complex128Array" : dev.dtype.arrayType.name;
  if (!isComplexArray(host) || host.constructor.name !== want)
    throw new CudaScriptError("CSR029", `${what}: the device array is ${dev.dtype.name}, the host array ${isComplexArray(host) ? `a ${host.constructor.name}` : describeValue(host)}: use a ${want}`);
  if (host.length !== dev.size)
    throw new CudaScriptError("CSR011", `${what}: the host array has ${host.length} complex elements but the device array has ${dev.size} (shape [${dev.shape.join(", ")}])`);
  return host.data;
}

export function streamHandle(stream: Stream | undefined | null): StreamHandle | null {
  if (stream === undefined || stream === null) return null;
  const h = (stream as { handle?: StreamHandle }).handle;
  if (!h) throw new CudaScriptError("CSR014", `expected a stream made by cuda.stream(), got ${describeValue(stream)}`);
  return h;
}

// ───────────────────────── constructors (cuda.toDevice & co.) ─────────────────────────

/** The typed array type a dtype's data has (`Float32Array`, whatever buffer backs the original). */
export type CanonicalArray<H> = H extends Float32Array ? Float32Array : H extends Float64Array ? Float64Array : H extends Int8Array ? Int8Array : H extends Uint8Array ? Uint8Array : H extends Int16Array ? Int16Array : H extends Uint16Array ? Uint16Array : H extends Int32Array ? Int32Array : H extends Uint32Array ? Uint32Array : H;

type DeviceOf<H> = H extends TypedArray ? DeviceNDArray<CanonicalArray<H>> : H extends { shape: readonly [number, number, number] } ? DeviceNDArray<Array3D<number>> : DeviceNDArray<Array2D<number>>;

/** Numba's `to_device(obj, stream, copy, to)` keywords. */
export interface ToDeviceOptions {
  readonly stream?: Stream;
  /** `false`: allocate without copying (zeroed on every backend, as `cuda.deviceArray`). */
  readonly copy?: boolean;
  /** Copy into this existing device array (same size and dtype) and return it, instead of allocating. */
  readonly to?: DeviceNDArray;
}

export function toDevice<H extends Complex64Array | Complex128Array>(host: H, options?: Stream | ToDeviceOptions): DeviceNDArray<H>;
export function toDevice<H extends NDArray<HostComplexArray>>(host: H, options?: Stream | ToDeviceOptions): DeviceNDArray<H>;
export function toDevice<H extends TypedArray | NDArray>(host: H, options?: Stream | ToDeviceOptions): DeviceOf<H>;
export function toDevice<F extends RecordFields>(host: RecordArray<F>, options?: Stream | ToDeviceOptions): DeviceNDArray<Uint8Array>;
export function toDevice(host: TypedArray | NDArray<TypedArray | HostComplexArray> | Complex64Array | Complex128Array | RecordArray, options?: Stream | ToDeviceOptions): DeviceNDArray {
  // A record array goes to the device as its bytes, remembering its dtype for the launch's check (CSR080).
  if (host instanceof RecordArray) {
    const d = toDevice(recordArrayBytes(host), options);
    d.recordDtype = host.dtype;
    // Kernels write records field by field, which the written maps do not follow.
    currentBackend().trackUnwritten?.(d.buffer, 1, undefined);
    return d;
  }
  const stream = streamOption(options);
  const { copy = true, to } = options !== undefined && !(options as { handle?: unknown }).handle ? (options as ToDeviceOptions) : {};
  if (to !== undefined) {
    if (!(to instanceof DeviceNDArray)) throw new CudaScriptError("CSR004", `cuda.toDevice: 'to' is a device array (cuda.deviceArray(…)), got ${describeValue(to)}`);
    to.copyToDevice(host, stream);
    return to;
  }
  if (isComplexArray(host) || isComplexNDArray(host)) {
    const d = isComplexArray(host) ? new DeviceNDArray([host.length], complexDTypeOf(host)) : new DeviceNDArray(host.shape, host.dtype);
    if (copy) d.copyToDevice(host, stream);
    else currentBackend().memset(d.buffer, 0, d.nbytes, 0, null);
    return d;
  }
  let data: TypedArray, shape: readonly number[];
  if (isHostNDArray(host)) {
    data = host.data;
    shape = host.shape;
  } else if (dtypeOfTypedArray(host)) {
    data = host as TypedArray;
    shape = [data.length];
  } else if (Array.isArray(host))
    throw new CudaScriptError("CSR004", `cuda.toDevice takes a typed array or cuda.ndarray, got a plain JavaScript array: pass Float32Array.from(values) (or the dtype you need)`);
  else throw new CudaScriptError("CSR004", `cuda.toDevice takes a typed array (Float32Array, Int32Array, …) or cuda.ndarray(data, shape), got ${describeValue(host)}`);
  // A host NDArray keeps its order on the device (an F-order one is F-order there; other strides become C order).
  const order = host instanceof NDArray && !host.isCContiguous() && host.isFContiguous() ? "F" : "C";
  const d = new DeviceNDArray(shape, dtypes[dtypeOfTypedArray(data)!], undefined, undefined, order === "F" ? columnMajorStrides(shape) : undefined);
  if (copy) d.copyToDevice(host instanceof NDArray ? host : data, stream);
  else {
    currentBackend().memset(d.buffer, 0, d.spanBytes, 0, null);
    currentBackend().trackUnwritten?.(d.buffer, d.dtype.bytes, () => ({ api: "cuda.toDevice(a, { copy: false })", site: captureCallSite(toDevice).resolve() }));
  }
  return d;
}

type DeviceForShape<S, N extends DTypeName> = S extends number | readonly [number]
  ? DeviceNDArray<InstanceType<DType<N>["arrayType"]>>
  : S extends readonly [number, number]
    ? DeviceNDArray<Array2D<number>>
    : DeviceNDArray<Array3D<number>>;

/**
 * A zeroed device array: C order by default, `{ order: "F" }` column-major, or `{ strides }` in bytes
 * (Numba's); the allocation covers the largest offset the strides reach.
 */
export function deviceArray<N extends DTypeName, const S extends Shape>(shape: S, dtype: DType<N>, layout?: LayoutOptions): DeviceForShape<S, N>;
/** A zeroed device array of complex numbers; `copyToHost()` returns a Complex64Array / Complex128Array of its elements. */
export function deviceArray<N extends ComplexDTypeName, const S extends Shape>(shape: S, dtype: ComplexDType<N>, layout?: LayoutOptions): DeviceNDArray<N extends "c64" ? Complex64Array : Complex128Array>;
export function deviceArray(shape: Shape, dtype: DType | ComplexDType, layout?: LayoutOptions): DeviceNDArray {
  const s = normalizeShape(shape, "cuda.deviceArray");
  const t = toDType(dtype, "cuda.deviceArray");
  const d = new DeviceNDArray(s, t, undefined, undefined, layoutStrides(s, t, layout, "cuda.deviceArray"));
  currentBackend().memset(d.buffer, 0, d.spanBytes, 0, null);
  currentBackend().trackUnwritten?.(d.buffer, d.dtype.bytes, () => ({ api: "cuda.deviceArray", site: captureCallSite(deviceArray).resolve() }));
  return d;
}

export function deviceArrayLike<A extends HostComplexArray | NDArray<HostComplexArray>>(a: A): DeviceNDArray<A>;
export function deviceArrayLike<A extends TypedArray | NDArray | DeviceNDArray>(a: A): A extends DeviceNDArray ? A : DeviceOf<A>;
export function deviceArrayLike(a: TypedArray | NDArray<TypedArray | HostComplexArray> | DeviceNDArray | HostComplexArray): DeviceNDArray {
  let shape: readonly number[], dtype: DType;
  if (isComplexArray(a)) {
    shape = [a.length];
    dtype = complexDTypeOf(a);
  } else if (isComplexNDArray(a)) {
    shape = a.shape;
    dtype = a.dtype;
  } else if (a instanceof DeviceNDArray || a instanceof NDArray) {
    shape = a.shape;
    dtype = a.dtype;
  } else if (isHostNDArray(a)) {
    shape = a.shape;
    dtype = dtypes[dtypeOfTypedArray(a.data)!];
  } else if (dtypeOfTypedArray(a)) {
    shape = [(a as TypedArray).length];
    dtype = dtypes[dtypeOfTypedArray(a)!];
  } else throw new CudaScriptError("CSR004", `cuda.deviceArrayLike takes a typed array, cuda.ndarray or device array, got ${describeValue(a)}`);
  // Numba's order rule: F when `a` is F-contiguous and not C-contiguous, else C (a strided view's copy is dense).
  const f = (a instanceof DeviceNDArray || a instanceof NDArray) && !a.isCContiguous() && a.isFContiguous();
  const d = new DeviceNDArray(shape, dtype, undefined, undefined, f ? columnMajorStrides(shape) : undefined);
  currentBackend().memset(d.buffer, 0, d.spanBytes, 0, null);
  currentBackend().trackUnwritten?.(d.buffer, d.dtype.bytes, () => ({ api: "cuda.deviceArrayLike", site: captureCallSite(deviceArrayLike).resolve() }));
  return d as never;
}

export type HostForShape<S, N extends DTypeName> = S extends number | readonly [number]
  ? InstanceType<DType<N>["arrayType"]>
  : S extends readonly [number, number]
    ? NDArray<InstanceType<DType<N>["arrayType"]>> & Array2D<number>
    : NDArray<InstanceType<DType<N>["arrayType"]>> & Array3D<number>;

/**
 * Host memory for fast transfers (page-locked on the GPU backend; ordinary memory on the simulator);
 * 2-D/3-D arrays in C order, or `{ order: "F" }`.
 */
export function pinnedArray<N extends DTypeName, const S extends Shape>(shape: S, dtype: DType<N>, layout?: { readonly order?: Order }): HostForShape<S, N>;
/** Pinned complex host memory: a Complex64Array / Complex128Array, or for 2-D/3-D an NDArray over one. */
export function pinnedArray<N extends ComplexDTypeName, const S extends Shape>(shape: S, dtype: ComplexDType<N>, layout?: { readonly order?: Order }): ComplexHostForShape<S, N extends "c64" ? Complex64Array : Complex128Array>;
export function pinnedArray(shape: Shape, dtype: DType | ComplexDType, layout?: { readonly order?: Order }): unknown {
  const s = normalizeShape(shape, "cuda.pinnedArray");
  const t = toDType(dtype, "cuda.pinnedArray");
  const strides = hostArrayLayout(s, t, layout, "cuda.pinnedArray");
  const n = s.reduce((a, b) => a * b, 1);
  const data = allocHost(t, n, "cuda.pinnedArray", () => {
    const pinned = currentBackend().allocPinnedHost?.(n * t.bytes);
    return pinned ? new t.arrayType(pinned, 0, n) : new t.arrayType(n);
  });
  return s.length === 1 ? data : new NDArray(data, s, strides);
}

/** The layout of a new dense host array (`order` only: its data is exactly its elements). */
export function hostArrayLayout(shape: readonly number[], dtype: DType, layout: { readonly order?: Order } | undefined, what: string): LayoutOptions | undefined {
  if (layout !== undefined && layout !== null && typeof layout === "object" && (layout as LayoutOptions).strides !== undefined)
    throw new CudaScriptError("CSR028", `${what}: new host arrays are dense, so they take { order: "C" | "F" }, not strides: make the array and view it with cuda.ndarray(a.data, shape, { strides })`);
  layoutStrides(shape, dtype, layout, what); // checks the order
  return layout?.order === "F" && shape.length > 1 ? { order: "F" } : undefined;
}

type ComplexHostForShape<S, A extends HostComplexArray> = S extends number | readonly [number]
  ? A
  : S extends readonly [number, number]
    ? NDArray<A> & Array2D<ComplexValue>
    : NDArray<A> & Array3D<ComplexValue>;

export function ndarray<D extends HostComplexArray>(data: D, shape: readonly [number, number], layout?: LayoutOptions): NDArray<D> & Array2D<ComplexValue>;
export function ndarray<D extends HostComplexArray>(data: D, shape: readonly [number, number, number], layout?: LayoutOptions): NDArray<D> & Array3D<ComplexValue>;
export function ndarray<D extends HostComplexArray>(data: D, shape: Shape, layout?: LayoutOptions): NDArray<D>;
export function ndarray<D extends BigInt64Array | BigUint64Array>(data: D, shape: readonly [number, number], layout?: LayoutOptions): NDArray<D> & Array2D<bigint>;
export function ndarray<D extends BigInt64Array | BigUint64Array>(data: D, shape: readonly [number, number, number], layout?: LayoutOptions): NDArray<D> & Array3D<bigint>;
export function ndarray<D extends TypedArray>(data: D, shape: readonly [number, number], layout?: LayoutOptions): NDArray<D> & Array2D<number>;
export function ndarray<D extends TypedArray>(data: D, shape: readonly [number, number, number], layout?: LayoutOptions): NDArray<D> & Array3D<number>;
export function ndarray<D extends TypedArray>(data: D, shape: Shape, layout?: LayoutOptions): NDArray<D>;
export function ndarray<D extends TypedArray>(data: D, shape: Shape, layout?: LayoutOptions): NDArray<D>;
export function ndarray<D extends TypedArray | HostComplexArray>(data: D, shape: Shape, layout?: LayoutOptions): NDArray<D> {
  return new NDArray(data, shape, layout);
}
