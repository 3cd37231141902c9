/**
 * The compile API: IR module → CUDA C++ → (NVRTC) → PTX / CUBIN / per-kernel resources, with an
 * on-disk cache. All kernels of a file compile in one NVRTC program, except that kernels whose
 * options (fastmath, fma, maxRegisters, lineinfo, debug) differ need different NVRTC command lines: each
 * such group is its own program and its own PTX module (NVRTC 11.8 has no per-kernel `__maxnreg__`).
 *
 * Never throws for a missing NVRTC (ok: false, nvrtcUnavailable set, `cuda` still produced), for
 * code NVRTC rejects (CS9002 diagnostics at the TypeScript lines) or for a crash of NVRTC, which runs
 * in a child process (CS9003). NVRTC is loaded lazily, so
 * importing the compiler does not load native code.
 */
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import type * as NB from "@cudascript/native-bindings";
import { rewritePtxFiles } from "@cudascript/native-bindings/ptx-files";
import { Codes } from "../diagnostics/codes";
import { makeDiagnostic, type Diagnostic } from "../diagnostics/diagnostic";
import type { IrModule, KernelOptions } from "../ir/nodes";
import { CODEGEN_VERSION, CudaGenError, generateCuda, type GeneratedCuda } from "../cuda/generate";
import { GPU_FEATURES, kernelUses } from "../cuda/kernel-uses";
import { cacheKey, CompileCache, defaultCacheDir, type CacheEntry } from "./cache";
import { capRegistersInPtx } from "./maxnreg";
import { diagnosticsFromLog, fallbackSpan, unplacedDiagnostic } from "./nvrtc-log";

export interface CompileOptions {
  /** Target GPU, "sm_80" (default), "compute_80" or "80". */
  arch?: string;
  /** What to produce besides the CUDA C++ (default ["ptx"]); "cubin" compiles for the real arch. */
  emit?: ("ptx" | "cubin")[];
  /** Per-kernel registers, shared/local/constant memory and spills (compiles for the real arch with ptxas -v). */
  resources?: boolean;
  /** Disk cache: true (default) for the default folder (see defaultCacheDir), false for none, or a folder. */
  cache?: boolean | { dir: string };
  /** Load this NVRTC library instead of discovering one. */
  nvrtcPath?: string;
  /** Line info (`-lineinfo`) for every kernel, whatever its own options say. */
  lineinfo?: boolean;
  /** Testing only: rewrites the generated CUDA C++ before NVRTC sees it (the cache is bypassed). */
  transformSource?: (cuda: string) => string;
}

export interface KernelResourceUsage {
  registers: number;
  /** Static shared memory per block, bytes. */
  sharedBytes: number;
  /** Per-thread stack frame (local memory, including spills), bytes. */
  localBytes: number;
  /** Constant bank 0 (parameters and driver data), bytes. */
  constBytes: number;
  spillStores: number;
  spillLoads: number;
}

/** One NVRTC program: the kernels that share a command line. */
export interface CompiledModule {
  /** Source names of its kernels. */
  kernels: string[];
  /** The NVRTC options used. */
  nvrtcOptions: string[];
  /** The CUDA C++ NVRTC compiled (the whole file's code unless kernels were split by options). */
  source: string;
  ptx?: string;
  cubin?: Uint8Array;
  /** NVRTC's program log (with the ptxas report when resources were asked for). */
  log: string;
  fromCache: boolean;
  /** The cache entry, when the cache is on. */
  cacheFile?: string;
}

export interface CompileOutput {
  /** True when every module compiled (or came from the cache). */
  ok: boolean;
  /** The generated CUDA C++ of all the module's kernels (produced even without NVRTC). */
  cuda: GeneratedCuda;
  /** PTX of the first module, which holds every kernel unless kernel options differ (then see `modules`). */
  ptx?: string;
  /** CUBIN of the first module, when `emit` included "cubin". */
  cubin?: Uint8Array;
  /** One entry per NVRTC program; kernels with different options are in different modules. */
  modules: CompiledModule[];
  /** By kernel source name, when `resources` was set. */
  resources: Map<string, KernelResourceUsage>;
  /** CS9002 (NVRTC rejected the generated code) at TypeScript lines; CS9001 if code generation failed. */
  diagnostics: Diagnostic[];
  /** Set when NVRTC could not be loaded (code CSN001; the message says what to install). */
  nvrtcUnavailable?: { code: string; message: string };
  /** "major.minor" of the NVRTC used. */
  nvrtcVersion?: string;
  /** True when every module came from the disk cache. */
  fromCache: boolean;
  millis: { codegen: number; nvrtc: number; total: number };
}

