/**
 * Adapter to the compiler's code generators, which may not be in every build: `generateCuda`
 * (IR → CUDA C++) and `compileModule` (NVRTC → PTX + ptxas resource report). The server looks them up
 * at run time and reports what is missing instead of inventing results. `CUDASCRIPT_LSP_BACKEND`
 * names another module exporting the same functions (tests use it to stand in for NVRTC).
 */
import * as compiler from "@cudascript/compiler";
import type { IrModule } from "@cudascript/compiler";

export interface GeneratedCuda {
  readonly source: string;
  /** Source name → the symbol the kernel has in CUDA C++ / PTX (differs when the name collides). */
  readonly kernels: readonly { name: string; symbol: string }[];
  /** 1-based line of the generated source → TypeScript file and 1-based line. */
  readonly lineMap: readonly { generatedLine: number; file: string; line: number }[];
}

export interface KernelResourceReport {
  readonly registers?: number;
  readonly sharedBytes?: number;
  readonly localBytes?: number;
  readonly spillStores?: number;
  readonly spillLoads?: number;
}

export interface CompileOutput {
  readonly ok: boolean;
  /** PTX of each NVRTC program (kernels with different options compile separately). */
  readonly ptx: readonly string[];
  /** The CUDA C++ that was compiled, when the compiler returns it. */
  readonly cuda?: GeneratedCuda;
  /** Kernel name (as the compiler names it) → resources. */
  readonly resources: ReadonlyMap<string, KernelResourceReport>;
  /** Why NVRTC could not be used, when it could not. */
  readonly nvrtcUnavailable?: string;
  /** First lines of the compiler's own diagnostics, when the compile failed. */
  readonly errors: readonly string[];
}

export interface CompileRequestOptions {
  arch: string;
  resources: boolean;
  emit: ("ptx" | "cubin")[];
  lineinfo?: boolean;
  /** Load this NVRTC library instead of discovering one. */
  nvrtcPath?: string;
}

export interface GenerateOptions {
  /** Emit `#line` directives (the compiler's default); the line map is produced either way. */
  lineDirectives?: boolean;
  /** Only these kernels (source names) and what they reach. */
  kernels?: string[];
}

export interface Backend {
  /** Where the functions came from (for messages). */
  readonly source: string;
  readonly generateCuda?: (module: IrModule, options?: GenerateOptions) => GeneratedCuda;
  readonly compileModule?: (module: IrModule, options: CompileRequestOptions) => Promise<CompileOutput>;
}

type AnyFn = (...args: unknown[]) => unknown;

let cached: Backend | undefined;

export function loadBackend(): Backend {
  if (cached) return cached;
  const override = process.env.CUDASCRIPT_LSP_BACKEND;
  const source = override || "@cudascript/compiler";
  // The compiler is imported statically (so bundles carry it); only the test override is required by name.
  let mod: Record<string, unknown> = compiler as unknown as Record<string, unknown>;
  if (override) {
    try {
      mod = require(override) as Record<string, unknown>;
    } catch {
      mod = {};
    }
  }
  const gen = typeof mod.generateCuda === "function" ? (mod.generateCuda as AnyFn) : undefined;
  const compile = typeof mod.compileModule === "function" ? (mod.compileModule as AnyFn) : undefined;
  cached = {
    source,
    generateCuda: gen && ((m, o) => normalizeGenerated(o ? gen(m, o) : gen(m))),
    compileModule: compile && (async (m, o) => normalizeCompile(await compile(m, o))),
  };
  return cached;
}

function normalizeGenerated(raw: unknown): GeneratedCuda {
  const r = (raw ?? {}) as Record<string, unknown>;
  const source = typeof r.source === "string" ? r.source : typeof raw === "string" ? raw : "";
  const lineMap = Array.isArray(r.lineMap)
    ? (r.lineMap as Record<string, unknown>[])
        .filter((e) => e && typeof e.generatedLine === "number" && typeof e.line === "number")
        .map((e) => ({ generatedLine: e.generatedLine as number, file: String(e.file ?? ""), line: e.line as number }))
    : [];
  const kernels = Array.isArray(r.kernels)
    ? (r.kernels as Record<string, unknown>[]).filter((k) => k && typeof k.name === "string").map((k) => ({ name: k.name as string, symbol: typeof k.symbol === "string" ? k.symbol : (k.name as string) }))
    : [];
  return { source, lineMap, kernels };
}

function normalizeCompile(raw: unknown): CompileOutput {
  const r = (raw ?? {}) as Record<string, unknown>;
  const resources = new Map<string, KernelResourceReport>();
  const entries: [string, unknown][] =
    r.resources instanceof Map ? [...(r.resources as Map<string, unknown>)] : r.resources && typeof r.resources === "object" ? Object.entries(r.resources) : [];
  for (const [name, v] of entries) {
    const o = (v ?? {}) as Record<string, unknown>;
    const n = (k: string) => (typeof o[k] === "number" && Number.isFinite(o[k]) ? (o[k] as number) : undefined);
    resources.set(name, { registers: n("registers"), sharedBytes: n("sharedBytes"), localBytes: n("localBytes"), spillStores: n("spillStores"), spillLoads: n("spillLoads") });
  }
  const un = r.nvrtcUnavailable;
  const nvrtcUnavailable =
    un === undefined || un === false || un === null
      ? undefined
      : typeof un === "string"
        ? un
        : un instanceof Error
          ? un.message
          : typeof un === "object" && typeof (un as { message?: unknown }).message === "string"
            ? (un as { message: string }).message
            : "NVRTC was not found";
  const errors = Array.isArray(r.diagnostics)
    ? (r.diagnostics as unknown[]).slice(0, 3).map((d) => (typeof d === "string" ? d : typeof (d as { message?: unknown })?.message === "string" ? (d as { message: string }).message : JSON.stringify(d)))
    : [];
  const modulePtx = Array.isArray(r.modules) ? (r.modules as Record<string, unknown>[]).map((m) => m?.ptx).filter((p): p is string => typeof p === "string") : [];
  const ptx = modulePtx.length ? modulePtx : typeof r.ptx === "string" ? [r.ptx] : [];
  const cuda = r.cuda && typeof r.cuda === "object" ? normalizeGenerated(r.cuda) : undefined;
  return { ok: r.ok === true, ptx, cuda, resources, nvrtcUnavailable, errors };
}

/** Whether NVRTC was switched off for this process (`CUDASCRIPT_NVRTC=off`). */
export function nvrtcDisabled(): boolean {
  return (process.env.CUDASCRIPT_NVRTC ?? "").trim().toLowerCase() === "off";
}
