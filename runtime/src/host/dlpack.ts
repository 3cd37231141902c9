/**
 * DLPack: `deviceArray.toDlpack()` and `cuda.fromDlpack(capsule)` over DLPack's `DLManagedTensor`
 * (native-bindings/dlpack: koffi structs), for native addons that speak DLPack. A capsule is the
 * address (bigint) of a DLManagedTensor; whoever consumes it calls its deleter exactly once.
 *
 * - toDlpack: the tensor describes the array (data = its allocation's address, byte_offset = the
 *   view's offset, strides in elements); the array stays alive until the deleter runs.
 * - fromDlpack: a device array viewing the tensor's memory without copying; its free() — or its
 *   garbage collection — calls the deleter, once. A capsule consumed and not yet deleted is refused.
 *
 * On the simulator the pointer is a simulated device address (simulator/address-space.ts): it means
 * something to CudaScript in this process (fromDlpack, __cuda_array_interface__), not to native code.
 */
import { complexDtypes, dtypes, type AnyDTypeName, type DType } from "../dtypes";
import { CudaScriptError } from "../errors";
import { rowMajorStrides } from "../layout";
import { describeValue, type DeviceNDArray } from "./arrays";
import { foreignArray } from "./array-interface";
import { currentBackend } from "./device";
import { DTYPE_OF_DL } from "./dlpack-export";
import { dlpackBindings as bindings } from "./dlpack-bindings";

export { dlpackOf } from "./dlpack-export";

/** Capsules this process consumed whose deleter has not run yet. */
const consumed = new Set<bigint>();
/** An array dropped without free() calls its capsule's deleter when collected. */
const deleteWhenCollected = new FinalizationRegistry<() => void>((release) => release());

/**
 * `cuda.fromDlpack(capsule)`: a device array viewing a DLManagedTensor's memory (kDLCUDA or
 * kDLCUDAManaged) without copying. `free()` on it (or its garbage collection) calls the tensor's
 * deleter, exactly once. CSR065 for anything that is not a live capsule of a supported tensor.
 */
export function fromDlpack(capsule: bigint | number): DeviceNDArray<any> {
  const what = "cuda.fromDlpack";
  const bad = (why: string) => new CudaScriptError("CSR065", `${what}: ${why}`);
  if (!(typeof capsule === "bigint" || (typeof capsule === "number" && Number.isSafeInteger(capsule))) || BigInt(capsule) <= 0n)
    throw bad(`a capsule is the address of a DLManagedTensor (a bigint, as toDlpack() or a native addon returns it), got ${describeValue(capsule)}`);
  const address = BigInt(capsule);
  if (consumed.has(address)) throw bad(`this capsule was consumed already (by an array not yet freed): a DLPack capsule is consumed once; share the array itself instead`);
  const b = bindings();
  const t = b.readManagedTensor(address);
  const backend = currentBackend();
  if (t.deviceType !== 2 && !(t.deviceType === 13 && backend.kind === "gpu"))
    throw bad(
      t.deviceType === 1 || t.deviceType === 3
        ? "the tensor is in host memory (kDLCPU / kDLCUDAHost): copy its data to the device with cuda.toDevice"
        : `the tensor's device type is ${t.deviceType}; CudaScript views CUDA device memory (kDLCUDA = 2${backend.kind === "gpu" ? ", kDLCUDAManaged = 13" : ""})`,
    );
  if (t.lanes !== 1) throw bad(`the tensor's dtype has ${t.lanes} lanes (a vector type); CudaScript's arrays hold scalars (1 lane)`);
  const name = DTYPE_OF_DL.get(`${t.code}:${t.bits}`);
  if (!name) throw bad(`the tensor's dtype (code ${t.code}, ${t.bits} bits) is not one CudaScript has (int/uint 8–64, float 16/32/64, complex 64/128, bool 8)`);
  const dtype = ((dtypes as Record<string, DType>)[name] ?? (complexDtypes as Record<string, unknown>)[name]) as DType;
  if (t.shape.length < 1 || t.shape.length > 3) throw bad(`CudaScript's device arrays have 1 to 3 dimensions, the tensor has ${t.shape.length}`);
  if (t.shape.some((n) => n < 0n || n > BigInt(Number.MAX_SAFE_INTEGER))) throw bad(`the tensor's shape [${t.shape.join(", ")}] has a negative extent`);
  const shape = t.shape.map(Number);
  if (t.strides && t.strides.some((s, i) => s <= 0n && shape[i]! > 1)) throw bad(`the tensor's strides [${t.strides.join(", ")}] are not all positive: reverse or copy it in the producing library first`);
  const elementStrides = t.strides ? t.strides.map((s, i) => (s <= 0n ? rowMajorStrides(shape)[i]! : Number(s))) : rowMajorStrides(shape);
  const pointer = t.data + t.byteOffset;
  if (pointer % BigInt(dtype.bytes) !== 0n) throw bad(`the tensor's data + byte_offset (0x${pointer.toString(16)}) is not aligned to its ${dtype.bytes}-byte items`);
  let done = false;
  const token = {};
  const release = () => {
    if (done) return;
    done = true;
    deleteWhenCollected.unregister(token);
    consumed.delete(address);
    if (t.hasDeleter) b.callDeleter(address);
  };
  const array = foreignArray({ shape, dtype, pointer, elementStrides }, { owner: capsule, release }, what);
  consumed.add(address);
  deleteWhenCollected.register(array, release, token);
  return array;
}
