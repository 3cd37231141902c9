/**
 * Host N-D arrays (`cuda.ndarray`) and device arrays (`cuda.toDevice`, `cuda.deviceArray`, …),
 * Numba's host API camelCased.
 */
import type { DeviceBuffer, StreamHandle } from "../backend";
import { complexDtypes, dtypes, isComplexDTypeName, type Array2D, type Array3D, type ComplexDType, type ComplexDTypeName, type DType, type DTypeName, type NumberTypedArray, type TypedArray } from "../dtypes";
import { Complex64Array, isComplexArray, type Complex128Array, type ComplexValue } from "../complex-array";
import * as os from "node:os";
import { CudaScriptError } from "../errors";
import { formatBytes } from "./sizes";
import { isFloat16Array } from "../float16";
import { currentBackend } from "./device";
import type { Stream } from "./streams";
import { isFContiguousShape, raveledShape, reshapedShape, rowShape, slicedRange, type Order } from "./views";

export type Shape = number | readonly number[];

/** A host array of complex numbers: interleaved parts behind complex elements. */
export type HostComplexArray = Complex64Array | Complex128Array;

/** The complex dtype a Complex64Array / Complex128Array stores (as a DType: device arrays need only its name and size). */
function complexDTypeOf(a: HostComplexArray): DType {
  return complexDtypes[a instanceof Complex64Array ? "c64" : "c128"] as unknown as DType;
}

const TYPED_ARRAY_DTYPES = new Map<Function, DTypeName>([
  [Float32Array, "f32"],
  [Float64Array, "f64"],
  [Int8Array, "i8"],
  [Uint8Array, "u8"],
  [Int16Array, "i16"],
  [Uint16Array, "u16"],
  [Int32Array, "i32"],
  [Uint32Array, "u32"],
  [BigInt64Array, "i64"],
  [BigUint64Array, "u64"],
]);

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

/**
 * A host N-D array: row-major `data` with a `shape`. Index it like the kernel does (`a[i][j]`), or use
 * `data` directly for speed. Accepted wherever a kernel takes Array2D/Array3D.
 */
// The default element arrays hold numbers, so `nd.data[i] - x` type-checks; an i64 array is NDArray<BigInt64Array>,
// a complex one NDArray<Complex64Array> (its elements `.get(i)` / `a[i][j]` are { re, im }).
export class NDArray<D extends TypedArray | HostComplexArray = NumberTypedArray> {
  readonly shape: readonly number[];
  readonly dtype: DType;
  [index: number]: any;

  constructor(
    readonly data: D,
    shape: Shape,
  ) {
    const dt = isComplexArray(data) ? undefined : dtypeOfTypedArray(data);
    if (!dt && !isComplexArray(data))
      throw new CudaScriptError("CSR004", `cuda.ndarray takes a typed array (Float32Array, Int32Array, …) or a Complex64Array / Complex128Array, got ${describeValue(data)}`);
    this.dtype = dt ? dtypes[dt] : complexDTypeOf(data as HostComplexArray);
    this.shape = Object.freeze(normalizeShape(shape, "cuda.ndarray"));
    const size = this.shape.reduce((a, b) => a * b, 1);
    if (size !== data.length)
      throw new CudaScriptError("CSR011", `cuda.ndarray: shape [${this.shape.join(", ")}] holds ${size} elements but the data has ${data.length}`);
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
    return this.data.length;
  }

  /** `a[i]`: a row view (1-D typed array of a 2-D array, 2-D NDArray of a 3-D array). */
  row(i: number): TypedArray | HostComplexArray | NDArray<D> | number | bigint | ComplexValue {
    const [n, ...rest] = this.shape;
    if (i >= n!) return undefined as unknown as number;
    const data = this.data;
    if (rest.length === 0) return isComplexArray(data) ? data.get(i) : (data as TypedArray)[i]!;
    const inner = rest.reduce((a, b) => a * b, 1);
    // A complex row is a Complex64Array / Complex128Array over its rows' parts (zero-copy, as subarray is).
    const sub = (isComplexArray(data)
      ? new (data.constructor as new (parts: Float32Array | Float64Array) => HostComplexArray)(data.data.subarray(2 * i * inner, 2 * (i + 1) * inner))
      : (data as TypedArray).subarray(i * inner, (i + 1) * inner)) as D;
    return rest.length === 1 ? sub : new NDArray(sub, rest);
  }

