/** A corpus case's host value as a kernel argument: scalars as they are, arrays copied to the device. */
import { Complex128Array, Complex64Array, cuda } from "cudascript";
import { isComplexArray, isTypedData, type HostNDArray, type HostValue } from "./case";

export function toDevice(v: HostValue): unknown {
  if (typeof v === "number" || typeof v === "boolean" || typeof v === "bigint") return v;
  if (isComplexArray(v)) return cuda.toDevice(v.complex === "c64" ? Complex64Array.wrap(v.data as Float32Array) : Complex128Array.wrap(v.data as Float64Array));
  if (isTypedData(v)) return cuda.toDevice(v);
  const nd = v as HostNDArray;
  // An F-order or strided case array keeps its layout (element strides; the host API takes bytes).
  const layout = nd.strides ? { strides: nd.strides.map((e) => e * (nd.data as Float32Array).BYTES_PER_ELEMENT) } : undefined;
  return cuda.toDevice(cuda.ndarray(nd.data, nd.shape, layout));
}

