/**
 * The CUDA Array Interface (version 3) as CudaScript's device arrays describe themselves: the
 * descriptor's type and the typestr of each dtype. The import side (cuda.fromCudaArrayInterface)
 * is array-interface.ts. Spec: https://numba.readthedocs.io/en/stable/cuda/cuda_array_interface.html
 */
import type { AnyDTypeName } from "../dtypes";
import { isContiguousIn } from "../layout";
import { currentBackend } from "./device";
import { CudaScriptError } from "../errors";
import { DTYPE_NAMES, DTYPES } from "@cudascript/compiler/dtypes";

/**
 * `__cuda_array_interface__` (spec version 3), Numba's and CuPy's keys. `data[0]` is the device pointer
 * as a bigint (JavaScript numbers lose bits above 2^53), `data[1]` true when the memory is read-only.
 */
export interface CudaArrayInterface {
  /** Extent of each dimension. */
  readonly shape: readonly number[];
  /** NumPy's type string: byte order, kind, item size — `<f4` for f32, `|u1` for u8, `<c16` for c128. */
  readonly typestr: string;
  readonly data: readonly [pointer: bigint, readOnly: boolean];
  /** Bytes between consecutive elements of each dimension; null (or absent) for C-contiguous. */
  readonly strides?: readonly number[] | null;
  readonly version: number;
  /**
   * The stream the data is in use on: a consumer synchronises it (or makes its own stream wait)
   * before reading. null/absent: no synchronisation needed. 1 and 2 are CUDA's legacy and
   * per-thread default streams; 0 is not allowed.
   */
  readonly stream?: number | bigint | null;
  /** Masked arrays: not supported (CSR061 when present and not null). */
  readonly mask?: unknown;
  /** NumPy's structured `descr`: accepted and ignored (the typestr says everything for plain dtypes). */
  readonly descr?: unknown;
}

/**
 * Each dtype's NumPy typestr, from the dtype table: `<` little-endian (`|` where byte order does not
 * apply: one-byte types), the kind (i, u, f, c, b) and the item size in bytes (`<f4`, `|u1`, `<c16`).
 */
export const TYPESTRS: Readonly<Record<AnyDTypeName, string>> = Object.freeze(
  Object.fromEntries(
    DTYPE_NAMES.map((name) => {
      const d = DTYPES[name];
      const kind = d.kind === "int" ? (d.signed ? "i" : "u") : d.kind === "float" ? "f" : d.kind === "complex" ? "c" : "b";
      return [name, `${d.bytes === 1 ? "|" : "<"}${kind}${d.bytes}`];
    }),
  ) as Record<AnyDTypeName, string>,
);

/** What describeCudaArray reads of a device array. */
interface Describable {
  readonly shape: readonly number[];
  readonly dtype: { readonly name: AnyDTypeName | string; readonly bytes: number };
  readonly buffer: import("../backend").DeviceBuffer;
  readonly byteOffset: number;
  readonly elementStrides: readonly number[];
  readonly size: number;
}

export function describeCudaArray(a: Describable): CudaArrayInterface {
  const backend = currentBackend();
  if (!backend.addressOf)
    throw new CudaScriptError("CSR064", `__cuda_array_interface__: the ${backend.kind} backend (${backend.description}) has no device pointers to hand out`);
  // Numba: an empty array's pointer is 0 (there is nothing to point at).
  const pointer = a.size === 0 ? 0n : backend.addressOf(a.buffer) + BigInt(a.byteOffset);
  const strides = isContiguousIn("C", a.shape, a.elementStrides) ? null : a.elementStrides.map((s) => s * a.dtype.bytes);
  return {
    shape: [...a.shape],
    typestr: TYPESTRS[a.dtype.name as AnyDTypeName],
    data: [pointer, false],
    strides,
    version: 3,
    stream: null,
  };
}
