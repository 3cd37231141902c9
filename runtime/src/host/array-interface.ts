/**
 * The CUDA Array Interface, consumed: `cuda.isCudaArray`, `cuda.asCudaArray`,
 * `cuda.fromCudaArrayInterface` (Numba's `is_cuda_array`, `as_cuda_array`, `from_cuda_array_interface`)
 * and kernel arguments that are foreign arrays. The array made views the foreign memory without
 * copying and keeps its owner alive; the descriptor is checked field by field (CSR061), and on the
 * simulator the pointer must lie inside a live allocation of its address space (CSR062).
 */
import { complexDtypes, dtypes, type AnyDTypeName, type DType } from "../dtypes";
import { CudaScriptError } from "../errors";
import { rowMajorStrides, spanElements } from "../layout";
import { describeValue, DeviceNDArray, NDArray, type ForeignMemory } from "./arrays";
import { TYPESTRS, type CudaArrayInterface } from "./array-interface-export";
import { currentBackend } from "./device";

export type { CudaArrayInterface } from "./array-interface-export";

/** Kind and item size (`f4`) → dtype. */
const DTYPE_OF_KIND = new Map<string, AnyDTypeName>(Object.entries(TYPESTRS).map(([d, t]) => [t.slice(1), d as AnyDTypeName]));

/**
 * The dtype of a typestr: `<` little-endian, `=` native (little-endian wherever CudaScript runs), `|`
 * where byte order does not apply; any order for 1-byte items. Big-endian multi-byte data is refused.
 */
function dtypeOfTypestr(t: unknown): AnyDTypeName | undefined {
  if (typeof t !== "string" || t.length < 3) return undefined;
  const order = t[0]!, kind = t.slice(1);
  const name = DTYPE_OF_KIND.get(kind);
  if (!name) return undefined;
  const oneByte = kind.endsWith("1") && kind.length === 2;
  return order === "<" || order === "=" || (oneByte && (order === "|" || order === ">")) ? name : undefined;
}

/** Options of `cuda.asCudaArray` / `cuda.fromCudaArrayInterface`. */
export interface ArrayInterfaceOptions {
  /**
   * Synchronise the descriptor's `stream` before returning (the spec's default, Numba's
   * CUDA_ARRAY_INTERFACE_SYNC). false leaves ordering to the caller. Default: true unless the
   * environment sets CUDASCRIPT_ARRAY_INTERFACE_SYNC=0.
   */
  readonly sync?: boolean;
}

/** Numba's `is_cuda_array`: the object has a `__cuda_array_interface__` (a CudaScript device array does). */
export function isCudaArray(obj: unknown): boolean {
  return (typeof obj === "object" || typeof obj === "function") && obj !== null && "__cuda_array_interface__" in obj;
}

/** True for an object with the interface that is not already a CudaScript device array (a kernel argument to import). */
export function isForeignCudaArray(obj: unknown): boolean {
  return !(obj instanceof DeviceNDArray) && !(obj instanceof NDArray) && !ArrayBuffer.isView(obj) && isCudaArray(obj);
}

/** `v` itself, or — for another library's array (an object with the interface) — a device array viewing it (ufuncs, gufuncs, reductions). */
export function viewIfForeign<T>(v: T): T | DeviceNDArray<any> {
  return isForeignCudaArray(v) ? asCudaArray(v) : v;
}

/**
 * Numba's `as_cuda_array`: a device array viewing `obj`'s memory through its `__cuda_array_interface__`
 * (no copy; `obj` is kept alive while the view is). CSR061 when `obj` has no interface.
 */
export function asCudaArray(obj: unknown, options?: ArrayInterfaceOptions): DeviceNDArray<any> {
  if (!isCudaArray(obj))
    throw new CudaScriptError(
      "CSR061",
      `cuda.asCudaArray: ${describeValue(obj)} is not a CUDA array: it has no __cuda_array_interface__. Pass a device array of CudaScript, CuPy, PyTorch, Numba, … or build the descriptor and call cuda.fromCudaArrayInterface(desc, owner)`,
    );
  return fromCudaArrayInterface((obj as { __cuda_array_interface__: unknown }).__cuda_array_interface__ as CudaArrayInterface, obj, options);
}

