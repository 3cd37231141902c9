/**
 * Host N-D arrays (`cuda.ndarray`) and device arrays (`cuda.toDevice`, `cuda.deviceArray`, …),
 * Numba's host API camelCased.
 */
import type { DeviceBuffer, StreamHandle } from "../backend";
import { dtypes, type Array2D, type Array3D, type DType, type DTypeName, type TypedArray } from "../dtypes";
import * as os from "node:os";
import { CudaScriptError } from "../errors";
import { formatBytes } from "./sizes";
import { isFloat16Array } from "../float16";
import { currentBackend } from "./device";
import type { Stream } from "./streams";

export type Shape = number | readonly number[];

const TYPED_ARRAY_DTYPES = new Map<Function, DTypeName>([
  [Float32Array, "f32"],
  [Float64Array, "f64"],
  [Int8Array, "i8"],
  [Uint8Array, "u8"],
  [Int16Array, "i16"],
  [Uint16Array, "u16"],
  [Int32Array, "i32"],
  [Uint32Array, "u32"],
]);

/** The dtype a typed array stores, or undefined for other values (Uint8ClampedArray, BigInt arrays, …). */
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
  if (typeof v === "bigint") return "a bigint";
  if (Array.isArray(v)) return "a plain JavaScript array";
  if (v instanceof DeviceNDArray) return `a device array of ${v.dtype.name} with shape [${v.shape.join(", ")}]`;
  if (v instanceof NDArray) return `a host ${v.ndim}-D array of ${v.dtype.name} with shape [${v.shape.join(", ")}]`;
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

export function toDType(d: DType | DTypeName | undefined, what: string): DType {
  if (d === undefined) throw new CudaScriptError("CSR013", `${what}: give a dtype (f32, f64, i32, u32, i16, u16, i8, u8 or bool from "cudascript")`);
  const name = typeof d === "string" ? d : d?.name;
  const t = name ? (dtypes as Record<string, DType>)[name] : undefined;
  if (!t) throw new CudaScriptError("CSR013", `${what}: ${JSON.stringify(d)} is not a dtype; use f32, f64, i32, u32, i16, u16, i8, u8 or bool from "cudascript"`);
  return t;
}

/**
 * A host N-D array: row-major `data` with a `shape`. Index it like the kernel does (`a[i][j]`), or use
 * `data` directly for speed. Accepted wherever a kernel takes Array2D/Array3D.
 */
export class NDArray<D extends TypedArray = TypedArray> {
  readonly shape: readonly number[];
  readonly dtype: DType;
  [index: number]: any;

  constructor(
    readonly data: D,
    shape: Shape,
  ) {
    const dt = dtypeOfTypedArray(data);
    if (!dt) throw new CudaScriptError("CSR004", `cuda.ndarray takes a typed array (Float32Array, Int32Array, …), got ${describeValue(data)}`);
    this.dtype = dtypes[dt];
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
  row(i: number): TypedArray | NDArray<D> | number {
    const [n, ...rest] = this.shape;
    if (i >= n!) return undefined as unknown as number;
    if (rest.length === 0) return this.data[i]!;
    const inner = rest.reduce((a, b) => a * b, 1);
    const sub = this.data.subarray(i * inner, (i + 1) * inner) as D;
    return rest.length === 1 ? sub : new NDArray(sub, rest);
  }

  toString(): string {
    return `NDArray(${this.dtype.name}, [${this.shape.join(", ")}])`;
  }
}

export function isHostNDArray(v: unknown): v is { data: TypedArray; shape: readonly number[] } {
  if (v instanceof NDArray) return true;
  return typeof v === "object" && v !== null && !ArrayBuffer.isView(v) && !(v instanceof DeviceNDArray) && ArrayBuffer.isView((v as { data?: unknown }).data) && Array.isArray((v as { shape?: unknown }).shape);
}

let nextArrayId = 1;

/** Device memory holding an N-D array (Numba's DeviceNDArray). */
export class DeviceNDArray<T = unknown> {
  declare readonly __deviceArrayOf?: T;
  readonly id = nextArrayId++;
  readonly shape: readonly number[];
  readonly dtype: DType;
  /** @internal backend allocation */
  readonly buffer: DeviceBuffer;
  private isFreed = false;

  constructor(shape: readonly number[], dtype: DType, buffer?: DeviceBuffer) {
    this.shape = Object.freeze([...shape]);
    this.dtype = dtype;
    this.buffer = buffer ?? currentBackend().alloc(this.nbytes);
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
    return this.isFreed;
  }

  /** @internal */
  checkAlive(what: string): void {
    if (this.isFreed)
      throw new CudaScriptError("CSR010", `${what}: this device array (${this.dtype.name}, shape [${this.shape.join(", ")}]) was freed with .free(); allocate a new one with cuda.toDevice(…) or cuda.deviceArray(…)`);
  }

