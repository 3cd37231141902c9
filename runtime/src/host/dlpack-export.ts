/**
 * `deviceArray.toDlpack()`: the export half of DLPack (dlpack.ts has the import half and describes the
 * capsule), apart so the array class can call it without a circle of imports.
 */
import { dlpackBindings as bindings } from "./dlpack-bindings";
import { DTYPE_NAMES, DTYPES, type DTypeRecord } from "@cudascript/compiler/dtypes";
import type { AnyDTypeName } from "../dtypes";
import { CudaScriptError } from "../errors";
import type { DeviceNDArray } from "./arrays";
import { currentBackend } from "./device";


/** DLPack's type code of a dtype (DLDataTypeCode): 0 int, 1 uint, 2 float, 5 complex, 6 bool; its bits are the dtype table's. */
function dlCode(d: DTypeRecord): number {
  return d.kind === "int" ? (d.signed ? 0 : 1) : d.kind === "float" ? 2 : d.kind === "complex" ? 5 : 6;
}

/** DLPack (code, bits) of a dtype. */
export function dlDtype(name: AnyDTypeName): readonly [code: number, bits: number] {
  const d = DTYPES[name];
  return [dlCode(d), d.bits];
}

/** The dtype of a DLPack (code, bits), if CudaScript has it. */
export const DTYPE_OF_DL: ReadonlyMap<string, AnyDTypeName> = new Map(DTYPE_NAMES.map((name) => [`${dlCode(DTYPES[name])}:${DTYPES[name].bits}`, name as AnyDTypeName]));

/** Arrays whose capsules are out: alive until their deleter runs. */
const exportedArrays = new Map<bigint, DeviceNDArray>();

/** `d.toDlpack()` (DeviceNDArray calls this). */
export function dlpackOf(a: DeviceNDArray): bigint {
  a.checkAlive("toDlpack");
  const backend = currentBackend();
  if (!backend.addressOf) throw new CudaScriptError("CSR064", `toDlpack: the ${backend.kind} backend (${backend.description}) has no device pointers to hand out`);
  const [code, bits] = dlDtype(a.dtype.name);
  const device = (a.buffer as { device?: unknown }).device;
  const address = bindings().makeManagedTensor(
    {
      data: backend.addressOf(a.buffer),
      deviceType: 2, // kDLCUDA
      deviceId: typeof device === "number" ? device : 0,
      code,
      bits,
      lanes: 1,
      shape: a.shape.map(BigInt),
      strides: a.elementStrides.map(BigInt),
      byteOffset: BigInt(a.byteOffset),
    },
    () => exportedArrays.delete(address),
  );
  exportedArrays.set(address, a);
  return address;
}

