/**
 * Results records for launches: when CUDASCRIPT_RESULTS_FILE is set (the VS Code results panel sets
 * it), every launch reports its configuration, timings and occupancy, and a kernel fault reports a
 * finding with its source location. Timing a launch synchronises its stream, so this only happens
 * when someone is listening.
 */
import type * as OccupancyCalculator from "@cudascript/compiler/occupancy";
import type { Backend, Dim3Tuple, KernelArtifact } from "../backend";
import { CudaScriptError } from "../errors";
import { PROTOCOL_VERSION } from "./protocol";
import { nextLaunchId, resultsEnabled, writeRecord } from "./writer";

/** Occupancy is reported for this arch on the simulator (no registers are known there). */
const SIMULATOR_REFERENCE_ARCH = "sm_80";

/** What the GPU backend can tell about the current device and a compiled kernel. */
interface GpuIntrospection {
  readonly device?: { readonly arch: string };
  kernelAttributes?(artifact: KernelArtifact, kernel: string): { numRegs: number } | undefined;
  kernelOccupancy?(artifact: KernelArtifact, kernel: string, threadsPerBlock: number, dynamicSharedBytes: number): { occupancy: number } | undefined;
}

let calculatorModule: typeof OccupancyCalculator | undefined;
/**
 * The occupancy calculator, loaded at the first reported launch: a program whose launches nobody
 * listens to does not pay for it at start-up. Its own entry point, because the compiler's main one
 * loads the front end (TypeScript, ~0.3–1 s and ~60 MB).
 */
function calculator(): typeof OccupancyCalculator {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (calculatorModule ??= require("@cudascript/compiler/occupancy") as typeof OccupancyCalculator);
}

let runWritten = false;

function writeRunRecord(backend: Backend): void {
  if (runWritten) return;
  runWritten = true;
  const device = backend.devices()[0];
  writeRecord({
    type: "run",
    version: PROTOCOL_VERSION,
    program: process.argv[1] ?? "",
    backend: backend.kind,
    device: backend.kind === "gpu" && device ? `${device.name} (${device.arch})` : backend.description,
    startedAt: new Date().toISOString(),
  });
}

export interface LaunchTiming {
  compileMs?: number;
  hostToDeviceMs?: number;
  /** Absent for a launch that failed. */
  kernelMs?: number;
  deviceToHostMs?: number;
}

/** Whether launches should be timed and reported. */
export function reportingLaunches(): boolean {
  return resultsEnabled();
}

export function reportLaunch(
  backend: Backend,
  artifact: KernelArtifact,
  kernel: string,
  config: { grid: Dim3Tuple; block: Dim3Tuple; sharedMem: number },
  timing: LaunchTiming,
  error?: unknown,
): number {
  writeRunRecord(backend);
  const entry = artifact.kernels[kernel];
  const id = nextLaunchId();
  const threads = config.block[0] * config.block[1] * config.block[2];
  // On a GPU: the selected device's arch and the compiled kernel's real register count; on the
  // simulator: the reference arch with registers unknown (never invented).
  const gpu = backend.kind === "gpu" ? (backend as Backend & GpuIntrospection) : undefined;
  const arch = gpu?.device?.arch ?? SIMULATOR_REFERENCE_ARCH;
  const registers = gpu?.kernelAttributes?.(artifact, kernel)?.numRegs;
  const calc = calculator();
  let occupancy: { arch: string; percent: number; limitedBy: string[]; registers?: number; source: "driver" | "calculator" } | undefined;
  try {
    // The GPU's own answer (the driver knows every architecture it runs); the calculator adds the
    // limiting factors where its table knows the arch, and is the only source on the simulator.
    // An arch neither knows gets no occupancy rather than a made-up 0 %.
    const fromDriver = gpu?.kernelOccupancy?.(artifact, kernel, threads, config.sharedMem);
    const known = archKnown(calc, arch);
    const o = known ? calc.computeOccupancy({ arch, threadsPerBlock: threads, registersPerThread: registers, staticSharedBytes: entry?.staticSharedBytes ?? 0, dynamicSharedBytes: config.sharedMem, launchBounds: entry?.launchBounds }) : undefined;
    const fraction = fromDriver?.occupancy ?? o?.occupancy;
    if (fraction !== undefined)
      occupancy = { arch, percent: Math.round(fraction * 1000) / 10, limitedBy: o ? [...o.limitedBy] : [], registers, source: fromDriver ? "driver" : "calculator" };
  } catch {
    occupancy = undefined;
  }
  writeRecord({
    type: "launch",
    id,
    kernel,
    file: entry?.file,
    line: entry?.line,
    grid: [...config.grid],
    block: [...config.block],
    sharedMemBytes: config.sharedMem,
    backend: backend.kind,
    timings: timing,
    occupancy,
    ...(error === undefined ? {} : { error: launchError(error) }),
  });
  return id;
}

/** What a failed launch's record says: the coded error's first line (a JavaScript error's message). */
function launchError(err: unknown): { code?: string; message: string } {
  const message = (err instanceof Error ? err.message : String(err)).split("\n")[0]!;
  return err instanceof CudaScriptError ? { code: err.code, message } : { message };
}

/** A kernel fault (out of bounds, race, …) as a finding with its TypeScript location. */
export function reportFault(backend: Backend, err: unknown): void {
  if (!resultsEnabled() || !(err instanceof CudaScriptError)) return;
  writeRunRecord(backend);
  const d = err.details;
  writeRecord({
    type: "finding",
    kind: d?.kind ?? err.code,
    message: err.message,
    kernel: d?.kernel,
    file: d?.file,
    line: d?.line,
    block: d?.block ? [...d.block] : undefined,
    thread: d?.thread ? [...d.thread] : undefined,
  });
}

function archKnown(calc: typeof OccupancyCalculator, arch: string): boolean {
  try {
    calc.parseArch(arch);
    return true;
  } catch {
    return false;
  }
}
