/**
 * Runs a launch's blocks: in the calling thread for small launches, or spread over worker threads
 * that share device memory (SharedArrayBuffer). Blocks are handed out in chunks from a shared counter,
 * so uneven blocks (Mandelbrot) balance. The calling thread blocks (Atomics.wait) until every worker
 * is done, then replays the kernels' printf output and reports the first fault.
 */
import * as os from "node:os";
import * as path from "node:path";
import * as fs from "node:fs";
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from "node:worker_threads";
import { DTYPE_NAMES, DTYPES } from "@cudascript/compiler/dtypes";
import { CudaScriptError, type FaultDetails } from "../errors";
import { isComplexDTypeName, type AnyDTypeName, type ComplexValue } from "../dtypes";
import { ModuleCache, type LaunchData, type ModuleVariant, type WarnContext } from "./module-cache";
import { KernelFault } from "./rt";
import { mergePrivate, privatizeArgs, type PrivateCopy, type PrivSpec } from "./privatize";

export type ArgDesc =
  | {
      readonly kind: "array";
      readonly buffer: ArrayBufferLike;
      readonly byteOffset: number;
      /** Elements the layout spans. */
      readonly length: number;
      readonly dtype: AnyDTypeName;
      readonly shape: readonly number[];
      /** Element strides (a 1-D argument's is 1: the emitted code indexes it without one). */
      readonly strides: readonly number[];
      /** Under the sanitizer: the allocation's written map (sanitizer/written.ts, a byte per element), which the kernel marks, and this argument's first element in it. */
      readonly written?: ArrayBufferLike;
      readonly writtenFirst?: number;
    }
  | { readonly kind: "scalar"; readonly value: number | boolean | bigint | ComplexValue };

export interface ExecRequest {
  readonly variant: ModuleVariant;
  readonly kernel: string;
  readonly grid: readonly [number, number, number];
  readonly block: readonly [number, number, number];
  readonly sharedMem: number;
  readonly args: readonly ArgDesc[];
  /** Arrays the kernel only updates with privatizable atomics (SimKernelInfo.privatize). */
  readonly privatize?: readonly PrivSpec[];
  /** Array parameters updated by any atomic (SimKernelInfo.atomics). */
  readonly atomics?: readonly number[];
  /** The kernel calls g.sync(): all its blocks run in one call on one executor (grid-sync.ts). */
  readonly cooperative?: boolean;
  /**
   * The sanitizing variant: the launch runs on one executor, so that the global race detector sees every
   * block of it in one order on one clock (sanitizer/global-races.ts).
   */
  readonly sanitize?: boolean;
  /** Profiling: the launch's counters (profiler/counters.ts); the launch runs in the calling thread. */
  readonly profile?: unknown;
  /** Fill shared memory with the poison pattern instead of zeros (poison.ts). */
  readonly poison?: boolean;
}

export interface ExecOptions {
  /** Total executors (the calling thread counts as one when `mainThreadExecutes`). */
  readonly workers: number;
  /** Launches with fewer threads than this run in the calling thread. */
  readonly inProcessThreshold: number;
  readonly mainThreadExecutes: boolean;
  /** Absolute deadline (ms since epoch) for each launch; Infinity for none. */
  readonly deadline: number;
  readonly deadlineLabel?: string;
  readonly print: (text: string) => void;
  /** Privatize eligible global atomics in launches spread over workers (default true). */
  readonly privatize?: boolean;
  /** Kernels with global atomics that are not privatized: try all workers and one executor, keep the faster (default true). */
  readonly adaptive?: boolean;
  /** Sanitizer: an undefined value used where it matters is the CSR068 fault (default) or a warning that lets the run go on. */
  readonly uninitializedShared?: "warn" | "error";
  /** Where sanitizer warnings are printed (each source line once per process; default process.stderr). */
  readonly warn?: (text: string) => void;
}

