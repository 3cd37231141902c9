/**
 * Which backend runs kernels: CUDASCRIPT_BACKEND = auto (default) | gpu | simulator.
 *
 * - `auto` uses the GPU when the CUDA driver library loads, cuInit succeeds and a device exists
 *   (`probeCuda()` from @cudascript/native-bindings), otherwise the simulator; `chooseBackend` says
 *   why in `description` ("simulator (no CUDA driver found)") and `reason` (one line) / `detail`
 *   (the full explanation with the fix).
 * - `gpu` fails with CSR015 (and the reason) when there is no usable GPU.
 * - `simulator` never touches the driver.
 *
 * `cudascript run` decides in the parent process, prints the choice and the reason once, and passes
 * the decision to the program's process. A program started otherwise decides on first use; when a
 * CUDA driver is installed but unusable it prints the reason once on stderr (a machine without any
 * NVIDIA driver silently uses the simulator: `cuda.backend` says which).
 */
import { checkedPrintfBufferSize } from "../gpu/printf";
import type { Backend } from "../backend";
import { CudaScriptError } from "../errors";
import { noticeReason, probeGpu, shortReason, simulatorDescription } from "./gpu-probe";
import type { SimulatorBackend } from "../simulator/backend";
import { checkSimulatorOptions, type SimulatorOptions } from "../simulator/options";

/** The simulator (executor, module cache, worker threads) loads at the first device operation, not with the package. */
function simulatorBackendClass(): typeof SimulatorBackend {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require("../simulator/backend") as typeof import("../simulator/backend")).SimulatorBackend;
}

/** `b` as the simulator, when it is one (a simulator backend exists only once its module is loaded). */
function asSimulator(b: Backend | undefined): SimulatorBackend | undefined {
  if (b?.kind !== "simulator") return undefined;
  const cls = simulatorBackendClass();
  return b instanceof cls ? b : undefined;
}

export type BackendRequest = "auto" | "gpu" | "simulator";

export interface DriverProbe {
  readonly found: boolean;
  /** Why not, or which library. */
  readonly detail: string;
}

/** Whether the CUDA driver library loads (without judging devices): kept for tools; see probeGpu. */
export function probeCudaDriver(): DriverProbe {
  const p = probeGpu();
  if (p.ok || p.driver) return { found: true, detail: (p.ok ? p.driver : p.driver!).info.path };
  return { found: false, detail: shortReason(p) };
}

export interface BackendChoice {
  readonly kind: "gpu" | "simulator";
  /** e.g. "simulator (no CUDA driver found)", "GPU 0: NVIDIA A100 (sm_80)". */
  readonly description: string;
  /** When `auto` fell back to the simulator: why, in one line. */
  readonly reason?: string;
  /** The full explanation with the fix (multi-line), when the GPU cannot be used. */
  readonly detail?: string;
  /** When `auto` fell back to the simulator: why, in the few words of the simulator notice. */
  readonly notice?: string;
}

/** Decides what a request resolves to; throws CSR015 when `gpu` is requested and unavailable. */
export function chooseBackend(request: BackendRequest): BackendChoice {
  if (request === "simulator") return { kind: "simulator", description: "simulator" };
  const p = probeGpu();
  if (p.ok) {
    const wanted = process.env.CUDASCRIPT_DEVICE;
    const d = (wanted && /^\d+$/.test(wanted) ? p.devices[Number(wanted)] : undefined) ?? p.devices[0]!;
    const double = p.driver.info.isTestDouble ? " [libcuda TEST DOUBLE]" : "";
    return { kind: "gpu", description: `GPU ${d.ordinal}: ${d.name} (${d.arch}, CUDA ${p.driverVersion.major}.${p.driverVersion.minor})${double}` };
  }
  const reason = shortReason(p);
  if (request === "gpu") {
    const what =
      p.code === "CSD001"
        ? `no CUDA driver was found (${reason})`
        : p.code === "CSD002"
          ? `the CUDA driver was found, but ${reason}`
          : "the CUDA driver was found, but it reports no CUDA device";
    throw new CudaScriptError(
      "CSR015",
      `the GPU backend needs an NVIDIA GPU and its CUDA driver, and ${what}: fix that (see below, or run 'npx cudascript doctor'), or run on the simulator (--backend simulator).\n${withoutSimulatorNote(p.message)}`,
    );
  }
  return { kind: "simulator", description: simulatorDescription(p), reason, detail: p.message, notice: noticeReason(p) };
}

