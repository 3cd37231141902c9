/**
 * The GPU backend's share of interop (docs/interop.md): the errors of IPC export and import, and
 * synchronising a stream known only by its raw handle (a foreign array's `__cuda_array_interface__`).
 */
import type { CudaContext } from "@cudascript/native-bindings/cuda";
import { CudaScriptError } from "../errors";

/** cuStreamSynchronize on a raw CUstream another library made (the caller maps driver errors). */
export function synchronizeRawStream(ctx: CudaContext, handle: bigint): void {
  ctx.makeCurrent();
  ctx.call("cuStreamSynchronize", ctx.driver.api.cuStreamSynchronize(handle));
}

export function ipcExportRefused(why: "foreign" | "empty"): CudaScriptError {
  return new CudaScriptError(
    "CSR063",
    why === "foreign"
      ? "getIpcHandle: this array views memory another library or process owns (cuda.fromCudaArrayInterface, cuda.fromDlpack, cuda.openIpcArray): get the IPC handle from its owner"
      : "getIpcHandle: an empty array (no elements) has no device memory to share: send its shape instead",
  );
}

/** A driver error of cuIpcOpenMemHandle as CSR063, keeping the driver's words. */
export function ipcOpenFailed(e: unknown): unknown {
  if (!(e instanceof Error)) return e;
  return new CudaScriptError(
    "CSR063",
    `cuda.openIpcArray: the driver could not open the handle (${e.message}). An IPC handle opens in another process on the same machine while its exporter keeps the array alive, and not in the process that made it: there, use the array itself`,
  );
}