  /**
   * Copies the array to the host: into `out` when given (a typed array or NDArray of the same size and
   * dtype), else into a new one. With a stream, synchronise the stream before reading the result.
   */
  copyToHost<R = T extends TypedArray ? T : NDArray>(out?: TypedArray | NDArray, stream?: Stream): R {
    this.checkAlive("copyToHost");
    const fresh = () => allocHost(this.dtype, this.size, "copyToHost", () => new this.dtype.arrayType(this.size));
    const target = out ?? (this.ndim === 1 ? fresh() : new NDArray(fresh(), this.shape));
    const data = hostData(target, this, "copyToHost");
    currentBackend().copyDtoH(data, this.buffer, 0, streamHandle(stream));
    return target as unknown as R;
  }

  /** Copies host data (same size and dtype) into this array. */
  copyToDevice(host: TypedArray | NDArray | DeviceNDArray, stream?: Stream): void {
    this.checkAlive("copyToDevice");
    if (host instanceof DeviceNDArray) {
      host.checkAlive("copyToDevice");
      if (host.size !== this.size || host.dtype !== this.dtype)
        throw new CudaScriptError("CSR011", `copyToDevice: source is ${host.dtype.name}[${host.shape.join(", ")}], this array is ${this.dtype.name}[${this.shape.join(", ")}]`);
      currentBackend().copyDtoD(this.buffer, 0, host.buffer, 0, this.nbytes, streamHandle(stream));
      return;
    }
    currentBackend().copyHtoD(this.buffer, 0, hostData(host, this, "copyToDevice"), streamHandle(stream));
  }

  /** Releases the device memory now; later use is an error (CSR010). */
  free(): void {
    if (this.isFreed) return;
    this.isFreed = true;
    currentBackend().free(this.buffer);
  }

  toString(): string {
    return `DeviceNDArray(${this.dtype.name}, [${this.shape.join(", ")}])${this.isFreed ? " (freed)" : ""}`;
  }
}

function hostData(host: unknown, dev: DeviceNDArray, what: string): TypedArray {
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

export function toDevice<H extends TypedArray | NDArray>(host: H, stream?: Stream): DeviceOf<H> {
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
  d.copyToDevice(data, stream);
  return d as DeviceOf<H>;
}

type DeviceForShape<S, N extends DTypeName> = S extends number | readonly [number]
  ? DeviceNDArray<InstanceType<DType<N>["arrayType"]>>
  : S extends readonly [number, number]
    ? DeviceNDArray<Array2D<number>>
    : DeviceNDArray<Array3D<number>>;

export function deviceArray<N extends DTypeName, const S extends Shape>(shape: S, dtype: DType<N>): DeviceForShape<S, N> {
  const s = normalizeShape(shape, "cuda.deviceArray");
  const d = new DeviceNDArray(s, toDType(dtype, "cuda.deviceArray"));
  currentBackend().memset(d.buffer, 0, d.nbytes, 0, null);
  return d as DeviceForShape<S, N>;
}

export function deviceArrayLike<A extends TypedArray | NDArray | DeviceNDArray>(a: A): A extends DeviceNDArray ? A : DeviceOf<A> {
  let shape: readonly number[], dtype: DType;
  if (a instanceof DeviceNDArray) {
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

type HostForShape<S, N extends DTypeName> = S extends number | readonly [number]
  ? InstanceType<DType<N>["arrayType"]>
  : S extends readonly [number, number]
    ? NDArray<InstanceType<DType<N>["arrayType"]>> & Array2D<number>
    : NDArray<InstanceType<DType<N>["arrayType"]>> & Array3D<number>;

/** Host memory for fast transfers (page-locked on the GPU backend; ordinary memory on the simulator). */
export function pinnedArray<N extends DTypeName, const S extends Shape>(shape: S, dtype: DType<N>): HostForShape<S, N> {
  const s = normalizeShape(shape, "cuda.pinnedArray");
  const t = toDType(dtype, "cuda.pinnedArray");
  const n = s.reduce((a, b) => a * b, 1);
  const data = allocHost(t, n, "cuda.pinnedArray", () => {
    const pinned = currentBackend().allocPinnedHost?.(n * t.bytes);
    return pinned ? new t.arrayType(pinned, 0, n) : new t.arrayType(n);
  });
  return (s.length === 1 ? data : new NDArray(data, s)) as HostForShape<S, N>;
}

export function ndarray<D extends TypedArray>(data: D, shape: readonly [number, number]): NDArray<D> & Array2D<number>;
export function ndarray<D extends TypedArray>(data: D, shape: readonly [number, number, number]): NDArray<D> & Array3D<number>;
export function ndarray<D extends TypedArray>(data: D, shape: Shape): NDArray<D>;
export function ndarray<D extends TypedArray>(data: D, shape: Shape): NDArray<D> {
  return new NDArray(data, shape);
}
