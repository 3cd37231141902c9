/**
 * Registers per thread (and local memory) from NVRTC's ptxas report, compiled in the background:
 * debounced after edits, one compile at a time, never in the way of diagnostics. Results are cached
 * per kernel under a hash of the kernel's IR and the device functions it reaches (spans left out, so
 * moving code does not recompile) plus the target arch. A kernel whose key is cached is never compiled
 * again; an edit elsewhere in the file does not invalidate it.
 */
import { createHash } from "node:crypto";
import type { IrFunction, IrModule } from "@cudascript/compiler";
import { loadBackend, nvrtcDisabled, type Backend, type KernelResourceReport } from "./backend";

export type RegisterInfo =
  | { readonly known: true; readonly registers: number; readonly report: KernelResourceReport; readonly source: string }
  | { readonly known: false; readonly reason: string; readonly pending: boolean };

interface Entry {
  readonly report?: KernelResourceReport;
  readonly error?: string;
}

export interface ResourceHooks {
  /** New resource information for kernels of `file` (refresh CodeLens). */
  updated(file: string): void;
  error(message: string, err: unknown): void;
}

const MAX_ENTRIES = 2000;

export class ResourceService {
  enabled = true;
  debounceMs = 750;
  /** The nvrtcPath setting ("" = let the compiler discover NVRTC). */
  nvrtcPath = "";
  private readonly cache = new Map<string, Entry>();
  private readonly keys = new WeakMap<IrFunction, string>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly queue = new Map<string, { module: IrModule; arch: string }>();
  private running = false;
  private nvrtcMissing: string | undefined;
  private generation = 0;
  /** Files not compiled because they have errors. */
  private readonly withErrors = new Set<string>();

  constructor(
    private readonly hooks: ResourceHooks,
    private readonly backend: () => Backend = loadBackend,
  ) {}

  /** Forget that NVRTC was missing (the nvrtcPath setting changed). */
  reset(): void {
    this.nvrtcMissing = undefined;
    this.generation++;
  }

  /** What is known about `kernel`'s registers on `arch` — never a guess. */
  info(module: IrModule, kernel: IrFunction, arch: string): RegisterInfo {
    const unknown = (reason: string, pending = false): RegisterInfo => ({ known: false, reason, pending });
    if (nvrtcDisabled()) return unknown("NVRTC not available: disabled by CUDASCRIPT_NVRTC=off");
    const backend = this.backend();
    if (!backend.compileModule) return unknown(`NVRTC not available: this build of ${backend.source} has no compileModule (CUDA backend) yet`);
    if (this.nvrtcMissing) return unknown(`NVRTC not available: ${this.nvrtcMissing}`);
    const entry = this.cache.get(this.keyOf(module, kernel, arch));
    if (entry?.report?.registers !== undefined) return { known: true, registers: entry.report.registers, report: entry.report, source: "NVRTC (ptxas)" };
    if (entry?.error) return unknown(`NVRTC compile failed: ${entry.error}`);
    if (!this.enabled) return unknown("not compiled: the background NVRTC compile is turned off (cudascript.resources.enabled)");
    if (this.withErrors.has(module.file)) return unknown("not compiled: NVRTC compiles the file once it has no errors");
    return unknown("not compiled yet: NVRTC compiles in the background after edits", true);
  }

  /** Schedules a background compile of `module`'s kernels whose resources are not cached yet. */
  schedule(file: string, module: IrModule, arch: string, hasErrors: boolean): void {
    const t = this.timers.get(file);
    if (t) clearTimeout(t);
    this.timers.delete(file);
    this.queue.delete(file);
    if (hasErrors) this.withErrors.add(file);
    else this.withErrors.delete(file);
    if (!this.enabled || hasErrors || nvrtcDisabled() || this.nvrtcMissing || module.kernels.length === 0) return;
    if (!this.backend().compileModule) return;
    // Hashing the kernels' IR (to see what is cached) waits for the debounce too: not on the edit path.
    this.timers.set(
      file,
      setTimeout(() => {
        this.timers.delete(file);
        if (module.kernels.every((k) => this.cache.has(this.keyOf(module, k, arch)))) return;
        this.queue.set(file, { module, arch });
        void this.pump();
      }, this.debounceMs),
    );
  }

  /** Cancels pending work for a file (closed, or edited again). */
  cancel(file: string): void {
    this.withErrors.delete(file);
    const t = this.timers.get(file);
    if (t) clearTimeout(t);
    this.timers.delete(file);
    this.queue.delete(file);
  }

  private async pump(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.queue.size) {
        const [file, job] = this.queue.entries().next().value as [string, { module: IrModule; arch: string }];
        this.queue.delete(file);
        const generation = this.generation;
        let changed = false;
        try {
          changed = await this.compile(job.module, job.arch, generation);
        } catch (err) {
          this.hooks.error(`background NVRTC compile of ${file} failed`, err);
        }
        if (changed) this.hooks.updated(file);
      }
    } finally {
      this.running = false;
    }
  }

  private async compile(module: IrModule, arch: string, generation: number): Promise<boolean> {
    const compileModule = this.backend().compileModule;
    if (!compileModule) return false;
    const keys = module.kernels.map((k) => this.keyOf(module, k, arch));
    if (keys.every((k) => this.cache.has(k))) return false;
    const out = await compileModule(module, { arch, resources: true, emit: ["ptx"], ...(this.nvrtcPath ? { nvrtcPath: this.nvrtcPath } : {}) });
    if (generation !== this.generation) return false;
    if (out.nvrtcUnavailable) {
      this.nvrtcMissing = out.nvrtcUnavailable;
      return true;
    }
    module.kernels.forEach((k, i) => {
      const report = out.resources.get(k.name) ?? [...out.resources].find(([name]) => name.includes(k.name))?.[1];
      const entry: Entry = report?.registers !== undefined ? { report } : { error: out.ok ? `no resource report for '${k.name}'` : (out.errors[0] ?? "compile error") };
      this.store(keys[i]!, entry);
    });
    return true;
  }

  private store(key: string, entry: Entry): void {
    this.cache.delete(key);
    this.cache.set(key, entry);
    while (this.cache.size > MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
  }

  /** Hash of the kernel's IR, the IR of every device function it reaches, and the arch. */
  private keyOf(module: IrModule, kernel: IrFunction, arch: string): string {
    let k = this.keys.get(kernel);
    if (!k) {
      const devices = new Map(module.deviceFunctions.map((f) => [f.id, f]));
      const reached: IrFunction[] = [];
      const seen = new Set<string>();
      const stack = [...kernel.callees];
      while (stack.length) {
        const id = stack.pop()!;
        const f = devices.get(id);
        if (!f || seen.has(id)) continue;
        seen.add(id);
        reached.push(f);
        stack.push(...f.callees);
      }
      const h = createHash("sha1");
      h.update(stableJson(kernel));
      for (const f of reached.sort((a, b) => (a.id < b.id ? -1 : 1))) h.update(stableJson(f));
      for (const c of module.constArrays) h.update(stableJson(c));
      k = h.digest("hex");
      this.keys.set(kernel, k);
    }
    return `${arch}:${k}`;
  }
}

function stableJson(x: unknown): string {
  try {
    // bigints (i64/u64 literals and constant arrays) have no JSON form: written as objects no other IR value has.
    return JSON.stringify(x, (key, value: unknown) => (key === "span" || key === "file" ? undefined : typeof value === "bigint" ? { bigint: value.toString() } : value));
  } catch {
    return String(Math.random()); // unserialisable IR: never share a cache entry
  }
}