/** What the simulator did with a launch (for tests and tuning: `lastLaunch()`). */
export interface LaunchReport {
  readonly kernel: string;
  /** Threads running blocks (1: the calling thread alone). */
  readonly executors: number;
  /** Names of the parameters each executor updated through a private copy. */
  readonly privatized: readonly string[];
}

let last: LaunchReport | undefined;
/** The last launch this process ran on the simulator. */
export function lastLaunch(): LaunchReport | undefined {
  return last;
}

let lastWarnings: readonly SerializedFault[] = [];
/** The sanitizer warnings of the last launch, one per source line (printed or not: see Executor.reportWarnings). */
export function lastLaunchWarnings(): readonly SerializedFault[] {
  return lastWarnings;
}

/**
 * Where a kernel whose global atomics stay real Atomics runs best: on all executors, or on one that
 * uses plain read-modify-writes. The first four large launches alternate (all, one, all, one); after
 * that the faster (best time per thread seen, which may rise by half per slower sample so that it
 * follows changes) runs, and every 16th launch re-measures the other.
 */
export class AtomicsTuning {
  pool = Infinity;
  solo = Infinity;
  private n = 0;

  pickSolo(): boolean {
    const n = this.n++;
    if (n < 4) return n % 2 === 1;
    const soloBetter = this.solo < this.pool;
    return n % 16 === 15 ? !soloBetter : soloBetter;
  }

  record(solo: boolean, msPerThread: number): void {
    if (solo) this.solo = Math.min(msPerThread, this.solo * 1.5);
    else this.pool = Math.min(msPerThread, this.pool * 1.5);
  }
}

/** A private copy costs a fill and a merge of the whole array per executor: only when that is small next to the launch. */
const PRIV_THREADS_PER_ELEMENT = 4;
const PRIV_MAX_ELEMENTS = 1 << 22;

export interface SerializedFault {
  readonly code: string;
  readonly message: string;
  readonly details?: FaultDetails;
}

/**
 * The typed array a kernel sees an array argument through: complex arrays as their interleaved parts,
 * f16 arrays as their bits (the host's Float16Array may be the polyfill's Proxy, slow per element: see
 * f16-table.ts).
 */
/** The simulator's view class of each dtype's elements (the dtype table's `simArray`: Uint16Array for f16, the part's array for complex). */
const CTORS = Object.fromEntries(DTYPE_NAMES.map((d) => [d, (globalThis as Record<string, unknown>)[DTYPES[d].simArray]])) as Record<
  AnyDTypeName,
  new (buffer: ArrayBufferLike, byteOffset: number, length: number) => ArrayLike<number>
>;

/** Per argument, the written map the kernel marks (a byte per element, from the argument's first), if any. */
export function makeWritten(args: readonly ArgDesc[]): (Uint8Array | undefined)[] | undefined {
  if (!args.some((a) => a.kind === "array" && a.written)) return undefined;
  return args.map((a) => (a.kind === "array" && a.written ? new Uint8Array(a.written, a.writtenFirst ?? 0) : undefined));
}

export function makeArgs(args: readonly ArgDesc[]): unknown[] {
  return args.map((a) => {
    if (a.kind === "scalar") return a.value;
    const data = new CTORS[a.dtype](a.buffer, a.byteOffset, isComplexDTypeName(a.dtype) ? 2 * a.length : a.length);
    return a.shape.length === 1 ? data : { data, shape: a.shape, strides: a.strides };
  });
}

export function serializeFault(e: unknown, kernel: string): SerializedFault {
  if (e instanceof KernelFault) return { code: e.code, message: e.describe(), details: e.details() };
  if (e instanceof CudaScriptError) return { code: e.code, message: e.message.replace(/^CSR\d+: /, ""), details: e.details };
  const err = e as Error;
  return { code: "CSR030", message: `internal simulator error while running kernel '${kernel}': ${err?.stack ?? String(e)}`, details: { kind: "internal", kernel } };
}

export function faultError(f: SerializedFault): CudaScriptError {
  return new CudaScriptError(f.code, f.message, f.details);
}

