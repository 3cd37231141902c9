/**
 * `cuda.pinnedArray` on the GPU backend: page-locked host memory (cuMemHostAlloc) viewed as a typed
 * array (or an NDArray for 2-D/3-D shapes), so that copies from/to it are DMA transfers that can
 * overlap with kernels on a stream. The memory is returned to the driver when the array (and every
 * view of its buffer) has been garbage-collected.
 */
import type { DType, DTypeName, TypedArray } from "../dtypes";
import { NDArray, normalizeShape, toDType, type Shape } from "../host/arrays";
import type { GpuBackend } from "./backend";

export function gpuPinnedArray(backend: GpuBackend, shape: Shape, dtype: DType | DTypeName): TypedArray | NDArray {
  const s = normalizeShape(shape, "cuda.pinnedArray");
  const t = toDType(dtype, "cuda.pinnedArray");
  const n = s.reduce((a, b) => a * b, 1);
  const buffer = backend.allocPinnedHost(n * t.bytes);
  const data = new t.arrayType(buffer, 0, n) as TypedArray;
  return s.length === 1 ? data : new NDArray(data, s);
}
