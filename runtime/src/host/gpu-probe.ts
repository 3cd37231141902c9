/**
 * The GPU probe behind the backend choice: loads the CUDA driver bindings lazily, probes once per process,
 * and words why the GPU cannot be used. Kept apart from device.ts so that the public declarations
 * (`chooseBackend`, `BackendChoice`, …) do not name the driver bindings' types: a user's type check of
 * `cudascript` then never reaches @cudascript/native-bindings or koffi.
 */
import type { CudaProbe } from "@cudascript/native-bindings/cuda";

type CudaBindings = typeof import("@cudascript/native-bindings/cuda");
function cudaBindings(): CudaBindings {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require("@cudascript/native-bindings/cuda") as CudaBindings;
}

let gpuProbe: CudaProbe | undefined;

/** Loads libcuda, runs cuInit and lists devices, once per process (never throws). */
export function probeGpu(): CudaProbe {
  if (gpuProbe) return gpuProbe;
  try {
    gpuProbe = cudaBindings().probeCuda();
  } catch (e) {
    // koffi missing or unloadable on this platform: no GPU.
    gpuProbe = { ok: false, code: "CSD001", message: `CSD001: the CUDA driver bindings could not be loaded (${(e as Error).message.split("\n")[0]}). CudaScript runs kernels in its CPU simulator instead.` };
  }
  return gpuProbe;
}

/** Forgets the cached probe (tests; after installing a driver). */
export function forgetGpuProbe(): void {
  gpuProbe = undefined;
}

type FailedProbe = Extract<CudaProbe, { ok: false }>;

/** One line: why the GPU cannot be used. */
export function shortReason(p: FailedProbe): string {
  const cause = p.cause as { attempts?: readonly { place: string; reason: string; failure: string }[]; code?: string; result?: number; description?: string } | undefined;
  switch (p.code) {
    case "CSD001": {
      // The library the user named (CUDASCRIPT_LIBCUDA), else the first that exists but did not load.
      const first =
        cause?.attempts?.find((a) => /CUDASCRIPT_LIBCUDA/.test(a.reason)) ?? cause?.attempts?.find((a) => !/file does not exist/.test(a.failure)) ?? cause?.attempts?.[0];
      if (!first) return p.message.split("\n")[0]!.replace(/^CSD001: /, "");
      const more = (cause?.attempts?.length ?? 1) - 1;
      return `${first.place}: ${first.failure.replace(/^could not be loaded: (Failed to load shared library: )?/, "")}${more > 0 ? ` (and ${more} more place${more === 1 ? "" : "s"})` : ""}`;
    }
    case "CSD002":
      return cause?.code ? `cuInit failed with ${cause.code}${cause.description ? `: ${cause.description.replace(/\.$/, "")}` : ""}` : p.message.split("\n")[0]!.replace(/^CSD002: /, "");
    default:
      return "the CUDA driver reports no device";
  }
}

/** Why there is no GPU, in the few words of the simulator notice ("no GPU driver"). */
export function noticeReason(p: FailedProbe): string {
  const code = (p.cause as { code?: string } | undefined)?.code;
  switch (p.code) {
    case "CSD001":
      return "no GPU driver";
    case "CSD002":
      return code ? `cuInit failed with ${code}` : "the GPU driver did not start";
    default:
      return "the CUDA driver reports no device";
  }
}

export function simulatorDescription(p: FailedProbe): string {
  switch (p.code) {
    case "CSD001":
      return "simulator (no CUDA driver found)";
    case "CSD002":
      return "simulator (CUDA driver found, but cuInit failed)";
    default:
      return "simulator (CUDA driver found, but no CUDA device)";
  }
}

