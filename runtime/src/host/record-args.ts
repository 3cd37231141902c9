/**
 * Record arrays as kernel arguments (docs/host-api.md#records): a host RecordArray, or a device array
 * made by `cuda.toDevice(recordArray)`, for an `Array1D<Particle>` parameter, whose fields must be the
 * kernel's record type's (names, dtypes, order: the same bytes), CSR080 otherwise. The launch then
 * passes the array's bytes (docs/abi.md), like a u8 array.
 */
import { recordFieldsText, recordLayout, sameRecordFields, type DTypeName } from "@cudascript/compiler/dtypes";
import type { KernelArtifact } from "../backend";
import { CudaScriptError } from "../errors";
import { RecordArray } from "../records";
import { describeValue, DeviceNDArray } from "./arrays";

type ParamSignature = KernelArtifact["kernels"][string]["signature"][number];

/** A host record array, or a device array holding one's bytes. */
export function isRecordArgument(v: unknown): boolean {
  return v instanceof RecordArray || (v instanceof DeviceNDArray && v.recordDtype !== undefined);
}

/** What a launch passes for `v`: a host record array's bytes; anything else as it is. */
export function recordBytes(v: unknown): unknown {
  return v instanceof RecordArray ? v.bytes : v;
}

export function checkRecordArg(p: ParamSignature, which: string, v: unknown): void {
  const rec = p.record;
  if (!rec) {
    throw new CudaScriptError(
      "CSR082",
      `${which} is ${p.kind === "scalar" ? `a ${p.dtype}` : `an array of ${p.dtype}`}, but got a record array: declare the parameter as Array1D<YourRecord> (an interface with the record's fields), or pass one field's values as a typed array`,
    );
  }
  const want = recordLayout(rec.fields.map((f) => [f.name, f.dtype as DTypeName] as const));
  const dtype = v instanceof RecordArray ? v.dtype : v instanceof DeviceNDArray ? v.recordDtype : undefined;
  if (!dtype) {
    throw new CudaScriptError(
      "CSR081",
      `${which} is Array${p.rank}D<${rec.name}>, an array of records ${recordFieldsText(want)}, got ${describeValue(v)}: make one with cuda.recordArray(cuda.record(${recordFieldsText(want)}), n), and pass it or cuda.toDevice(it)`,
    );
  }
  if (v instanceof DeviceNDArray) v.checkAlive(which);
  if (!sameRecordFields(dtype.layout, want))
    throw new CudaScriptError(
      "CSR080",
      `${which} is Array${p.rank}D<${rec.name}> with the fields ${recordFieldsText(want)}, but the record array's fields are ${recordFieldsText(dtype.layout)}: make its dtype with the same fields in the same order, cuda.record(${recordFieldsText(want)})`,
    );
  if (p.rank !== 1)
    throw new CudaScriptError("CSR081", `${which} is Array${p.rank}D<${rec.name}>: record arrays are 1-D (cuda.recordArray(dtype, n)) in this version`);
}