  toString(): string {
    return `NDArray(${this.dtype.name}, [${this.shape.join(", ")}])`;
  }
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
  readonly id = nextArrayId++;
  readonly shape: readonly number[];
  readonly dtype: DType;
  /** @internal backend allocation (a view shares its base's) */
  readonly buffer: DeviceBuffer;
  /** @internal where this array starts in `buffer` (0 unless it is a view) */
  readonly byteOffset: number;
  /** The array this one is a view of (`reshape`, `ravel`, `slice`, `row`), or undefined. */
  readonly base: DeviceNDArray | undefined;
  private isFreed = false;

  constructor(shape: readonly number[], dtype: DType, buffer?: DeviceBuffer, view?: { base: DeviceNDArray; byteOffset: number }) {
    this.shape = Object.freeze([...shape]);
    this.dtype = dtype;
    this.base = view?.base.base ?? view?.base;
    this.byteOffset = view?.byteOffset ?? 0;
    this.buffer = view ? view.base.buffer : (buffer ?? currentBackend().alloc(this.nbytes));
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

  /** Always true: CudaScript arrays are row-major with no gaps (Numba's `is_c_contiguous`). */
  isCContiguous(): boolean {
    return true;
  }
  /** True when the elements are also in column-major order: at most one dimension above 1. */
  isFContiguous(): boolean {
    return isFContiguousShape(this.shape);
  }

  /**
   * A view with another shape over the same memory (Numba's `reshape`): `d.reshape(rows, cols)` or
   * `d.reshape([rows, cols])`, one dimension may be -1; `{ order: "F" }` only where that needs no copy.
   */
  reshape(...args: (number | readonly number[] | { order?: Order })[]): DeviceNDArray<any> {
    this.checkAlive("reshape");
    const last = args[args.length - 1];
    const options = typeof last === "object" && last !== null && !Array.isArray(last) ? (args.pop() as { order?: Order }) : undefined;
    const dims = args.length === 1 && Array.isArray(args[0]) ? (args[0] as readonly unknown[]) : args;
    return this.view(reshapedShape(this.shape, dims, options?.order), 0);
  }

  /** A 1-D view of every element (Numba's `ravel`); `"F"` only where that needs no copy. */
  ravel(order?: Order): DeviceNDArray<T extends TypedArray ? T : any> {
    this.checkAlive("ravel");
    return this.view(raveledShape(this.shape, order), 0);
  }

  /**
   * A view of rows `begin` to `end` (exclusive) of the first dimension (Numba's `d[begin:end]`), with
   * `Array.prototype.slice`'s rules for negative and missing bounds. Unlike a typed array's `slice` it
   * copies nothing: writes through the view change `d`. A step other than 1 is CSR057.
   */
  slice(begin?: number, end?: number, step?: number): DeviceNDArray<T> {
    this.checkAlive("slice");
    const { first, shape } = slicedRange(this.shape, begin, end, step);
    return this.view(shape, first);
  }

  /** Row `i` of a 2-D or 3-D array (Numba's `d[i]`) as a view of one dimension less. */
  row(i: number): DeviceNDArray<any> {
    this.checkAlive("row");
    const { first, shape } = rowShape(this.shape, i);
    return this.view(shape, first);
  }

  /** A view of `shape` starting at row `firstRow` of this array. */
  private view(shape: readonly number[], firstRow: number): DeviceNDArray<any> {
    const rowBytes = this.shape.slice(1).reduce((a, b) => a * b, 1) * this.dtype.bytes;
    return new DeviceNDArray(shape, this.dtype, undefined, { base: this, byteOffset: this.byteOffset + firstRow * rowBytes });
  }

  /**
   * Copies the array to the host: into `out` when given (a typed array or NDArray of the same size and
   * dtype), else into a new one. With a stream, synchronise the stream before reading the result.
   */
  copyToHost<R = T extends TypedArray ? T : NDArray>(out?: TypedArray | NDArray<TypedArray | HostComplexArray> | Complex64Array | Complex128Array, options?: Stream | { stream?: Stream }): R {
    this.checkAlive("copyToHost");
    const stream = streamOption(options);
    const fresh = () => allocHost(this.dtype, this.size, "copyToHost", () => new this.dtype.arrayType(this.size));
    // A complex array comes back as a Complex64Array / Complex128Array of all its elements, row-major.
    const complex = isComplexDTypeName(this.dtype.name);
    const target = out ?? (this.ndim === 1 || complex ? fresh() : new NDArray(fresh(), this.shape));
    const data = hostData(target, this, "copyToHost");
    currentBackend().copyDtoH(data, this.buffer, this.byteOffset, streamHandle(stream));
    return target as unknown as R;
  }

  /** Copies host data (same size and dtype) into this array. */
  copyToDevice(host: TypedArray | NDArray<TypedArray | HostComplexArray> | DeviceNDArray | Complex64Array | Complex128Array, options?: Stream | { stream?: Stream }): void {
    this.checkAlive("copyToDevice");
    const stream = streamOption(options);
    if (host instanceof DeviceNDArray) {
      host.checkAlive("copyToDevice");
      if (host.size !== this.size || host.dtype !== this.dtype)
        throw new CudaScriptError("CSR011", `copyToDevice: source is ${host.dtype.name}[${host.shape.join(", ")}], this array is ${this.dtype.name}[${this.shape.join(", ")}]`);
      currentBackend().copyDtoD(this.buffer, this.byteOffset, host.buffer, host.byteOffset, this.nbytes, streamHandle(stream));
      return;
    }
    currentBackend().copyHtoD(this.buffer, this.byteOffset, hostData(host, this, "copyToDevice"), streamHandle(stream));
  }

  /**
   * Releases the device memory now; later use is an error (CSR010), also through views of it. On a view
   * it releases only the view: the memory belongs to the array it views.
   */
  free(): void {
    if (this.isFreed) return;
    this.isFreed = true;
    if (!this.base) currentBackend().free(this.buffer);
  }

  toString(): string {
    return `DeviceNDArray(${this.dtype.name}, [${this.shape.join(", ")}])${this.isFreed ? " (freed)" : ""}`;
  }
}

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
  if (data.length !== dev.size)
    throw new CudaScriptError("CSR011", `${what}: the host array has ${data.length} elements (shape [${shape.join(", ")}]) but the device array has ${dev.size} (shape [${dev.shape.join(", ")}])`);
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
  /** `false`: allocate without copying (the contents are undefined on a GPU, zero on the simulator). */
  readonly copy?: boolean;
  /** Copy into this existing device array (same size and dtype) and return it, instead of allocating. */
  readonly to?: DeviceNDArray;
}