/** The probe's explanation without its "the simulator is used instead" sentence (for when it is not). */
export function withoutSimulatorNote(message: string): string {
  return message
    .replace(/^CSD00\d: /, "")
    .split("\n")
    .filter((line) => !/^CudaScript runs kernels in its CPU simulator instead/.test(line))
    .join("\n");
}

let current: Backend | undefined;
let currentChoice: BackendChoice | undefined;
let pendingSimOptions: Partial<SimulatorOptions> = {};
let pendingGpuOptions: GpuOptions = {};
let explained = false;

/**
 * The simulator notice: the one line that says kernels run on the simulator because `auto` found no
 * usable GPU ("cudascript: running on the simulator: no GPU driver — cudascript doctor"). Its only
 * source: every runner (node, tsx, Vitest) prints it through currentBackend, `cudascript run` in its
 * own process; once per process, on stderr. Nothing when the simulator was asked for.
 */
export function noteSimulatorFallback(choice: BackendChoice): void {
  if (explained || !choice.notice) return;
  explained = true;
  process.stderr.write(`cudascript: running on the simulator: ${choice.notice} — cudascript doctor\n`);
}

export function currentBackend(): Backend {
  if (!current) {
    const req = (process.env.CUDASCRIPT_BACKEND || "auto") as BackendRequest;
    if (req !== "auto" && req !== "gpu" && req !== "simulator")
      throw new CudaScriptError("CSR015", `CUDASCRIPT_BACKEND=${req} is not a backend: use auto, gpu or simulator`);
    const choice = chooseBackend(req);
    // chooseBackend decided from this same (cached) probe.
    const probe = req === "simulator" ? undefined : probeGpu();
    if (choice.kind === "gpu" && probe?.ok) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { GpuBackend } = require("../gpu/backend") as typeof import("../gpu/backend");
      current = new GpuBackend({ probe, ...pendingGpuOptions });
    } else {
      current = new (simulatorBackendClass())(choice.description, pendingSimOptions);
      if (process.env.CUDASCRIPT_RUN !== "1") noteSimulatorFallback(choice); // cudascript run did in its own process

    }
    currentChoice = choice;
  }
  return current;
}

/** The decision behind the current backend (after it was created), e.g. for tools that show it. */
export function backendChoice(): BackendChoice | undefined {
  return currentChoice;
}

/** Replaces the backend, disposing the previous one (tests, tools). */
export function setBackend(b: Backend): void {
  current?.dispose();
  current = b;
  currentChoice = { kind: b.kind, description: b.description };
}

/**
 * Makes `b` the current backend without disposing the previous one, which is returned (undefined if
 * none was created yet): lets one process run the same program on two backends (the real-GPU suite
 * compares the GPU with the simulator). Arrays, streams and events belong to the backend that made them.
 */
export function useBackend(b: Backend | undefined): Backend | undefined {
  const previous = current;
  current = b;
  currentChoice = b ? { kind: b.kind, description: b.description } : undefined;
  return previous;
}

/** Options of the simulator backend (workers, sanitizer, …); applies now or when it starts. */
export function configureSimulator(opts: Partial<SimulatorOptions>): void {
  checkSimulatorOptions(opts); // now, not when the simulator starts: the mistake is reported where it is made
  pendingSimOptions = { ...pendingSimOptions, ...opts };
  asSimulator(current)?.configure(opts);
}

/** Options of the GPU backend that a program may set (ignored on the simulator). */
export interface GpuOptions {
  /**
   * Bytes of device printf FIFO per GPU (kernel console.log output between two synchronizations;
   * default CUDASCRIPT_PRINTF_BUFFER, else CUDA's 1 MiB). Set it before the first launch of a kernel
   * that prints: CUDA fixes the size then (CSR049 afterwards).
   */
  readonly printfBufferSize?: number;
}

/** Options of the GPU backend; apply now or when it starts. */
export function configureGpu(opts: GpuOptions): void {
  if (opts.printfBufferSize !== undefined) checkedPrintfBufferSize(opts.printfBufferSize, `printfBufferSize: ${String(opts.printfBufferSize)}`);
  if (current?.kind === "gpu" && opts.printfBufferSize !== undefined) {
    (current as unknown as { setPrintfBufferSize(bytes: number): void }).setPrintfBufferSize(opts.printfBufferSize);
  }
  pendingGpuOptions = { ...pendingGpuOptions, ...opts };
}

export function simulatorOptions(): Readonly<SimulatorOptions> | undefined {
  const b = currentBackend();
  return asSimulator(b)?.options;
}

