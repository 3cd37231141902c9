// DLPack's C structs through koffi ("@cudascript/native-bindings/dlpack"): make a DLManagedTensor in
// native memory (a capsule for a native addon), read one, call its deleter. The layout is DLPack's
// dlpack.h (v0.8 / v1.x unversioned DLManagedTensor):
//
//   typedef struct { int32_t device_type; int32_t device_id; } DLDevice;
//   typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } DLDataType;
//   typedef struct { void *data; DLDevice device; int32_t ndim; DLDataType dtype;
//                    int64_t *shape; int64_t *strides; uint64_t byte_offset; } DLTensor;
//   typedef struct DLManagedTensor { DLTensor dl_tensor; void *manager_ctx;
//                                    void (*deleter)(struct DLManagedTensor *self); } DLManagedTensor;
import { koffi, type TypeObject } from "./koffi";

/** DLDeviceType values CudaScript produces or reads. */
export const DL_DEVICE = { CPU: 1, CUDA: 2, CUDA_HOST: 3, CUDA_MANAGED: 13 } as const;
/** DLDataTypeCode values. */
export const DL_CODE = { INT: 0, UINT: 1, FLOAT: 2, BFLOAT: 4, COMPLEX: 5, BOOL: 6 } as const;

/** A DLTensor's fields, with its shape and strides (in elements, as DLPack counts them) read out. */
export interface DlTensor {
  readonly data: bigint;
  readonly deviceType: number;
  readonly deviceId: number;
  readonly code: number;
  readonly bits: number;
  readonly lanes: number;
  readonly shape: readonly bigint[];
  /** null: compact row-major. */
  readonly strides: readonly bigint[] | null;
  readonly byteOffset: bigint;
}

let types: { managed: TypeObject; deleter: TypeObject; deleterPointer: TypeObject } | undefined;
function dlTypes() {
  if (types) return types;
  // Anonymous names would do, but koffi.proto needs a named struct type to point at: prefix ours.
  const device = koffi.struct({ device_type: "int32_t", device_id: "int32_t" });
  const dtype = koffi.struct({ code: "uint8_t", bits: "uint8_t", lanes: "uint16_t" });
  const tensor = koffi.struct({ data: "uint64_t", device, ndim: "int32_t", dtype, shape: "void *", strides: "void *", byte_offset: "uint64_t" });
  const deleter = koffi.proto("void cudascript_DLManagedTensorDeleter(void *self)");
  const deleterPointer = koffi.pointer(deleter);
  const managed = koffi.struct({ dl_tensor: tensor, manager_ctx: "void *", deleter: deleterPointer });
  return (types = { managed, deleter, deleterPointer });
}

/** sizeof(DLManagedTensor) on this platform (64 on 64-bit systems). */
export function managedTensorSize(): number {
  return koffi.sizeof(dlTypes().managed);
}

/** Native memory of one capsule made by makeManagedTensor, freed by its deleter. */
interface Made {
  readonly tensor: unknown;
  readonly shape: unknown;
  readonly strides: unknown;
  readonly callback: unknown;
}
const made = new Map<bigint, Made>();

/**
 * A DLManagedTensor in native memory describing `t`; returns its address. Its deleter frees that
 * memory and then calls `onDelete` — at most once: a second call of the deleter does nothing.
 */
export function makeManagedTensor(t: DlTensor, onDelete: () => void): bigint {
  const { managed, deleterPointer } = dlTypes();
  const ndim = t.shape.length;
  const shape = koffi.alloc("int64_t", Math.max(1, ndim));
  koffi.encode(shape, "int64_t", [...t.shape], ndim);
  const strides = t.strides ? koffi.alloc("int64_t", Math.max(1, ndim)) : null;
  if (strides) koffi.encode(strides, "int64_t", [...t.strides!], ndim);
  const tensor = koffi.alloc(managed, 1);
  const address = koffi.address(tensor);
  const callback = koffi.register((self: unknown) => {
    const own = made.get(typeof self === "bigint" ? self : koffi.address(self));
    if (!own) return; // deleted already (or not ours): nothing to free twice
    made.delete(address);
    koffi.free(own.shape);
    if (own.strides) koffi.free(own.strides);
    koffi.free(own.tensor);
    // Unregistering a callback while it runs is not safe: after it returns.
    setImmediate(() => koffi.unregister(own.callback as bigint));
    onDelete();
  }, deleterPointer);
  koffi.encode(tensor, managed, {
    dl_tensor: {
      data: t.data,
      device: { device_type: t.deviceType, device_id: t.deviceId },
      ndim,
      dtype: { code: t.code, bits: t.bits, lanes: t.lanes },
      shape,
      strides,
      byte_offset: t.byteOffset,
    },
    manager_ctx: null,
    deleter: callback,
  });
  made.set(address, { tensor, shape, strides, callback });
  return address;
}

/** Reads the DLManagedTensor at `address` (the caller vouches that it is one). */
export function readManagedTensor(address: bigint): DlTensor & { readonly hasDeleter: boolean } {
  const { managed } = dlTypes();
  const m = koffi.decode(address, managed) as {
    dl_tensor: { data: bigint | number; device: { device_type: number; device_id: number }; ndim: number; dtype: { code: number; bits: number; lanes: number }; shape: unknown; strides: unknown; byte_offset: bigint | number };
    deleter: unknown;
  };
  const d = m.dl_tensor;
  const ndim = d.ndim;
  const read = (p: unknown): bigint[] | null => (p === null || ndim <= 0 ? null : [...(koffi.decode(p, "int64_t", ndim) as BigInt64Array)]);
  return {
    data: BigInt(d.data),
    deviceType: d.device.device_type,
    deviceId: d.device.device_id,
    code: d.dtype.code,
    bits: d.dtype.bits,
    lanes: d.dtype.lanes,
    shape: ndim > 0 ? (read(d.shape) ?? []) : [],
    strides: read(d.strides),
    byteOffset: BigInt(d.byte_offset),
    hasDeleter: m.deleter !== null && m.deleter !== 0n,
  };
}

/** Calls the deleter of the DLManagedTensor at `address` (if it has one), as its consumer must once. */
export function callDeleter(address: bigint): void {
  const { managed, deleter } = dlTypes();
  const m = koffi.decode(address, managed) as { deleter: unknown };
  if (m.deleter === null || m.deleter === 0n) return;
  koffi.call(m.deleter, deleter, address);
}
