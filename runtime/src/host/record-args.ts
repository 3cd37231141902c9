/**
 * Record arrays as kernel arguments (docs/host-api.md#records): a host RecordArray, or a device array
 * made by `cuda.toDevice(recordArray)`, for an `Array1D<Particle>` parameter, whose fields must be the
 * kernel's record type's (names, dtypes, order: the same bytes), CSR080 otherwise. The launch then
 * passes the array's bytes (docs/abi.md), like a u8 array.
 */
import { recordFieldsText, recordLayout, sameRecordFields, type DTypeName } from "@cudascript/compiler/dtypes";
import type { KernelArtifact } from "../backend";
import { CudaScriptError } from "../errors";
import { RecordArray, RecordDtype, type RecordFieldDType } from "../records";
import { complexDtypes, dtypes } from "../dtypes";
import { describeValue, DeviceNDArray, recordArrayBytes } from "./arrays";

type ParamSignature = KernelArtifact["kernels"][string]["signature"][number];

/** A host record array, or a device array holding one's bytes. */
export function isRecordArgument(v: unknown): boolean {
  return v instanceof RecordArray || (v instanceof DeviceNDArray && v.recordDtype !== undefined);
}

/**
 * What a launch passes for `v`: a host record array's bytes; for a record parameter taken by value
 * (`p: Particle`), the bytes of a one-record array holding it (checked first by checkRecordArg);
 * anything else as it is.
 */
export function recordBytes(v: unknown, p: ParamSignature): unknown {
  if (p.record?.byValue) {
    const one = new RecordArray(dtypeOf(p.record), 1);
    one.set(0, v as never);
    return one.bytes;
  }
  return v instanceof RecordArray ? recordArrayBytes(v) : v;
}

/** The record dtype of a kernel's record parameter (its fields in order). */
function dtypeOf(rec: NonNullable<ParamSignature["record"]>): RecordDtype {
  const all: Record<string, RecordFieldDType> = { ...dtypes, ...complexDtypes };
  return new RecordDtype(Object.fromEntries(rec.fields.map((f) => [f.name, all[f.dtype]!])));
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
  if (rec.byValue) {
    // One record, by value: a plain object with every field (a.get(i) gives one).
    if (typeof v !== "object" || v === null || v instanceof RecordArray || v instanceof DeviceNDArray || ArrayBuffer.isView(v))
      throw new CudaScriptError("CSR081", `${which} is one ${rec.name} record ${recordFieldsText(want)}, passed by value: pass an object with those fields (e.g. a.get(i) of a record array), got ${describeValue(v)}`);
    try {
      new RecordArray(dtypeOf(rec), 1).set(0, v as never);
    } catch (e) {
      throw new CudaScriptError("CSR081", `${which} is one ${rec.name} record ${recordFieldsText(want)}: ${(e as Error).message.replace(/^CSR\d+: set\(0, …\): /, "")}`);
    }
    return;
  }
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
  // A record array's rank: a host one's shape; a device one's (its bytes' rank: the last extent counts bytes).
  const rank = v instanceof RecordArray ? v.ndim : (v as DeviceNDArray).ndim;
  if (rank !== p.rank)
    throw new CudaScriptError(
      "CSR081",
      `${which} is Array${p.rank}D<${rec.name}>, but the record array is ${rank}-D: make it with cuda.recordArray(dtype, ${p.rank === 1 ? "n" : p.rank === 2 ? "[rows, cols]" : "[d0, d1, d2]"})`,
    );
}