// ───────────────────────── planning ─────────────────────────

interface Group {
  kernels: string[];
  options: KernelOptions;
  cacheable: boolean;
}

function groupKernels(module: IrModule, forceLineinfo: boolean): Group[] {
  const groups = new Map<string, Group>();
  for (const k of module.kernels) {
    const o: KernelOptions = {
      fastmath: !!k.options.fastmath,
      fma: !!k.options.fma,
      maxRegisters: k.options.maxRegisters,
      lineinfo: forceLineinfo || !!k.options.lineinfo,
      debug: !!k.options.debug,
    };
    const key = JSON.stringify([o.fastmath, o.fma, o.maxRegisters ?? 0, o.lineinfo, o.debug]);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { kernels: [], options: o, cacheable: true }));
    g.kernels.push(k.name);
    if (k.options.cache === false) g.cacheable = false;
  }
  return [...groups.values()];
}

/** NVRTC command line for one group (see docs/compile.md for the mapping). */
export function nvrtcOptionsFor(target: string, o: KernelOptions, resources: boolean): string[] {
  const opts = [`--gpu-architecture=${target}`];
  // NVRTC contracts `a * b + c` into one fused multiply-add by default, which rounds once where
  // TypeScript (and the simulator) round twice: results would differ in the last bit between backends.
  // Contraction is therefore off unless the kernel opts in (`fma: true`, or fastmath, which implies it).
  if (o.fastmath) opts.push("--use_fast_math");
  else opts.push(o.fma ? "--fmad=true" : "--fmad=false");
  if (o.maxRegisters) opts.push(`--maxrregcount=${o.maxRegisters}`);
  if (o.lineinfo) opts.push("--generate-line-info");
  if (o.debug) opts.push("--device-debug");
  if (resources) opts.push("--ptxas-options=-v");
  return opts;
}

/** "sm_80" | "compute_80" | "80" → 80. */
/**
 * CS4008 for each kernel that uses a feature compute capability `cc` lacks (GPU_FEATURES), at its first
 * use: NVRTC would reject the whole program, which reads as a compiler bug.
 */
function featuresMissingFrom(module: IrModule, cc: number): Diagnostic[] {
  const capability = (n: number) => `${Math.floor(n / 10)}.${n % 10}`;
  return module.kernels.flatMap((k) =>
    kernelUses(module, k)
      .features.filter((use) => GPU_FEATURES[use.feature].minComputeCapability > cc)
      .map((use) => {
        const need = GPU_FEATURES[use.feature].minComputeCapability;
        return makeDiagnostic(
          Codes.FeatureNeedsNewerArch,
          use.span,
          `kernel '${k.name}' uses ${GPU_FEATURES[use.feature].name}, which needs compute capability ${capability(need)} (sm_${need}) or newer, but this compiles for sm_${cc}: compile for sm_${need} or newer, or run on the simulator; the kernels of a file compile together, so move this kernel into a file of its own to compile the others for sm_${cc}`,
        );
      }),
  );
}

export function parseComputeCapability(arch: string): number | undefined {
  const m = /^(?:sm_|compute_)?(\d{2,3})$/.exec(arch.trim());
  return m ? Number(m[1]) : undefined;
}

interface Step {
  nvrtc: NB.Nvrtc;
  request: NB.CompileRequest;
}

/**
 * The whole compile as a generator that yields NVRTC requests and receives their results, so the sync
 * and async entry points share every line except the NVRTC call itself.
 */