/**
 * Numba's `from_cuda_array_interface(desc, owner)`: a device array over the memory `desc` describes,
 * without copying. `owner` (the object the memory belongs to) is kept alive as long as the array;
 * `free()` on it releases only the view. The descriptor's stream is synchronised first (see options).
 */
export function fromCudaArrayInterface(desc: CudaArrayInterface, owner?: unknown, options?: ArrayInterfaceOptions): DeviceNDArray<any> {
  const what = "cuda.fromCudaArrayInterface";
  const d = checkDescriptor(desc, what);
  const backend = currentBackend();
  if (!backend.foreignMemory)
    throw new CudaScriptError("CSR064", `${what}: the ${backend.kind} backend (${backend.description}) cannot view foreign device memory`);
  if (d.stream !== undefined && syncEnabled(options)) backend.synchronizeRawStream?.(d.stream);
  return foreignArray(d, { owner }, what);
}

/** A checked descriptor: everything a foreign array needs. */
export interface CheckedDescriptor {
  readonly shape: readonly number[];
  readonly dtype: DType;
  readonly pointer: bigint;
  readonly elementStrides: readonly number[];
  /** undefined: nothing to synchronise. */
  readonly stream: bigint | undefined;
}

/** A device array over foreign memory (shared by the interface, DLPack and IPC imports). */
export function foreignArray(d: Pick<CheckedDescriptor, "shape" | "dtype" | "pointer" | "elementStrides">, foreign: ForeignMemory, what: string): DeviceNDArray<any> {
  const backend = currentBackend();
  const bytes = spanElements(d.shape, d.elementStrides) * d.dtype.bytes;
  // An empty array views nothing: it gets an empty buffer of its own (its pointer reads as 0).
  if (bytes === 0) return new DeviceNDArray(d.shape, d.dtype, undefined, { buffer: backend.alloc(0), byteOffset: 0, foreign }, d.elementStrides);
  const memory = backend.foreignMemory!(d.pointer, bytes, what);
  return new DeviceNDArray(d.shape, d.dtype, undefined, { ...memory, foreign }, d.elementStrides);
}

function syncEnabled(options: ArrayInterfaceOptions | undefined): boolean {
  if (options?.sync !== undefined) return options.sync !== false;
  const env = process.env.CUDASCRIPT_ARRAY_INTERFACE_SYNC;
  return !(env === "0" || env === "false");
}

function bad(what: string, text: string): CudaScriptError {
  return new CudaScriptError("CSR061", `${what}: ${text}`);
}

