/**
 * Copies between arrays of different layouts (C order, F order, strided views): one backend copy where
 * both sides have the same dense layout, else element by element through a host staging buffer, so no
 * copy ever moves the right bytes to the wrong elements. The element-wise path reads the device
 * side synchronously (it waits for the stream), as it must see the bytes before rearranging them.
 */
import type { StreamHandle } from "../backend";
import type { TypedArray } from "../dtypes";
import { isContiguousIn, rowMajorStrides, spanElements } from "../layout";
import { currentBackend } from "./device";
import type { DeviceNDArray } from "./arrays";

/** Both layouts are the same dense (C- or F-contiguous) layout of `shape`: the bytes can move as they are. */
function sameDenseLayout(shape: readonly number[], a: readonly number[], b: readonly number[]): boolean {
  const dense = isContiguousIn("C", shape, a) || isContiguousIn("F", shape, a);
  return dense && shape.every((n, d) => n <= 1 || a[d] === b[d]);
}

function bytesOf(data: TypedArray, count: number): Uint8Array {
  return new Uint8Array(data.buffer, data.byteOffset, count);
}

/** Copies every element of `shape` from `src` (element strides `srcStrides`) to `dst` (`dstStrides`), `item` bytes each. */
function rearrange(shape: readonly number[], item: number, src: Uint8Array, srcStrides: readonly number[], dst: Uint8Array, dstStrides: readonly number[]): void {
  const size = shape.reduce((a, b) => a * b, 1);
  if (size === 0) return;
  const rank = shape.length;
  const index = new Array<number>(rank).fill(0);
  for (let n = 0; n < size; n++) {
    let s = 0, d = 0;
    for (let k = 0; k < rank; k++) {
      s += index[k]! * srcStrides[k]!;
      d += index[k]! * dstStrides[k]!;
    }
    dst.set(src.subarray(s * item, s * item + item), d * item);
    for (let k = rank - 1; k >= 0 && ++index[k]! === shape[k]!; k--) index[k] = 0;
  }
}

/** Reads the bytes `dev`'s layout spans (waits for `stream`). */
function readSpan(dev: DeviceNDArray, stream: StreamHandle | null): Uint8Array {
  const span = new Uint8Array(dev.spanBytes);
  const backend = currentBackend();
  backend.copyDtoH(span, dev.buffer, dev.byteOffset, stream);
  backend.synchronizeStream(stream);
  return span;
}

/** `dev` → `host` (element strides `hostStrides` in `dev`'s shape). */
export function copyDeviceToHost(dev: DeviceNDArray, host: TypedArray, hostStrides: readonly number[], stream: StreamHandle | null): void {
  const item = dev.dtype.bytes;
  if (sameDenseLayout(dev.shape, dev.elementStrides, hostStrides)) {
    currentBackend().copyDtoH(bytesOf(host, dev.size * item), dev.buffer, dev.byteOffset, stream);
    return;
  }
  const span = readSpan(dev, stream);
  rearrange(dev.shape, item, span, dev.elementStrides, bytesOf(host, spanElements(dev.shape, hostStrides) * item), hostStrides);
}

/** `host` (element strides `hostStrides` in `dev`'s shape) → `dev`. */
export function copyHostToDevice(dev: DeviceNDArray, host: TypedArray, hostStrides: readonly number[], stream: StreamHandle | null): void {
  const item = dev.dtype.bytes;
  if (sameDenseLayout(dev.shape, dev.elementStrides, hostStrides)) {
    currentBackend().copyHtoD(dev.buffer, dev.byteOffset, bytesOf(host, dev.size * item), stream);
    return;
  }
  // A strided destination has gaps that belong to other views: read them, so the write-back keeps them.
  const dense = isContiguousIn("C", dev.shape, dev.elementStrides) || isContiguousIn("F", dev.shape, dev.elementStrides);
  const span = dense ? new Uint8Array(dev.spanBytes) : readSpan(dev, stream);
  rearrange(dev.shape, item, bytesOf(host, spanElements(dev.shape, hostStrides) * item), hostStrides, span, dev.elementStrides);
  currentBackend().copyHtoD(dev.buffer, dev.byteOffset, span, stream);
}

/** `src` → `dst` (same size and dtype; checked by the caller). Arrays of different shapes are read in C order. */
export function copyDeviceToDevice(dst: DeviceNDArray, src: DeviceNDArray, stream: StreamHandle | null): void {
  const sameShape = dst.shape.length === src.shape.length && dst.shape.every((n, d) => n === src.shape[d]);
  const srcStrides = sameShape ? src.elementStrides : rowMajorStrides(dst.shape);
  if (sameDenseLayout(dst.shape, dst.elementStrides, srcStrides) && (sameShape || src.isCContiguous())) {
    currentBackend().copyDtoD(dst.buffer, dst.byteOffset, src.buffer, src.byteOffset, dst.size * dst.dtype.bytes, stream);
    return;
  }
  if (!sameShape && !src.isCContiguous()) {
    // Read src in its own shape into C order first, then write that in dst's shape.
    const c = new Uint8Array(src.size * src.dtype.bytes);
    rearrange(src.shape, src.dtype.bytes, readSpan(src, stream), src.elementStrides, c, rowMajorStrides(src.shape));
    copyHostToDevice(dst, new Uint8Array(c.buffer) as unknown as TypedArray, rowMajorStrides(dst.shape), stream);
    return;
  }
  copyHostToDevice(dst, readSpan(src, stream) as unknown as TypedArray, srcStrides, stream);
}