function* compilePlan(module: IrModule, options: CompileOptions): Generator<Step, CompileOutput, NB.CompileResult> {
  const t0 = performance.now();
  const emit = options.emit ?? ["ptx"];
  const resources = !!options.resources;
  const wantCubin = emit.includes("cubin");
  const out: CompileOutput = {
    ok: false,
    cuda: { source: "", kernels: [], lineMap: [] },
    modules: [],
    resources: new Map(),
    diagnostics: [],
    fromCache: false,
    millis: { codegen: 0, nvrtc: 0, total: 0 },
  };
  const finish = (): CompileOutput => {
    out.millis.total = performance.now() - t0;
    return out;
  };

  // Code generation (no NVRTC needed).
  const groups = groupKernels(module, !!options.lineinfo);
  const sources: string[] = [];
  try {
    out.cuda = generateCuda(module);
    for (const g of groups) sources.push(groups.length === 1 ? out.cuda.source : generateCuda(module, { kernels: g.kernels }).source);
  } catch (e) {
    const span = e instanceof CudaGenError && e.span ? e.span : fallbackSpan(module);
    out.diagnostics.push(makeDiagnostic(Codes.InternalError, span, `CUDA C++ code generation failed: ${(e as Error).message}`));
    out.millis.codegen = performance.now() - t0;
    return finish();
  }
  out.millis.codegen = performance.now() - t0;
  if (module.kernels.length === 0) {
    out.ok = true;
    return finish();
  }

  // NVRTC and the target.
  const nb = require("@cudascript/native-bindings") as typeof NB;
  const load = nb.loadNvrtc(options.nvrtcPath !== undefined ? { path: options.nvrtcPath } : {});
  if (!load.ok) {
    out.nvrtcUnavailable = { code: load.error.code, message: load.error.message };
    return finish();
  }
  const nvrtc = load.nvrtc;
  const { major, minor } = nvrtc.info.version;
  out.nvrtcVersion = `${major}.${minor}`;
  const cc = parseComputeCapability(options.arch ?? "sm_80");
  if (cc === undefined || !nvrtc.supportsArch(cc)) {
    const supported = nvrtc.info.supportedArchs.map((a) => `sm_${a}`).join(", ");
    out.diagnostics.push(
      unplacedDiagnostic(module, `NVRTC ${out.nvrtcVersion} cannot compile for '${options.arch}' (it supports ${supported})`),
    );
    return finish();
  }
  const tooOld = featuresMissingFrom(module, cc);
  if (tooOld.length > 0) {
    out.diagnostics.push(...tooOld);
    return finish();
  }
  const target = resources || wantCubin ? `sm_${cc}` : `compute_${cc}`;
  const cacheDir = options.cache === false || options.transformSource ? undefined : typeof options.cache === "object" ? options.cache.dir : defaultCacheDir();
  const cache = cacheDir ? new CompileCache(cacheDir) : undefined;
  const programName = `${path.basename(module.file, path.extname(module.file))}.cu`;

  let allOk = true;
  let allCached = true;
  for (const [i, g] of groups.entries()) {
    const nvrtcOptions = nvrtcOptionsFor(target, g.options, resources);
    let source = sources[i]!;
    if (options.transformSource) source = options.transformSource(source);
    const compiled: CompiledModule = { kernels: g.kernels, nvrtcOptions, source, log: "", fromCache: false };
    const key =
      cache && g.cacheable
        ? cacheKey({ format: 1, codegen: CODEGEN_VERSION, nvrtc: out.nvrtcVersion, source, options: nvrtcOptions, cubin: wantCubin })
        : undefined;
    let entry: CacheEntry | undefined;
    if (cache && key) {
      const hit = cache.read(key);
      compiled.cacheFile = hit.file;
      if (hit.status === "hit") entry = hit.entry;
    }
    if (entry) {
      compiled.fromCache = true;
    } else {
      allCached = false;
      const result = yield { nvrtc, request: { source, name: programName, options: nvrtcOptions, wantCubin } };
      out.millis.nvrtc += result.millis;
      compiled.log = result.log;
      if (result.crashed) {
        allOk = false;
        out.diagnostics.push(crashDiagnostic(module, g.kernels, result));
        out.modules.push(compiled);
        continue;
      }
      if (!result.ok) {
        allOk = false;
        const placed = diagnosticsFromLog(result.log, module, out.cuda, programName);
        out.diagnostics.push(
          ...(placed.length ? placed : [unplacedDiagnostic(module, `NVRTC failed (${result.errorCode ?? "unknown error"}): ${result.log.trim() || "no log"}`)]),
        );
        out.modules.push(compiled);
        continue;
      }
      entry = { log: result.log };
      if (result.ptx !== undefined) entry.ptx = result.ptx;
      if (result.cubin) entry.cubin = result.cubin;
      if (cache && key) compiled.cacheFile = cache.write(key, entry) ?? compiled.cacheFile;
    }
    compiled.log = entry.log;
    if (entry.ptx !== undefined) {
      const ptx = absolutePtxFiles(entry.ptx, module);
      compiled.ptx = g.options.maxRegisters ? capRegistersInPtx(ptx, g.options.maxRegisters) : ptx;
    }
    if (wantCubin && entry.cubin) compiled.cubin = entry.cubin;
    if (resources) {
      for (const r of nb.parseKernelResources(entry.log)) {
        const k = out.cuda.kernels.find((x) => x.symbol === r.name && g.kernels.includes(x.name));
        if (!k) continue;
        out.resources.set(k.name, {
          registers: r.registers,
          sharedBytes: r.sharedBytes,
          localBytes: r.localBytes,
          constBytes: r.constBytes,
          spillStores: r.spillStores,
          spillLoads: r.spillLoads,
        });
      }
    }
    out.modules.push(compiled);
  }
  out.ok = allOk;
  out.fromCache = allOk && allCached;
  const first = out.modules[0];
  if (first?.ptx !== undefined) out.ptx = first.ptx;
  if (first?.cubin) out.cubin = first.cubin;
  return finish();
}