/**
 * Runs blocks from a shared counter until none are left or a fault aborts. Guided self-scheduling:
 * each claim takes 1/(2·executors) of the blocks still unclaimed, at least `minChunk`, so the chunks
 * shrink towards the end and an executor that falls behind (a busy core) holds up the launch less.
 */
export function runChunks(run: (L: LaunchData, b0: number, b1: number) => void, L: LaunchData, ctl: Int32Array, nBlocks: number, minChunk: number, executors: number): void {
  const div = 2 * Math.max(1, executors);
  for (;;) {
    if (Atomics.load(ctl, 2) !== 0) return;
    let start = Atomics.load(ctl, 0), size: number;
    for (;;) {
      if (start >= nBlocks) return;
      size = Math.max(minChunk, Math.ceil((nBlocks - start) / div));
      const seen = Atomics.compareExchange(ctl, 0, start, start + size);
      if (seen === start) break;
      start = seen;
    }
    run(L, start, Math.min(start + size, nBlocks));
  }
}

/**
 * Admission to a pooled launch (ctl[3]): the number of workers that joined it, plus CLOSED once the
 * calling thread has finished its share. A worker still starting when the calling thread has run every
 * block (a short kernel: thread start-up can cost more than the whole launch) finds the launch closed
 * and leaves it alone; the calling thread then waits only for the workers that joined.
 */
const ADMISSION = 3;
const CLOSED = 1 << 30;

/** A worker's entry into a launch: false when the launch is closed (its blocks are done or being finished). */
export function joinLaunch(ctl: Int32Array): boolean {
  for (;;) {
    const v = Atomics.load(ctl, ADMISSION);
    if (v & CLOSED) return false;
    if (Atomics.compareExchange(ctl, ADMISSION, v, v + 1) === v) return true;
  }
}

/** Closes a launch to workers that have not joined yet; returns how many joined. */
function closeAdmission(ctl: Int32Array): number {
  return Atomics.or(ctl, ADMISSION, CLOSED) & ~CLOSED;
}

/**
 * One executor's share of a pooled launch: its private copies of the privatized arrays (if any), the
 * chunks it takes, then the merge of the copies into device memory (also after a fault: the updates
 * made before it are visible, as they would be without privatization).
 */
export function runShare(run: (L: LaunchData, b0: number, b1: number) => void, req: { args: readonly ArgDesc[]; grid: readonly [number, number, number]; block: readonly [number, number, number]; sharedMem: number; poison?: boolean }, priv: readonly PrivSpec[], ctl: Int32Array, nBlocks: number, chunk: number, executors: number): void {
  const args = makeArgs(req.args);
  const { flags, copies } = privatizeArgs(args, priv);
  const L: LaunchData = { args, grid: req.grid, block: req.block, dynBuf: new ArrayBuffer(req.sharedMem), priv: flags, poison: req.poison === true, written: makeWritten(req.args) };
  try {
    runChunks(run, L, ctl, nBlocks, chunk, executors);
  } finally {
    mergeAll(copies);
  }
}

function mergeAll(copies: readonly PrivateCopy[]): void {
  for (const c of copies) mergePrivate(c);
}

/**
 * The privatizable arrays of a launch that are privatized: not bound to another parameter's memory
 * (aliasing would make the private copy stale), and small next to the launch.
 */
export function choosePrivatized(req: ExecRequest, threads: number, executors: number): PrivSpec[] {
  const specs = req.privatize ?? [];
  const out: PrivSpec[] = [];
  for (const sp of specs) {
    const a = req.args[sp.param];
    if (!a || a.kind !== "array" || a.dtype !== sp.dtype) continue;
    if (a.length > PRIV_MAX_ELEMENTS || a.length * executors * PRIV_THREADS_PER_ELEMENT > threads) continue;
    const lo = a.byteOffset, hi = lo + a.length * DTYPES[a.dtype].bytes;
    const aliased = req.args.some((b, j) => j !== sp.param && b.kind === "array" && b.buffer === a.buffer && b.byteOffset < hi && lo < b.byteOffset + b.length * DTYPES[b.dtype].bytes);
    if (!aliased) out.push(sp);
  }
  return out;
}

