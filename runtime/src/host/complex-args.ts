/**
 * Kernel arguments of complex parameters (c64 / c128): a scalar takes `{ re, im }`, an array a
 * Complex64Array / Complex128Array (copied to the device and back around the launch, like a typed
 * array) or a device array of the same dtype. Wrong values are CSR029 with what to pass instead.
 */
import type { KernelArg } from "../backend";
import { Complex128Array, Complex64Array, isComplexValue } from "../complex-array";
import { complexDtypes, type ComplexDTypeName, type DType, type TypedArray } from "../dtypes";
import { CudaScriptError } from "../errors";
import { describeValue, DeviceNDArray, isComplexNDArray } from "./arrays";
import { currentBackend } from "./device";

interface ComplexParam {
  readonly name: string;
  readonly kind: "scalar" | "array";
  readonly dtype: ComplexDTypeName;
  readonly rank: number;
}

const ARRAY_CLASS = { c64: Complex64Array, c128: Complex128Array } as const;

/** The device-array dtype of a complex dtype (DeviceNDArray needs only its name and element size). */
export function complexDeviceDType(d: ComplexDTypeName): DType {
  return complexDtypes[d] as unknown as DType;
}

export function checkComplexArg(p: ComplexParam, which: string, want: string, v: unknown): void {
  if (p.kind === "scalar") {
    if (!isComplexValue(v)) throw new CudaScriptError("CSR029", `${which} is a ${p.dtype} complex number: pass an object { re, im } of two numbers, not ${describeValue(v)}`);
    return;
  }
  if (v instanceof DeviceNDArray) {
    v.checkAlive(which);
    if ((v.dtype.name as string) !== p.dtype) throw new CudaScriptError("CSR029", `${which} expects ${want}, but the device array holds ${v.dtype.name}: copy a ${ARRAY_CLASS[p.dtype].name} to the device instead`);
    if (v.ndim !== p.rank) throw new CudaScriptError("CSR006", `${which} expects a ${p.rank}-D array (${want}), but the device array has shape [${v.shape.join(", ")}]`);
    return;
  }
  const cls = ARRAY_CLASS[p.dtype];
  if (p.rank !== 1 || isComplexNDArray(v)) {
    // An N-D parameter takes cuda.ndarray(complexArray, shape) (or a device array, above).
    if (!isComplexNDArray(v) || !(v.data instanceof cls))
      throw new CudaScriptError(
        "CSR029",
        `${which} expects ${want}, got ${isComplexNDArray(v) ? `a cuda.ndarray of a ${v.data.constructor.name}` : describeValue(v)}: pass cuda.ndarray(${cls.name}.wrap(parts), [${Array.from({ length: p.rank }, (_, d) => `n${d}`).join(", ")}]) or a device array of that shape`,
      );
    if (v.ndim !== p.rank) throw new CudaScriptError("CSR006", `${which} expects a ${p.rank}-D array (${want}), but the cuda.ndarray has shape [${v.shape.join(", ")}]`);
    return;
  }
  if (!(v instanceof cls)) {
    const other = v instanceof Complex64Array || v instanceof Complex128Array;
    const parts = v instanceof Float32Array || v instanceof Float64Array;
    throw new CudaScriptError(
      "CSR029",
      `${which} expects ${want}, got ${other ? `a ${(v as object).constructor.name}` : describeValue(v)}: ${parts ? `wrap interleaved parts as ${cls.name}.wrap(parts)` : `pass a ${cls.name} (new ${cls.name}(n), then .set(i, { re, im }))`}`,
    );
  }
}

/** The launch argument of a checked complex value; a host array is copied to a device array that `copyBack` returns after the launch. */
export function prepareComplexArg(p: ComplexParam, v: unknown, copyBack: { host: TypedArray; dev: DeviceNDArray }[]): KernelArg {
  if (p.kind === "scalar") {
    const z = v as { re: number; im: number };
    const round = p.dtype === "c64" ? Math.fround : (x: number) => x;
    return { kind: "scalar", dtype: p.dtype, value: { re: round(z.re), im: round(z.im) } };
  }
  if (v instanceof DeviceNDArray) return { kind: "array", buffer: v.buffer, byteOffset: v.byteOffset, dtype: p.dtype, shape: v.shape, strides: v.elementStrides };
  // A host array (1-D, or a cuda.ndarray of one with its shape) goes to the device and back, as a typed array does.
  const host = (isComplexNDArray(v) ? v.data : v) as Complex64Array | Complex128Array;
  const shape = isComplexNDArray(v) ? v.shape : [host.length];
  const dev = new DeviceNDArray(shape, complexDeviceDType(p.dtype));
  currentBackend().copyHtoD(dev.buffer, 0, host.data, null);
  copyBack.push({ host: host.data, dev });
  return { kind: "array", buffer: dev.buffer, byteOffset: 0, dtype: p.dtype, shape, strides: dev.elementStrides };
}