// NVRTC runs in a child process (native-bindings isolated.ts), so its crash is this diagnostic.
function crashDiagnostic(module: IrModule, kernels: string[], result: NB.CompileResult): Diagnostic {
  const first = module.kernels.find((k) => k.name === kernels[0]);
  const names = kernels.map((k) => `'${k}'`).join(", ");
  return makeDiagnostic(
    Codes.NvrtcCrashed,
    first?.span ?? fallbackSpan(module),
    `${result.log} (the CUDA C++ generated for ${kernels.length === 1 ? "kernel" : "kernels"} ${names}), so nothing was compiled. ` +
      (result.crashed?.signal
        ? `NVRTC runs out of stack on code nested thousands of levels deep: split long expressions into \`const\` steps, ` +
          `and move deeply nested branches into device functions (cuda.device). If the kernel is not deeply nested, please report it.`
        : `This is not caused by the kernel: reinstall cudascript, and report it if it persists.`),
  );
}

/** Compiles in NVRTC's long-lived child process (the event loop stays free during NVRTC). */
export async function compileModule(module: IrModule, options: CompileOptions = {}): Promise<CompileOutput> {
  const plan = compilePlan(module, options);
  let step = plan.next();
  while (!step.done) step = plan.next(await step.value.nvrtc.compileAsync(step.value.request));
  return step.value;
}

/** Same as compileModule, but blocks until NVRTC (in a one-shot child process) is done. */
export function compileModuleSync(module: IrModule, options: CompileOptions = {}): CompileOutput {
  const plan = compilePlan(module, options);
  let step = plan.next();
  while (!step.done) step = plan.next(step.value.nvrtc.compile(step.value.request));
  return step.value;
}

/**
 * `#line` directives name TypeScript files relative to the module (readable, and the same on every
 * machine, so cache entries are shareable), but NVRTC resolves those names against the process's
 * working directory in the PTX's `.file` table. Point each `.file` back at the real TypeScript file so
 * that `.loc` lines map to it wherever the compile ran. Every name is re-escaped for ptxas (a `"` as
 * NVRTC writes it, or a non-ASCII character, makes the PTX invalid).
 */
export function absolutePtxFiles(ptx: string, module: IrModule): string {
  const files = new Set<string>([module.file]);
  for (const f of [...module.kernels, ...module.deviceFunctions]) files.add(f.span.file);
  const byRelative = [...files].map((abs) => ({ abs, rel: path.relative(path.dirname(module.file), abs).split(path.sep).join("/") || path.basename(abs) }));
  return rewritePtxFiles(ptx, (name) => byRelative.find((f) => name === f.rel || name.endsWith("/" + f.rel))?.abs ?? name);
}
