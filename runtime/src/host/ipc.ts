/**
 * CUDA IPC: `deviceArray.getIpcHandle()` and `cuda.openIpcArray(handle, shape, dtype, { strides, offset })`
 * (Numba's `get_ipc_handle` / `open_ipc_array`). The handle is plain JSON (send it over any channel);
 * its `handle` field is the 64-byte CUipcMemHandle in hex, which Numba's `cuda.open_ipc_array` takes as
 * `bytes.fromhex(h["handle"])` on the same GPU. On the simulator the memory is shared through /dev/shm
 * (simulator/ipc.ts). docs/interop.md describes the format.
 */
import { CudaScriptError } from "../errors";
import type { DType, DTypeName, ComplexDType, ComplexDTypeName } from "../dtypes";
import { spanElements } from "../layout";
import { describeValue, DeviceNDArray, layoutStrides, normalizeShape, toDType, type Shape } from "./arrays";
import { TYPESTRS } from "./array-interface-export";
import { currentBackend } from "./device";
import type { IpcHandle } from "./ipc-export";

export { ipcHandleOf, type IpcHandle } from "./ipc-export";

/** `cuda.openIpcArray` options (Numba's `strides` and `offset` keywords). */
export interface OpenIpcArrayOptions {
  /** Byte strides (default: C order). */
  readonly strides?: readonly number[];
  /** Bytes from the allocation's start to element [0, …]; default: the handle's `offset` (0 for raw handle bytes). */
  readonly offset?: number;
}


/**
 * Numba's `cuda.open_ipc_array(handle, shape, dtype, strides, offset)`: a device array over another
 * process's memory. `handle` is what `getIpcHandle()` returned (or its JSON text), or the raw 64 bytes
 * of a CUipcMemHandle (a Uint8Array, or 128 hex digits) from another library. `free()` on the array
 * closes the handle (cuIpcCloseMemHandle); the exporter must keep its array alive until then.
 */
export function openIpcArray<N extends DTypeName | ComplexDTypeName>(handle: IpcHandle | string | Uint8Array, shape: Shape, dtype: DType<any> | ComplexDType<any> | N, options?: OpenIpcArrayOptions): DeviceNDArray<any> {
  const what = "cuda.openIpcArray";
  const h = parseHandle(handle, what);
  const s = normalizeShape(shape, what);
  const t = toDType(dtype as DType, what);
  if (options !== undefined && (typeof options !== "object" || options === null))
    throw new CudaScriptError("CSR063", `${what}: the options are { strides, offset }, got ${describeValue(options)}`);
  const strides = layoutStrides(s, t, options?.strides ? { strides: options.strides } : undefined, what);
  const offset = options?.offset ?? h.offset ?? 0;
  if (!Number.isSafeInteger(offset) || offset < 0 || offset % t.bytes !== 0)
    throw new CudaScriptError("CSR063", `${what}: offset is the bytes from the allocation's start to the first element, a whole number ≥ 0 and a multiple of the ${t.bytes}-byte item size of ${t.name}, got ${describeValue(offset)}`);
  const need = offset + spanElements(s, strides) * t.bytes;
  if (h.size !== undefined && need > h.size)
    throw new CudaScriptError("CSR063", `${what}: shape [${s.join(", ")}] of ${t.name}${options?.strides ? ` with strides [${options.strides.join(", ")}]` : ""} at offset ${offset} reaches ${need} bytes, but the shared allocation holds ${h.size}`);
  const backend = currentBackend();
  if (!backend.openIpc) throw new CudaScriptError("CSR064", `${what}: the ${backend.kind} backend (${backend.description}) cannot open memory of another process`);
  if (h.backend !== undefined && h.backend !== backend.kind)
    throw new CudaScriptError("CSR063", `${what}: this handle was made on the ${h.backend} backend, and this process runs on the ${backend.kind}: run both processes on the same backend (CUDASCRIPT_BACKEND=${h.backend})`);
  if (h.pid === process.pid)
    throw new CudaScriptError("CSR063", `${what}: this handle was made by this process; as with CUDA, an IPC handle opens only in another process: here, use the array itself (or a view of it)`);
  const opened = backend.openIpc(h.bytes, h.size ?? need);
  const token = {};
  const release = () => {
    closeWhenCollected.unregister(token);
    opened.close();
  };
  let array: DeviceNDArray<any>;
  try {
    array = new DeviceNDArray(s, t, undefined, { buffer: opened.buffer, byteOffset: offset, foreign: { owner: handle, release } }, strides);
  } catch (e) {
    opened.close();
    throw e;
  }
  closeWhenCollected.register(array, opened.close, token);
  return array;
}

/** An opened array dropped without free() closes its handle when collected (free() closes it at once). */
const closeWhenCollected = new FinalizationRegistry<() => void>((close) => {
  try {
    close();
  } catch {
    // the context may be gone at exit: nothing left to close
  }
});

interface ParsedHandle {
  readonly bytes: Uint8Array;
  readonly backend?: "gpu" | "simulator";
  readonly size?: number;
  readonly offset?: number;
  readonly pid?: number;
}

function parseHandle(handle: unknown, what: string): ParsedHandle {
  const bad = (why: string) =>
    new CudaScriptError("CSR063", `${what}: ${why}. Pass what getIpcHandle() returned in the other process (or its JSON text), or the 64 raw bytes of a CUDA IPC memory handle`);
  if (handle instanceof Uint8Array) {
    if (handle.length !== 64) throw bad(`the raw handle has ${handle.length} bytes, not 64`);
    return { bytes: handle };
  }
  if (typeof handle === "string") {
    if (/^[0-9a-f]{128}$/i.test(handle)) return { bytes: Uint8Array.from(Buffer.from(handle, "hex")) };
    try {
      return parseHandle(JSON.parse(handle), what);
    } catch (e) {
      if (e instanceof CudaScriptError) throw e;
      throw bad("the string is neither 128 hex digits nor the JSON of a handle");
    }
  }
  if (typeof handle !== "object" || handle === null) throw bad(`got ${describeValue(handle)}`);
  const h = handle as Partial<IpcHandle>;
  if (h.format !== "cudascript-ipc/1") throw bad(`the object is not a CudaScript IPC handle (its format is ${JSON.stringify(h.format) ?? "missing"}, not "cudascript-ipc/1")`);
  if (typeof h.handle !== "string" || !/^[0-9a-f]{128}$/i.test(h.handle)) throw bad("its handle field is not 128 hex digits");
  if (h.backend !== "gpu" && h.backend !== "simulator") throw bad(`its backend is ${JSON.stringify(h.backend)}, not "gpu" or "simulator"`);
  if (!Number.isSafeInteger(h.size) || h.size! <= 0 || !Number.isSafeInteger(h.offset) || h.offset! < 0) throw bad("its size and offset are not byte counts");
  return { bytes: Uint8Array.from(Buffer.from(h.handle, "hex")), backend: h.backend, size: h.size, offset: h.offset, pid: h.pid };
}