interface Slot {
  readonly worker: Worker;
  readonly port: MessagePort;
  readonly known: Set<string>;
}

/** The worker script large launches start: next to this module (runtime/dist/simulator, or beside a bundle that inlines it). */
export const WORKER_FILE = path.join(__dirname, "worker.js");

export class Executor {
  private readonly cache = new ModuleCache();
  private readonly tuning = new Map<string, AtomicsTuning>();
  private slots: Slot[] = [];
  private workerFailure: string | undefined;
  /** Source lines (file:line) whose warning this process already printed. */
  private readonly warnedLines = new Set<string>();

  constructor(private opts: ExecOptions) {}

  configure(opts: Partial<ExecOptions>): void {
    this.opts = { ...this.opts, ...opts };
  }

  get options(): ExecOptions {
    return this.opts;
  }

  run(req: ExecRequest): void {
    const [gx, gy, gz] = req.grid;
    const [bx, by, bz] = req.block;
    const nBlocks = gx * gy * gz;
    const threads = nBlocks * bx * by * bz;
    const o = this.opts;
    const timed = Number.isFinite(o.deadline);
    const wantWorkers = o.workers > 1 || timed;
    const useWorkers = wantWorkers && nBlocks > 0 && (threads >= o.inProcessThreshold || timed) && this.workersAvailable() && workersCanShare(req.args);
    if (!useWorkers || req.profile) return this.runHere(req, nBlocks);
    // A grid barrier needs every block alive in one executor: one claim of the whole grid. The
    // sanitizer's global race detection needs every block on one clock: one executor too (under a
    // deadline a worker, which can be stopped; else the calling thread).
    if (req.cooperative || req.sanitize) return timed || req.cooperative ? this.runPool(req, nBlocks, 1, [], nBlocks) : this.runHere(req, nBlocks);
    const executors = Math.max(1, Math.min(Math.max(o.workers, 1), nBlocks));
    if (executors === 1) return this.runPool(req, nBlocks, 1, []);
    const priv = o.privatize === false ? [] : choosePrivatized(req, threads, executors);
    // Global atomics that stay real Atomics: two cores fighting over the same cache lines can be
    // slower than one executor using plain read-modify-writes — or not, when the kernel does enough
    // other work. Measure both and keep the faster (see AtomicsTuning).
    const contended = (req.atomics ?? []).some((p) => !priv.some((sp) => sp.param === p));
    if (!contended || o.adaptive === false) return this.runPool(req, nBlocks, executors, priv);
    const key = `${req.variant.key}\u0000${req.kernel}`;
    let tuning = this.tuning.get(key);
    if (!tuning) this.tuning.set(key, (tuning = new AtomicsTuning()));
    const solo = tuning.pickSolo();
    const t0 = performance.now();
    if (solo) this.runPool(req, nBlocks, 1, []);
    else this.runPool(req, nBlocks, executors, priv);
    tuning.record(solo, (performance.now() - t0) / threads);
  }

  private runHere(req: ExecRequest, nBlocks: number): void {
    last = { kernel: req.kernel, executors: 1, privatized: [] };
    const prints: string[] = [];
    const warnings: SerializedFault[] = [];
    const mod = this.cache.get(req.variant, false, { at: this.opts.deadline, label: this.opts.deadlineLabel }, (s) => prints.push(s), this.warnContext(req, warnings));
    const k = mod.kernels[req.kernel];
    if (!k) throw new CudaScriptError("CSR030", `kernel '${req.kernel}' is missing from its compiled module`);
    const L: LaunchData = { args: makeArgs(req.args), grid: req.grid, block: req.block, dynBuf: new ArrayBuffer(req.sharedMem), poison: req.poison === true, written: makeWritten(req.args), ...(req.profile ? { profile: req.profile } : {}) };
    try {
      if (nBlocks > 0) k.run(L, 0, nBlocks);
    } catch (e) {
      this.flush(prints);
      this.reportWarnings(warnings);
      throw faultError(serializeFault(e, req.kernel));
    }
    this.flush(prints);
    this.reportWarnings(warnings);
  }

