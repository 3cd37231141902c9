/**
 * `deviceArray.getIpcHandle()`: the export half of CUDA IPC (ipc.ts opens handles and describes the
 * format), apart so the array class can call it without a circle of imports.
 */
import { CudaScriptError } from "../errors";
import type { DeviceNDArray } from "./arrays";
import { TYPESTRS } from "./array-interface-export";
import { currentBackend } from "./device";

/** What `getIpcHandle()` returns: JSON-serialisable, for another process's `cuda.openIpcArray`. */
export interface IpcHandle {
  /** Marks the format (and its version). */
  readonly format: "cudascript-ipc/1";
  /** The backend that made it: a GPU handle opens on the GPU backend, a simulator handle on the simulator. */
  readonly backend: "gpu" | "simulator";
  /** The 64-byte IPC memory handle (CUipcMemHandle on a GPU) as 128 hex digits. */
  readonly handle: string;
  /** Bytes of the allocation the handle names. */
  readonly size: number;
  /** Bytes from the allocation's start to the array's first element (a view's offset). */
  readonly offset: number;
  /** The exported array's shape, dtype, NumPy typestr and byte strides: what `openIpcArray` needs. */
  readonly shape: readonly number[];
  readonly dtype: string;
  readonly typestr: string;
  readonly strides: readonly number[];
  /** The exporting process (opening a handle in it is CSR063, as with CUDA). */
  readonly pid: number;
}

/** `d.getIpcHandle()` (DeviceNDArray calls this). */
export function ipcHandleOf(a: DeviceNDArray): IpcHandle {
  a.checkAlive("getIpcHandle");
  const backend = currentBackend();
  if (!backend.exportIpc) throw new CudaScriptError("CSR064", `getIpcHandle: the ${backend.kind} backend (${backend.description}) cannot share memory between processes`);
  if (a.buffer.bytes === 0) throw new CudaScriptError("CSR063", "getIpcHandle: an empty array (no elements) has no device memory to share: send its shape instead");
  const bytes = backend.exportIpc(a.buffer);
  return {
    format: "cudascript-ipc/1",
    backend: backend.kind,
    handle: Buffer.from(bytes).toString("hex"),
    size: a.buffer.bytes,
    offset: a.byteOffset,
    shape: [...a.shape],
    dtype: a.dtype.name,
    typestr: TYPESTRS[a.dtype.name],
    strides: [...a.strides],
    pid: process.pid,
  };
}
