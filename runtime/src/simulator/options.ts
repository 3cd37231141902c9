/**
 * The simulator's options and ABI version, apart from the simulator itself: the runtime checks a
 * program's `configureSimulator(...)` where it is called, and compile-from-source keys its cache by the
 * ABI, without loading the simulator (its executor, worker threads and module cache load at the first
 * device operation; `require("cudascript")` stays fast).
 */
import { CudaScriptError } from "../errors";
import { checkUninitializedMemory, type UninitializedMemory } from "./poison";

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
   * With the sanitizer, an undefined value (read from shared memory no thread of the block wrote) used
   * where it matters — a global store, a condition, an index, an atomic, a print: "error" (default)
   * stops at the use with CSR068; "warn" reports it as a warning once per use site and goes on
   * (env CUDASCRIPT_UNINITIALIZED_SHARED; docs/simulator.md, "Undefined values").
   */
  uninitializedShared: "warn" | "error";
  /**
   * What shared memory holds before a thread of the block writes it: "zero" (default) or "poison" —
   * NaN for floats, 0xCD bytes for integers — so a plain run shows what a GPU could (simulator/poison.ts;
   * env CUDASCRIPT_UNINITIALIZED).
   */
  uninitialized: UninitializedMemory;
  /** Where sanitizer warnings are printed (default process.stderr). */
  warn: (text: string) => void;
}

const UNINITIALIZED_MODES: readonly string[] = ["warn", "error"];

/** Refuses option values the simulator does not know (CSR018), naming the ones it does. */
export function checkSimulatorOptions(opts: Partial<SimulatorOptions>, from = "configureSimulator({ uninitializedShared })"): void {
  const u = opts.uninitializedShared;
  if (u !== undefined && !UNINITIALIZED_MODES.includes(u))
    throw new CudaScriptError("CSR018", `${from} takes 'warn' or 'error', not '${String(u)}': 'error' stops where an undefined value (read from shared memory no thread wrote) is used, 'warn' reports it and goes on`);
  checkUninitializedMemory(opts.uninitialized, "configureSimulator({ uninitialized })");
}

/** The emitted-module contract this runtime implements (the compiler's SIM_ABI; a test keeps them equal). */
export const SIMULATOR_ABI = 5;