  private warnContext(req: ExecRequest, into: SerializedFault[]): WarnContext {
    return { uninitializedShared: this.opts.uninitializedShared ?? "error", warn: (f) => into.push(serializeFault(f, req.kernel)) };
  }

  /**
   * Keeps a launch's warnings (one per source line: several sites of a line, or several executors,
   * report the same finding) for lastLaunchWarnings(), and prints those whose line this process has
   * not printed yet — a kernel launched in a loop would otherwise repeat them at every launch.
   */
  private reportWarnings(warnings: readonly SerializedFault[]): void {
    const byLine = new Map<string, SerializedFault>();
    for (const w of warnings) {
      const key = `${w.details?.file}:${w.details?.line}`;
      if (!byLine.has(key)) byLine.set(key, w);
    }
    lastWarnings = [...byLine.values()];
    const out = this.opts.warn ?? ((text: string) => void process.stderr.write(text));
    for (const [key, w] of byLine) {
      if (this.warnedLines.has(key)) continue;
      this.warnedLines.add(key);
      out(`cudascript: ${w.code} warning: ${w.message}\n`);
    }
  }

  private flush(prints: string[]): void {
    if (prints.length) this.opts.print(prints.join(""));
  }

  private workersAvailable(): boolean {
    if (this.workerFailure) return false;
    if (!fs.existsSync(WORKER_FILE)) {
      this.workerFailure = `worker script ${WORKER_FILE} not found`;
      return false;
    }
    return true;
  }

  private ensureWorkers(n: number): void {
    while (this.slots.length < n) {
      const { port1, port2 } = new MessageChannel();
      const worker = new Worker(WORKER_FILE, { workerData: { port: port2 }, transferList: [port2] });
      worker.unref();
      port1.unref();
      // Errors are reported through the port; an 'error' event means the thread died.
      worker.on("error", (e) => (this.workerFailure = String(e)));
      this.slots.push({ worker, port: port1, known: new Set() });
    }
  }

