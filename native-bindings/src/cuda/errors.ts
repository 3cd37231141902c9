// Errors of the high-level CUDA API.
//  - CudaDriverError: a driver call returned a CUresult other than CUDA_SUCCESS.
//  - CudaUsageError: a mistake caught before any driver call (double free, wrong argument sizes,
//    a released context...). Codes CSD004-CSD008; CSD001-CSD003 are the "no GPU" reasons (probe).
import type { CudaDriver } from "./driver";
import { cuResultDescription, cuResultName, isStickyCuResult } from "./results";

export interface CudaDriverErrorDetails {
  /** The kernel being launched, or the one whose failure surfaced at a synchronization. */
  kernel?: string;
  /** Kernels launched in this context since it last synchronized (candidates for an async fault). */
  kernelsSinceSync?: readonly string[];
  /** The PTX JIT's error log (cuModuleLoadDataEx). */
  jitLog?: string;
  /** Extra sentence(s) for the message. */
  note?: string;
}

export class CudaDriverError extends Error {
  /** The CUresult name, e.g. "CUDA_ERROR_ILLEGAL_ADDRESS". */
  readonly code: string;
  /** The CUresult number, e.g. 700. */
  readonly result: number;
  /** The driver's description (cuGetErrorString), e.g. "an illegal memory access was encountered". */
  readonly description: string;
  /** The driver function that failed, e.g. "cuCtxSynchronize". */
  readonly call: string;
  /**
   * False for "sticky" errors (illegal address, misaligned address, launch failure, illegal
   * instruction, hardware stack error, launch timeout, device assert...): the CUDA context is
   * corrupted, every further call in it fails the same way, and the process must be restarted to
   * use this GPU again.
   */
  readonly contextUsable: boolean;
  readonly kernel?: string;
  readonly kernelsSinceSync?: readonly string[];
  readonly jitLog?: string;

  constructor(call: string, result: number, names: { code: string; description: string }, details: CudaDriverErrorDetails = {}) {
    const contextUsable = !isStickyCuResult(result);
    const what = details.kernel ? `${call} (kernel ${details.kernel})` : call;
    const lines = [`${what} failed: ${names.code} (${result}): ${names.description}.`];
    if (details.note) lines.push(details.note);
    if (!contextUsable) {
      const suspects = details.kernelsSinceSync?.length ? ` Kernels launched since the last synchronization: ${details.kernelsSinceSync.join(", ")}.` : "";
      lines.push(
        `The CUDA context is no longer usable: every further CUDA call in this process fails with the same error; restart the process to use the GPU again.${suspects}`,
      );
    }
    if (details.jitLog) lines.push(`PTX JIT log:\n${details.jitLog}`);
    super(lines.join("\n"));
    this.name = "CudaDriverError";
    this.code = names.code;
    this.result = result;
    this.description = names.description;
    this.call = call;
    this.contextUsable = contextUsable;
    if (details.kernel !== undefined) this.kernel = details.kernel;
    if (details.kernelsSinceSync !== undefined) this.kernelsSinceSync = details.kernelsSinceSync;
    if (details.jitLog !== undefined) this.jitLog = details.jitLog;
  }

  /** Builds the error for `result`, asking the driver for its name and description. */
  static from(driver: CudaDriver | undefined, call: string, result: number, details?: CudaDriverErrorDetails): CudaDriverError {
    const code = driver ? driver.errorName(result) : (cuResultName(result) ?? `CUresult ${result}`);
    const description = driver ? driver.errorString(result) : (cuResultDescription(result) ?? "unknown CUDA error");
    return new CudaDriverError(call, result, { code, description }, details);
  }
}

export type CudaUsageCode =
  /** Freeing a device pointer twice, or one this context did not allocate. */
  | "CSD004"
  /** Using a context (or a module, stream, event, pinned buffer) after it was released. */
  | "CSD005"
  /** An invalid argument: sizes, dimensions, argument buffers that do not match the kernel. */
  | "CSD006"
  /** Pinned memory cannot be exposed as an ArrayBuffer in this JavaScript runtime. */
  | "CSD007"
  /** Registering host memory that is registered already, or unregistering memory that is not. */
  | "CSD008";

/** A mistake caught by the bindings; no driver call was made for it. */
export class CudaUsageError extends Error {
  constructor(
    readonly code: CudaUsageCode,
    message: string,
  ) {
    super(`${code}: ${message}`);
    this.name = "CudaUsageError";
  }
}