export function toDevice<H extends Complex64Array | Complex128Array>(host: H, options?: Stream | ToDeviceOptions): DeviceNDArray<H>;
export function toDevice<H extends NDArray<HostComplexArray>>(host: H, options?: Stream | ToDeviceOptions): DeviceNDArray<H>;
export function toDevice<H extends TypedArray | NDArray>(host: H, options?: Stream | ToDeviceOptions): DeviceOf<H>;
export function toDevice(host: TypedArray | NDArray<TypedArray | HostComplexArray> | Complex64Array | Complex128Array, options?: Stream | ToDeviceOptions): DeviceNDArray {
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
  const d = new DeviceNDArray(shape, dtypes[dtypeOfTypedArray(data)!]);
  if (copy) d.copyToDevice(data, stream);
  else currentBackend().memset(d.buffer, 0, d.nbytes, 0, null);
  return d;
}

type DeviceForShape<S, N extends DTypeName> = S extends number | readonly [number]
  ? DeviceNDArray<InstanceType<DType<N>["arrayType"]>>
  : S extends readonly [number, number]
    ? DeviceNDArray<Array2D<number>>
    : DeviceNDArray<Array3D<number>>;

export function deviceArray<N extends DTypeName, const S extends Shape>(shape: S, dtype: DType<N>): DeviceForShape<S, N>;
/** A zeroed device array of complex numbers; `copyToHost()` returns a Complex64Array / Complex128Array of its elements. */
export function deviceArray<N extends ComplexDTypeName, const S extends Shape>(shape: S, dtype: ComplexDType<N>): DeviceNDArray<N extends "c64" ? Complex64Array : Complex128Array>;
export function deviceArray(shape: Shape, dtype: DType | ComplexDType): DeviceNDArray {
  const s = normalizeShape(shape, "cuda.deviceArray");
  const d = new DeviceNDArray(s, toDType(dtype, "cuda.deviceArray"));
  currentBackend().memset(d.buffer, 0, d.nbytes, 0, null);
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
  } else if (a instanceof DeviceNDArray) {
    shape = a.shape;
    dtype = a.dtype;
  } else if (isHostNDArray(a)) {
    shape = a.shape;
    dtype = dtypes[dtypeOfTypedArray(a.data)!];
  } else if (dtypeOfTypedArray(a)) {
    shape = [(a as TypedArray).length];
    dtype = dtypes[dtypeOfTypedArray(a)!];
  } else throw new CudaScriptError("CSR004", `cuda.deviceArrayLike takes a typed array, cuda.ndarray or device array, got ${describeValue(a)}`);
  const d = new DeviceNDArray(shape, dtype);
  currentBackend().memset(d.buffer, 0, d.nbytes, 0, null);
  return d as never;
}