/** Every rule of the spec (version 3) that CudaScript's arrays can honour; CSR061 for the rest. */
export function checkDescriptor(desc: CudaArrayInterface, what: string): CheckedDescriptor {
  if (typeof desc !== "object" || desc === null || Array.isArray(desc))
    throw bad(what, `the descriptor is an object { shape, typestr, data: [pointer, readOnly], strides, version, stream }, got ${describeValue(desc)}`);
  const { shape, typestr, data, strides, version, stream, mask } = desc;
  if (typeof version !== "number" || !Number.isInteger(version) || version < 0 || version > 3)
    throw bad(what, `version is the interface's version, a whole number up to 3 (CudaScript reads version 3 and earlier), got ${describeField(version)}`);
  if (mask !== undefined && mask !== null) throw bad(what, "masked arrays are not supported (the descriptor has a mask): pass the data and the mask as two arrays");
  if (!Array.isArray(shape) || !shape.every((n) => Number.isSafeInteger(n) && n >= 0))
    throw bad(what, `shape is an array of whole numbers ≥ 0, got ${describeField(shape)}`);
  if (shape.length < 1 || shape.length > 3)
    throw bad(what, `CudaScript's device arrays have 1 to 3 dimensions, this descriptor has ${shape.length}${shape.length === 0 ? " (a 0-d scalar: view it with shape [1])" : ""}`);
  const name = dtypeOfTypestr(typestr);
  if (!name)
    throw bad(
      what,
      `typestr ${describeField(typestr)} is not a dtype CudaScript has${typeof typestr === "string" && typestr.startsWith(">") ? " (big-endian data: convert it to little-endian first)" : ""}; it reads ${Object.values(TYPESTRS).join(", ")}`,
    );
  const dtype = ((dtypes as Record<string, DType>)[name] ?? (complexDtypes as Record<string, unknown>)[name]) as DType;
  if (!Array.isArray(data) || data.length !== 2 || typeof data[1] !== "boolean")
    throw bad(what, `data is [pointer, readOnly] (a bigint or whole number and a boolean), got ${describeField(data)}`);
  const raw = data[0] as unknown;
  if (!(typeof raw === "bigint" || (typeof raw === "number" && Number.isSafeInteger(raw))) || BigInt(raw) < 0n || BigInt(raw) >= 2n ** 64n)
    throw bad(what, `data[0] is the device pointer, a bigint (or a whole number below 2^53) in [0, 2^64), got ${describeField(raw)}`);
  const pointer = BigInt(raw);
  const size = shape.reduce((a: number, b: number) => a * b, 1);
  if (pointer === 0n && size > 0) throw bad(what, `data[0] is a null pointer, but shape [${shape.join(", ")}] has ${size} elements: only an empty array may have a null pointer`);
  if (pointer % BigInt(dtype.bytes) !== 0n)
    throw bad(what, `the pointer 0x${pointer.toString(16)} is not aligned to the ${dtype.bytes}-byte items of ${typestr}: kernels cannot read misaligned elements`);
  let elementStrides: readonly number[];
  if (strides === undefined || strides === null) elementStrides = rowMajorStrides(shape);
  else {
    if (!Array.isArray(strides) || strides.length !== shape.length || !strides.every((s) => Number.isSafeInteger(s)))
      throw bad(what, `strides are byte strides, one whole number per dimension (${shape.length}), or null for C order; got ${describeField(strides)}`);
    const b = dtype.bytes;
    strides.forEach((s: number, i: number) => {
      if (s < 0) throw bad(what, `stride ${i} is negative (${s} bytes): CudaScript's arrays have positive strides; reverse the data in the other library (or copy it) first`);
      if (s % b !== 0) throw bad(what, `stride ${i} (${s} bytes) is not a multiple of the ${b}-byte item size of ${typestr}: kernels cannot read misaligned elements`);
      if (s === 0 && shape[i]! > 1) throw bad(what, `stride ${i} is 0 (a broadcast dimension): CudaScript's arrays have positive strides; materialise the broadcast first`);
    });
    // A zero stride on a dimension of extent ≤ 1 is harmless: any positive stride reads the same elements.
    elementStrides = strides.map((s: number, i: number) => (s === 0 ? rowMajorStrides(shape)[i]! : s / b));
  }
  if (size > 0 && spanElements(shape, elementStrides) > 2 ** 31 - 1)
    throw bad(what, `shape [${shape.join(", ")}] with these strides spans 2^31 elements or more, and kernels index arrays with 32-bit ints`);
  let streamHandle: bigint | undefined;
  if (stream !== undefined && stream !== null) {
    if (!(typeof stream === "bigint" || (typeof stream === "number" && Number.isSafeInteger(stream))) || BigInt(stream) < 0n)
      throw bad(what, `stream is a stream handle (a whole number or bigint) or null, got ${describeField(stream)}`);
    if (BigInt(stream) === 0n) throw bad(what, "stream is 0, which the interface does not allow (it is ambiguous): use 1 for the legacy default stream, 2 for the per-thread default stream, or null");
    streamHandle = BigInt(stream);
  }
  return { shape, dtype, pointer, elementStrides, stream: streamHandle };
}

function describeField(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map((x) => (typeof x === "bigint" ? `${x}n` : typeof x === "string" ? JSON.stringify(x) : String(x))).join(", ")}]`;
  return describeValue(v);
}
