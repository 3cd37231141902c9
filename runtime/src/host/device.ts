/**
 * Which backend runs kernels: CUDASCRIPT_BACKEND = auto (default) | gpu | simulator. `auto` uses the
 * GPU when a CUDA driver and a device are present (and this build has the GPU backend), otherwise the
 * simulator, and `describeBackendChoice` says why.
 */
import * as fs from "node:fs";
import type { Backend } from "../backend";
import { CudaScriptError } from "../errors";
import { SimulatorBackend, type SimulatorOptions } from "../simulator/backend";

export type BackendRequest = "auto" | "gpu" | "simulator";

export interface DriverProbe {
  readonly found: boolean;
  /** Why not, or which library. */
  readonly detail: string;
}

let probe: DriverProbe | undefined;

/** Looks for the CUDA driver library (libcuda) without initialising anything. */
export function probeCudaDriver(): DriverProbe {
  if (probe) return probe;
  const names = process.platform === "win32" ? ["nvcuda.dll"] : ["libcuda.so.1", "libcuda.so"];
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const koffi = require("koffi") as { load(name: string): unknown };
    for (const n of names) {
      try {
        koffi.load(n);
        return (probe = { found: true, detail: n });
      } catch (e) {
        probe = { found: false, detail: `${n}: ${(e as Error).message.replace(/^Failed to load shared library: /, "")}` };
      }
    }
    return probe!;
  } catch {
    // koffi unavailable: look in the usual places.
    const dirs = ["/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/cuda/lib64", "/usr/lib/wsl/lib"];
    for (const d of dirs) for (const n of names) if (fs.existsSync(`${d}/${n}`)) return (probe = { found: true, detail: `${d}/${n}` });
    return (probe = { found: false, detail: `${names[0]} not found` });
  }
}

export interface BackendChoice {
  readonly kind: "gpu" | "simulator";
  /** e.g. "simulator (no CUDA driver found)". */
  readonly description: string;
}

/** Decides what a request resolves to; throws CSR015 when `gpu` is requested and unavailable. */
export function chooseBackend(request: BackendRequest): BackendChoice {
  if (request === "simulator") return { kind: "simulator", description: "simulator" };
  const p = probeCudaDriver();
  if (request === "gpu") {
    if (!p.found)
      throw new CudaScriptError(
        "CSR015",
        `the GPU backend needs the NVIDIA CUDA driver, and no CUDA driver was found (${p.detail}). Install the NVIDIA driver on a machine with a GPU, or run on the simulator (--backend simulator).`,
      );
    throw new CudaScriptError("CSR015", `a CUDA driver was found (${p.detail}), but this build of CudaScript has no GPU backend yet: run on the simulator (--backend simulator).`);
  }
  if (!p.found) return { kind: "simulator", description: "simulator (no CUDA driver found)" };
  return { kind: "simulator", description: "simulator (CUDA driver found, but this build has no GPU backend yet)" };
}

let current: Backend | undefined;
let pendingSimOptions: Partial<SimulatorOptions> = {};

export function currentBackend(): Backend {
  if (!current) {
    const req = (process.env.CUDASCRIPT_BACKEND ?? "auto") as BackendRequest;
    if (req !== "auto" && req !== "gpu" && req !== "simulator")
      throw new CudaScriptError("CSR015", `CUDASCRIPT_BACKEND=${req} is not a backend: use auto, gpu or simulator`);
    const choice = chooseBackend(req);
    current = new SimulatorBackend(choice.description, pendingSimOptions);
  }
  return current;
}

/** Replaces the backend (tests; the GPU backend will register here). */
export function setBackend(b: Backend): void {
  current?.dispose();
  current = b;
}

/** Options of the simulator backend (workers, sanitizer, …); applies now or when it starts. */
export function configureSimulator(opts: Partial<SimulatorOptions>): void {
  pendingSimOptions = { ...pendingSimOptions, ...opts };
  if (current instanceof SimulatorBackend) current.configure(opts);
}

export function simulatorOptions(): Readonly<SimulatorOptions> | undefined {
  const b = currentBackend();
  return b instanceof SimulatorBackend ? b.options : undefined;
}
