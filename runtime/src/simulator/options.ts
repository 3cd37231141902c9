/**
 * The simulator's options and ABI version, apart from the simulator itself: the runtime checks a
 * program's `configureSimulator(...)` where it is called, and compile-from-source keys its cache by the
 * ABI, without loading the simulator (its executor, worker threads and module cache load at the first
 * device operation; `require("cudascript")` stays fast).
 */
import { CudaScriptError } from "../errors";

export interface SimulatorOptions {
  /** Executors for large launches, the calling thread included (default: the number of cores; env CUDASCRIPT_WORKERS). */
  workers: number;
  /** Launches with fewer threads run in the calling thread (default 32768). */
  inProcessThreshold: number;
  /** Whether the calling thread also runs blocks while workers do (default true). */
  mainThreadExecutes: boolean;
  /** Run the sanitizer variant of every kernel (env CUDASCRIPT_SANITIZE=1). */
  sanitize: boolean;
  /** Stop any kernel still running at this absolute time (ms since epoch); Infinity for none (env CUDASCRIPT_DEADLINE). */
  deadline: number;
  /** How the deadline was set, for messages (env CUDASCRIPT_DEADLINE_LABEL). */
  deadlineLabel?: string;
  /** Where kernels' console.log output goes (default process.stdout). */
  print: (text: string) => void;
  /**
   * Privatize global arrays that a kernel only updates with result-unused atomics of one
   * commutative class, when a launch is spread over workers (default true; env CUDASCRIPT_PRIVATIZE=0).
   */
  privatize: boolean;
  /**
   * Kernels whose global atomics are not privatized (results used, exch/CAS/inc/dec, aliased or big
   * arrays) run on all workers and on one executor at first, then on whichever was faster
   * (default true; env CUDASCRIPT_ADAPTIVE=0 always uses all workers).
   */
  adaptive: boolean;
  /**
   * Device memory in bytes, like a GPU's: allocations past it fail with CSR016 instead of exhausting
   * the machine (default: half of the machine's memory; env CUDASCRIPT_SIM_MEMORY, e.g. 8GiB).
   */
  memoryLimit: number;
  /**
   * With the sanitizer: "warn" (default) reports a read of shared memory no thread of the block wrote
   * as a CSR023 warning and lets the run go on; "error" stops at it with the CSR023 fault
   * (env CUDASCRIPT_UNINITIALIZED_SHARED; docs/simulator.md, "Uninitialised shared memory").
   */
  uninitializedShared: "warn" | "error";
  /** Where sanitizer warnings are printed (default process.stderr). */
  warn: (text: string) => void;
}

const UNINITIALIZED_MODES: readonly string[] = ["warn", "error"];

/** Refuses option values the simulator does not know (CSR018), naming the ones it does. */
export function checkSimulatorOptions(opts: Partial<SimulatorOptions>, from = "configureSimulator({ uninitializedShared })"): void {
  const u = opts.uninitializedShared;
  if (u !== undefined && !UNINITIALIZED_MODES.includes(u))
    throw new CudaScriptError("CSR018", `${from} takes 'warn' or 'error', not '${String(u)}': 'warn' reports uninitialised shared reads and goes on, 'error' stops at the first one`);
}

/** The emitted-module contract this runtime implements (the compiler's SIM_ABI; a test keeps them equal). */
export const SIMULATOR_ABI = 4;