export type HostForShape<S, N extends DTypeName> = S extends number | readonly [number]
  ? InstanceType<DType<N>["arrayType"]>
  : S extends readonly [number, number]
    ? NDArray<InstanceType<DType<N>["arrayType"]>> & Array2D<number>
    : NDArray<InstanceType<DType<N>["arrayType"]>> & Array3D<number>;

/** Host memory for fast transfers (page-locked on the GPU backend; ordinary memory on the simulator). */
export function pinnedArray<N extends DTypeName, const S extends Shape>(shape: S, dtype: DType<N>): HostForShape<S, N>;
/** Pinned complex host memory: a Complex64Array / Complex128Array, or for 2-D/3-D an NDArray over one. */
export function pinnedArray<N extends ComplexDTypeName, const S extends Shape>(shape: S, dtype: ComplexDType<N>): ComplexHostForShape<S, N extends "c64" ? Complex64Array : Complex128Array>;
export function pinnedArray(shape: Shape, dtype: DType | ComplexDType): unknown {
  const s = normalizeShape(shape, "cuda.pinnedArray");
  const t = toDType(dtype, "cuda.pinnedArray");
  const n = s.reduce((a, b) => a * b, 1);
  const data = allocHost(t, n, "cuda.pinnedArray", () => {
    const pinned = currentBackend().allocPinnedHost?.(n * t.bytes);
    return pinned ? new t.arrayType(pinned, 0, n) : new t.arrayType(n);
  });
  return s.length === 1 ? data : new NDArray(data, s);
}

type ComplexHostForShape<S, A extends HostComplexArray> = S extends number | readonly [number]
  ? A
  : S extends readonly [number, number]
    ? NDArray<A> & Array2D<ComplexValue>
    : NDArray<A> & Array3D<ComplexValue>;

export function ndarray<D extends HostComplexArray>(data: D, shape: readonly [number, number]): NDArray<D> & Array2D<ComplexValue>;
export function ndarray<D extends HostComplexArray>(data: D, shape: readonly [number, number, number]): NDArray<D> & Array3D<ComplexValue>;
export function ndarray<D extends HostComplexArray>(data: D, shape: Shape): NDArray<D>;
export function ndarray<D extends BigInt64Array | BigUint64Array>(data: D, shape: readonly [number, number]): NDArray<D> & Array2D<bigint>;
export function ndarray<D extends BigInt64Array | BigUint64Array>(data: D, shape: readonly [number, number, number]): NDArray<D> & Array3D<bigint>;
export function ndarray<D extends TypedArray>(data: D, shape: readonly [number, number]): NDArray<D> & Array2D<number>;
export function ndarray<D extends TypedArray>(data: D, shape: readonly [number, number, number]): NDArray<D> & Array3D<number>;
export function ndarray<D extends TypedArray>(data: D, shape: Shape): NDArray<D>;
export function ndarray<D extends TypedArray>(data: D, shape: Shape): NDArray<D>;
export function ndarray<D extends TypedArray | HostComplexArray>(data: D, shape: Shape): NDArray<D> {
  return new NDArray(data, shape);
}
