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
import { CudaScriptError, type FaultDetails } from "../errors";
import type { DTypeName } from "../dtypes";
import { ModuleCache, type LaunchData, type ModuleVariant } from "./module-cache";
import { KernelFault } from "./rt";

export type ArgDesc =
  | { readonly kind: "array"; readonly buffer: ArrayBufferLike; readonly byteOffset: number; readonly length: number; readonly dtype: DTypeName; readonly shape: readonly number[] }
  | { readonly kind: "scalar"; readonly value: number | boolean };

export interface ExecRequest {
  readonly variant: ModuleVariant;
  readonly kernel: string;
  readonly grid: readonly [number, number, number];
  readonly block: readonly [number, number, number];
  readonly sharedMem: number;
  readonly args: readonly ArgDesc[];
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
}

export interface SerializedFault {
  readonly code: string;
  readonly message: string;
  readonly details?: FaultDetails;
}

const CTORS: Record<DTypeName, new (buffer: ArrayBufferLike, byteOffset: number, length: number) => ArrayLike<number>> = {
  f32: Float32Array,
  f64: Float64Array,
  i8: Int8Array,
  u8: Uint8Array,
  i16: Int16Array,
  u16: Uint16Array,
  i32: Int32Array,
  u32: Uint32Array,
  bool: Uint8Array,
};

export function makeArgs(args: readonly ArgDesc[]): unknown[] {
  return args.map((a) => {
    if (a.kind === "scalar") return a.value;
    const data = new CTORS[a.dtype](a.buffer, a.byteOffset, a.length);
    return a.shape.length === 1 ? data : { data, shape: a.shape };
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

/** Runs blocks [start, end) from a shared counter until none are left or a fault aborts. */
export function runChunks(run: (L: LaunchData, b0: number, b1: number) => void, L: LaunchData, ctl: Int32Array, nBlocks: number, chunk: number): void {
  for (;;) {
    if (Atomics.load(ctl, 2) !== 0) return;
    const start = Atomics.add(ctl, 0, chunk);
    if (start >= nBlocks) return;
    run(L, start, Math.min(start + chunk, nBlocks));
  }
}

interface Slot {
  readonly worker: Worker;
  readonly port: MessagePort;
  readonly known: Set<string>;
}

const WORKER_FILE = path.join(__dirname, "worker.js");

export class Executor {
  private readonly cache = new ModuleCache();
  private slots: Slot[] = [];
  private workerFailure: string | undefined;

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
    const useWorkers = wantWorkers && nBlocks > 0 && (threads >= o.inProcessThreshold || timed) && this.workersAvailable();
    if (!useWorkers) return this.runHere(req, nBlocks);
    this.runPool(req, nBlocks);
  }

  private runHere(req: ExecRequest, nBlocks: number): void {
    const prints: string[] = [];
    const mod = this.cache.get(req.variant, false, { at: this.opts.deadline, label: this.opts.deadlineLabel }, (s) => prints.push(s));
    const k = mod.kernels[req.kernel];
    if (!k) throw new CudaScriptError("CSR030", `kernel '${req.kernel}' is missing from its compiled module`);
    const L: LaunchData = { args: makeArgs(req.args), grid: req.grid, block: req.block, dynBuf: new ArrayBuffer(req.sharedMem) };
    try {
      if (nBlocks > 0) k.run(L, 0, nBlocks);
    } catch (e) {
      this.flush(prints);
      throw faultError(serializeFault(e, req.kernel));
    }
    this.flush(prints);
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

  private runPool(req: ExecRequest, nBlocks: number): void {
    const o = this.opts;
    const timed = Number.isFinite(o.deadline);
    const mainExecutes = o.mainThreadExecutes && !timed;
    const executors = Math.max(1, Math.min(Math.max(o.workers, 1), nBlocks));
    const nWorkers = mainExecutes ? executors - 1 : executors;
    if (nWorkers <= 0) return this.runHere(req, nBlocks);
    this.ensureWorkers(nWorkers);
    const ctl = new Int32Array(new SharedArrayBuffer(16));
    const chunk = Math.max(1, Math.floor(nBlocks / (executors * 8)));
    const base = {
      type: "run",
      ctl: ctl.buffer,
      key: req.variant.key,
      kernel: req.kernel,
      args: req.args,
      grid: req.grid,
      block: req.block,
      sharedMem: req.sharedMem,
      nBlocks,
      chunk,
      deadline: o.deadline,
      deadlineLabel: o.deadlineLabel,
    };
    for (let i = 0; i < nWorkers; i++) {
      const slot = this.slots[i]!;
      const needSource = !slot.known.has(req.variant.key);
      slot.known.add(req.variant.key);
      slot.worker.postMessage(needSource ? { ...base, source: req.variant.source } : base);
    }
    let mainFault: SerializedFault | undefined;
    const mainPrints: string[] = [];
    if (mainExecutes) {
      const mod = this.cache.get(req.variant, true, { at: o.deadline, label: o.deadlineLabel }, (s) => mainPrints.push(s));
      const k = mod.kernels[req.kernel];
      const L: LaunchData = { args: makeArgs(req.args), grid: req.grid, block: req.block, dynBuf: new ArrayBuffer(req.sharedMem) };
      try {
        if (!k) throw new CudaScriptError("CSR030", `kernel '${req.kernel}' is missing from its compiled module`);
        runChunks(k.run, L, ctl, nBlocks, chunk);
      } catch (e) {
        Atomics.store(ctl, 2, 1);
        mainFault = serializeFault(e, req.kernel);
      }
    }
    // Wait for the workers.
    for (;;) {
      const done = Atomics.load(ctl, 1);
      if (done >= nWorkers) break;
      const now = Date.now();
      const slice = timed ? Math.max(1, Math.min(1000, o.deadline + 750 - now)) : 1000;
      Atomics.wait(ctl, 1, done, slice);
      if (timed && Date.now() > o.deadline + 750 && Atomics.load(ctl, 1) < nWorkers) {
        this.terminate();
        throw new CudaScriptError(
          "CSR024",
          `kernel '${req.kernel}' was still running when the time limit${o.deadlineLabel ? ` (${o.deadlineLabel})` : ""} ran out; the simulator stopped it. It may never end (a loop whose condition never changes?): run with --sanitize to see which loop.`,
          { kind: "timeout", kernel: req.kernel },
        );
      }
      if (this.workerFailure && Atomics.load(ctl, 1) < nWorkers) {
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
      const msg = m?.message as { prints: string[]; error?: SerializedFault } | undefined;
      if (!msg) continue;
      prints.push(...msg.prints);
      if (msg.error) faults.push(msg.error);
    }
    this.flush(prints);
    if (faults.length) throw faultError(faults[0]!);
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