  /** Runs a launch on `executors` threads (the calling one included when it executes), `priv` privatized. */
  private runPool(req: ExecRequest, nBlocks: number, executors: number, priv: readonly PrivSpec[], minChunk?: number): void {
    const o = this.opts;
    const timed = Number.isFinite(o.deadline);
    const mainExecutes = o.mainThreadExecutes && !timed;
    const nWorkers = mainExecutes ? executors - 1 : executors;
    if (nWorkers <= 0) return this.runHere(req, nBlocks);
    this.ensureWorkers(nWorkers);
    // [0] next unclaimed block, [1] workers done, [2] fault (stop claiming), [3] admission.
    const ctl = new Int32Array(new SharedArrayBuffer(16));
    // Smallest claim: enough blocks that the per-call set-up of a kernel run stays negligible.
    const chunk = minChunk ?? Math.max(1, Math.floor(nBlocks / (executors * 32)));
    // One executor alone (a single worker under a deadline) has device memory to itself: plain
    // read-modify-writes instead of Atomics.
    const concurrent = executors > 1;
    last = { kernel: req.kernel, executors, privatized: priv.map((p) => p.name) };
    const base = {
      type: "run",
      ctl: ctl.buffer,
      key: req.variant.key,
      kernel: req.kernel,
      args: req.args,
      grid: req.grid,
      block: req.block,
      sharedMem: req.sharedMem,
      poison: req.poison === true,
      nBlocks,
      chunk,
      executors,
      priv,
      concurrent,
      deadline: o.deadline,
      deadlineLabel: o.deadlineLabel,
      uninitializedShared: o.uninitializedShared ?? "error",
    };
    for (let i = 0; i < nWorkers; i++) {
      const slot = this.slots[i]!;
      const needSource = !slot.known.has(req.variant.key);
      slot.known.add(req.variant.key);
      slot.worker.postMessage(needSource ? { ...base, source: req.variant.source } : base);
    }
    let mainFault: SerializedFault | undefined;
    const mainPrints: string[] = [];
    const warnings: SerializedFault[] = [];
    if (mainExecutes) {
      const mod = this.cache.get(req.variant, concurrent, { at: o.deadline, label: o.deadlineLabel }, (s) => mainPrints.push(s), this.warnContext(req, warnings));
      const k = mod.kernels[req.kernel];
      try {
        if (!k) throw new CudaScriptError("CSR030", `kernel '${req.kernel}' is missing from its compiled module`);
        runShare(k.run, req, priv, ctl, nBlocks, chunk, executors);
      } catch (e) {
        Atomics.store(ctl, 2, 1);
        mainFault = serializeFault(e, req.kernel);
      }
    }
    // Wait for the workers: all of them under a deadline (the calling thread ran nothing); else
    // those that joined before the calling thread was done.
    const awaited = mainExecutes ? closeAdmission(ctl) : nWorkers;
    for (;;) {
      const done = Atomics.load(ctl, 1);
      if (done >= awaited) break;
      const now = Date.now();
      const slice = timed ? Math.max(1, Math.min(1000, o.deadline + 750 - now)) : 1000;
      Atomics.wait(ctl, 1, done, slice);
      if (timed && Date.now() > o.deadline + 750 && Atomics.load(ctl, 1) < awaited) {
        this.terminate();
        throw new CudaScriptError(
          "CSR024",
          `kernel '${req.kernel}' was still running when the time limit${o.deadlineLabel ? ` (${o.deadlineLabel})` : ""} ran out; the simulator stopped it. It may never end (a loop whose condition never changes?): run with --sanitize to see which loop.`,
          { kind: "timeout", kernel: req.kernel },
        );
      }
      if (this.workerFailure && Atomics.load(ctl, 1) < awaited) {
        const why = this.workerFailure;
        this.terminate();
        throw new CudaScriptError("CSR030", `a simulator worker thread failed while running kernel '${req.kernel}': ${why}`, { kind: "internal", kernel: req.kernel });
      }
    }
    const faults: SerializedFault[] = [];
    if (mainFault) faults.push(mainFault);
    const prints = [...mainPrints];
    for (let i = 0; i < nWorkers; i++) {
      const m = receiveMessageOnPort(this.slots[i]!.port);
      const msg = m?.message as { prints: string[]; warnings: SerializedFault[]; error?: SerializedFault } | undefined;
      if (!msg) continue;
      prints.push(...msg.prints);
      warnings.push(...msg.warnings);
      if (msg.error) faults.push(msg.error);
    }
    this.flush(prints);
    this.reportWarnings(warnings);
    if (faults.length) throw faultError(faults[0]!);
  }

  /** Each worker drops its handles on freed device memory (reclaim.ts) when it is next idle. */
  reclaimFreedMemory(): void {
    for (const s of this.slots) s.worker.postMessage({ type: "reclaim" });
  }

  /** Stops every worker (after a timeout, or at exit); new ones start on the next launch. */
  terminate(): void {
    for (const s of this.slots) {
      s.port.close();
      void s.worker.terminate();
    }
    this.slots = [];
    this.workerFailure = undefined;
  }
}

export function defaultWorkers(): number {
  const env = process.env.CUDASCRIPT_WORKERS ?? process.env.CUDASCRIPT_SIMULATOR_WORKERS;
  if (env && /^\d+$/.test(env)) return Math.max(1, Number(env));
  return typeof os.availableParallelism === "function" ? os.availableParallelism() : os.cpus().length;
}

/**
 * Workers see device memory only as SharedArrayBuffers; memory shared with another process (an IPC
 * file mapping, simulator/ipc.ts) is not one, so a launch that uses it runs on this thread.
 */
function workersCanShare(args: readonly ArgDesc[]): boolean {
  for (const a of args) if (a.kind === "array" && !(a.buffer instanceof SharedArrayBuffer)) return false;
  return true;
}
