/**
 * GPU-specific runtime errors (CSR040–CSR047) and the mapping from the driver bindings' errors
 * (CudaDriverError, CudaUsageError) to CudaScriptErrors. The codes are documented in docs/gpu.md.
 *
 * A GpuError is a CudaScriptError (same `name`, so `cudascript run` prints it as one line with the
 * host program's location) with the CUDA details attached: the CUresult name, number and
 * description, the driver call, the kernel, whether the CUDA context is still usable, the JIT log.
 */
import { CudaScriptError } from "../errors";
import type { CudaDriverError } from "@cudascript/native-bindings/cuda";

export const GpuErrorCodes = {
  /** A kernel failed on the GPU: a fault (illegal address, misaligned access, timeout, …) or a launch the driver refused. */
  KernelFailed: "CSR040",
  /** The driver's PTX JIT rejected the module (the JIT log is in the message). */
  JitFailed: "CSR041",
  /** The kernels could not be compiled for the GPU (NVRTC missing, no usable architecture, NVRTC rejected the code, no IR). */
  CompileFailed: "CSR042",
  /** Another CUDA driver call failed (out of memory, copies, streams, events, …). */
  DriverCall: "CSR043",
  /** The CUDA context was lost to an earlier sticky error: every further GPU call fails; restart the process. */
  ContextLost: "CSR044",
  /** Two array arguments of one launch share memory (the generated kernels take `__restrict__` pointers). */
  AliasedArguments: "CSR045",
  /** The runtime's argument packing disagrees with the kernel's PTX signature: a CudaScript bug. */
  AbiMismatch: "CSR046",
  /** A kernel uses a feature the GPU's compute capability lacks (compiler/src/cuda/kernel-uses.ts GPU_FEATURES), found before compiling. */
  FeatureNeedsNewerGpu: "CSR047",
} as const;

export type GpuErrorCode = (typeof GpuErrorCodes)[keyof typeof GpuErrorCodes];

/** The CUDA side of a GpuError: the fields of the bindings' CudaDriverError (a type-only import). */
export type CudaFailure = Pick<CudaDriverError, "code" | "result" | "description" | "call" | "contextUsable" | "kernel" | "kernelsSinceSync" | "jitLog">;

export class GpuError extends CudaScriptError {
  readonly cuda?: CudaFailure;
  constructor(code: GpuErrorCode | string, message: string, cuda?: CudaFailure) {
    super(code, message);
    this.name = "CudaScriptError";
    if (cuda) this.cuda = cuda;
  }
  /** Whether the CUDA context survived (undefined when no CUDA call failed). */
  get contextUsable(): boolean | undefined {
    return this.cuda?.contextUsable;
  }
}

/** The bindings' CudaDriverError, matched structurally (no value import of the bindings is needed). */
export type DriverErrorLike = CudaFailure & { readonly name: string; readonly message: string };

export function isDriverError(e: unknown): e is DriverErrorLike {
  return e instanceof Error && e.name === "CudaDriverError" && typeof (e as { result?: unknown }).result === "number";
}

export function isUsageError(e: unknown): e is Error & { code: string } {
  return e instanceof Error && e.name === "CudaUsageError";
}

export const CONTEXT_LOST_SENTENCE =
  "The CUDA context is no longer usable: every further GPU call in this process fails the same way, and every device array in it is lost; restart the process to use the GPU again.";

export const CONTEXT_USABLE_SENTENCE = "The CUDA context is still usable.";

export function cudaFailureOf(e: DriverErrorLike, symbolToName: (symbol: string) => string): CudaFailure {
  const kernels = e.kernelsSinceSync?.map(symbolToName);
  return {
    code: e.code,
    result: e.result,
    description: e.description,
    call: e.call,
    contextUsable: e.contextUsable,
    ...(e.kernel !== undefined ? { kernel: symbolToName(e.kernel) } : {}),
    ...(kernels ? { kernelsSinceSync: kernels } : {}),
    ...(e.jitLog !== undefined ? { jitLog: e.jitLog } : {}),
  };
}

/** "CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access was encountered" */
export function cudaErrorText(f: Pick<CudaFailure, "code" | "result" | "description">): string {
  return `${f.code} (${f.result}): ${f.description.replace(/\.$/, "")}`;
}

/** Which kernel(s) an asynchronous failure belongs to, in words. */
export function kernelWords(f: CudaFailure): string {
  if (f.kernel !== undefined) return `kernel '${f.kernel}'`;
  const list = f.kernelsSinceSync ?? [];
  if (list.length === 1) return `kernel '${list[0]}'`;
  if (list.length > 1) return `one of the kernels launched since the last synchronization (${list.map((k) => `'${k}'`).join(", ")})`;
  return "a kernel";
}
