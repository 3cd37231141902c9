/**
 * From a KernelArtifact to PTX for one GPU: the CUDA C++ is generated from the artifact's serialised
 * IR and compiled by NVRTC (compileModuleSync: disk cache, one PTX module per group of kernels with
 * the same options), or taken from PTX the esbuild plugin embedded in `artifact.cuda.ptx`.
 *
 * Target: `compute_XY` for a device of compute capability X.Y when NVRTC supports it; otherwise
 * the newest `compute_ZZ` NVRTC supports that is not above the device (the driver JIT-compiles PTX
 * forward to newer GPUs). Embedded PTX is used when its target is not above the device (the newest
 * such), without loading NVRTC. PTX for the same artifact and target is compiled once per process.
 */
import type { CompileOutput, CudaKernel, GeneratedCuda, KernelUses } from "@cudascript/compiler";
import type { KernelArtifact } from "../backend";
import type { DTypeName } from "../dtypes";
import { GpuError, GpuErrorCodes } from "./errors";
import { displayPath } from "../fault-text";
import type { RaiseSiteInfo } from "./kernel-errors";

// The compiler's compile and CUDA modules only (not its index, which loads the TypeScript front end).
type CompilerCompile = typeof import("@cudascript/compiler");
function compilerCompile(): Pick<CompilerCompile, "compileModuleSync" | "parseComputeCapability"> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require("@cudascript/compiler/dist/compile/index.js") as CompilerCompile;
}
function compilerCuda(): Pick<CompilerCompile, "generateCuda" | "kernelUses" | "GPU_FEATURES" | "raiseSites"> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require("@cudascript/compiler/dist/cuda/index.js") as CompilerCompile;
}
type NativeBindings = typeof import("@cudascript/native-bindings");
function nativeBindings(): NativeBindings {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require("@cudascript/native-bindings") as NativeBindings;
}

/** What a kernel looks like in the generated code: its PTX symbol and C parameters. */
export interface GpuKernelInfo {
  readonly name: string;
  readonly symbol: string;
  readonly params: readonly { readonly name: string; readonly kind: "scalar" | "array"; readonly dtype: DTypeName; readonly rank: number; readonly cParams: readonly string[] }[];
  readonly dynamicShared: boolean;
  /** Whether it uses console.log: its launches count toward the printf FIFO (printf-overflow.ts). */
  readonly prints: boolean;
  /** Whether it can raise (throw, console.assert): its launches are followed by a read of the error record (kernel-errors.ts). */
  readonly raises?: boolean;
  /** It reaches recursive device functions: the depth its per-thread stack is sized for (recursion-stack.ts). */
  readonly recursionDepth?: number;
  /** It calls g.sync(): a hidden workspace parameter last, launched cooperatively (gpu/cooperative.ts). */
  readonly cooperative?: boolean;
  /** Features that need a minimum compute capability, and the parameters it draws random numbers from (compiler/src/cuda/kernel-uses.ts). */
  readonly uses: KernelUses;
}

export interface PtxModule {
  readonly ptx: string;
  /** Source names of the kernels it holds. */
  readonly kernels: readonly string[];
}

export interface CompiledForDevice {
  /** "compute_80". */
  readonly target: string;
  /** True when the target is below the device's own architecture (the driver JIT-compiles forward). */
  readonly forwardJit: boolean;
  readonly modules: readonly PtxModule[];
  readonly kernels: ReadonlyMap<string, GpuKernelInfo>;
  /** Where the PTX came from. */
  readonly source: "embedded" | "nvrtc" | "cache";
  readonly nvrtcVersion?: string;
  readonly millis: number;
}

export interface CompileForDeviceOptions {
  /** Compute capability of the device as an integer (86 for 8.6). */
  readonly computeCapability: number;
  /** "sm_86", for messages. */
  readonly arch: string;
  /** The device, for messages ("GPU 0 (NVIDIA A100)"). */
  readonly deviceLabel: string;
  readonly nvrtcPath?: string;
  readonly cache?: boolean | { dir: string };
}

/** The best NVRTC target for a device: its own compute capability, else the newest supported one below it. */
export function chooseTarget(deviceCC: number, supported: readonly number[]): { cc: number; forwardJit: boolean } | undefined {
  if (supported.includes(deviceCC)) return { cc: deviceCC, forwardJit: false };
  const below = supported.filter((a) => a <= deviceCC);
  if (below.length === 0) return undefined;
  return { cc: Math.max(...below), forwardJit: true };
}

const generated = new WeakMap<KernelArtifact, ReadonlyMap<string, GpuKernelInfo>>();

/** The generated kernels (symbol, C parameters) of an artifact, from its IR. */
export function kernelInfos(artifact: KernelArtifact): ReadonlyMap<string, GpuKernelInfo> {
  let infos = generated.get(artifact);
  if (infos) return infos;
  if (!artifact.ir) {
    throw new GpuError(
      GpuErrorCodes.CompileFailed,
      `the kernels of ${artifact.file} were built without their IR (includeIr: false), so they cannot be compiled for the GPU: rebuild with the CudaScript esbuild plugin's default options, or run on the simulator (--backend simulator)`,
    );
  }
  let gen: GeneratedCuda;
  try {
    gen = compilerCuda().generateCuda(artifact.ir);
  } catch (e) {
    throw new GpuError(
      GpuErrorCodes.CompileFailed,
      `CUDA C++ code generation failed for ${artifact.file}: ${(e as Error).message}. This is a CudaScript bug: please report it; meanwhile run on the simulator (--backend simulator).`,
    );
  }
  const ir = artifact.ir;
  const uses = (name: string): KernelUses => {
    const fn = ir.kernels.find((f) => f.name === name);
    return fn ? compilerCuda().kernelUses(ir, fn) : { features: [], randomStates: [] };
  };
  infos = new Map(
    gen.kernels.map((k: CudaKernel) => [
      k.name,
      { name: k.name, symbol: k.symbol, params: k.params as GpuKernelInfo["params"], dynamicShared: k.dynamicShared, prints: k.prints, ...(k.raises ? { raises: true } : {}), ...(k.recursionDepth !== undefined ? { recursionDepth: k.recursionDepth } : {}), ...(k.cooperative ? { cooperative: true } : {}), uses: uses(k.name) },
    ]),
  );
  generated.set(artifact, infos);
  return infos;
}

/** The raises of an artifact, numbered as its generated code numbers them (compiler/src/cuda/raise.ts). */
export function raiseSitesOf(artifact: KernelArtifact): readonly RaiseSiteInfo[] {
  return artifact.ir ? compilerCuda().raiseSites(artifact.ir) : [];
}

const compiled = new WeakMap<KernelArtifact, Map<string, CompiledForDevice>>();

/** PTX of every kernel of `artifact` for a device (cached per artifact and target). */
export function compileForDevice(artifact: KernelArtifact, options: CompileForDeviceOptions): CompiledForDevice {
  const t0 = performance.now();
  const kernels = kernelInfos(artifact);
  checkComputeCapability(artifact, kernels, options);
  let perTarget = compiled.get(artifact);
  if (!perTarget) compiled.set(artifact, (perTarget = new Map()));
  const cc = options.computeCapability;

  // 1. PTX the build embedded (cudascript run does, for the GPU it will run on): the newest target
  //    not above the device — its own architecture, or older PTX the driver JIT-compiles forward.
  const embedded = bestEmbedded(artifact, cc);
  if (embedded)
    return remember(perTarget, { target: `compute_${embedded.cc}`, forwardJit: embedded.cc !== cc, modules: embedded.modules, kernels, source: "embedded", millis: performance.now() - t0 });

  // 2. NVRTC.
  const nb = nativeBindings();
  const load = nb.loadNvrtc(options.nvrtcPath !== undefined ? { path: options.nvrtcPath } : {});
  if (!load.ok) {
    throw new GpuError(
      GpuErrorCodes.CompileFailed,
      `the kernels of ${artifact.file} cannot run on ${options.deviceLabel}: the GPU backend compiles them to PTX with NVRTC (the CUDA runtime compiler), and NVRTC was not found. ` +
        `Install it (below), or run on the simulator (--backend simulator).\n${load.error.message.replace(/^CSN001: /, "")}`,
    );
  }
  const nvrtc = load.nvrtc;
  const nvrtcVersion = `${nvrtc.info.version.major}.${nvrtc.info.version.minor}`;
  const target = chooseTarget(cc, nvrtc.info.supportedArchs);
  if (!target) {
    throw new GpuError(
      GpuErrorCodes.CompileFailed,
      `NVRTC ${nvrtcVersion} cannot compile for ${options.deviceLabel} (${options.arch}): it supports ${nvrtc.info.supportedArchs.map((a) => `sm_${a}`).join(", ")}. ` +
        `Use an older CUDA toolkit's NVRTC that still supports ${options.arch} (set CUDASCRIPT_NVRTC to its libnvrtc), or run on the simulator (--backend simulator).`,
    );
  }
  const key = `compute_${target.cc}`;
  const hit = perTarget.get(key);
  if (hit) return hit;
  const out: CompileOutput = compilerCompile().compileModuleSync(artifact.ir!, {
    arch: key,
    emit: ["ptx"],
    ...(options.nvrtcPath !== undefined ? { nvrtcPath: options.nvrtcPath } : {}),
    ...(options.cache !== undefined ? { cache: options.cache } : {}),
  });
  if (!out.ok) {
    if (out.nvrtcUnavailable) throw new GpuError(GpuErrorCodes.CompileFailed, `NVRTC could not be used: ${out.nvrtcUnavailable.message}`);
    const lines = out.diagnostics.map((d) => `  ${d.span.file}:${d.span.line}:${d.span.col} ${d.code}: ${d.message}`);
    // A crash of NVRTC (CS9003) and a feature the target lacks (CS4008: a target below the device's own)
    // say themselves what to change; anything else NVRTC rejects is our bug.
    const advice = out.diagnostics.length > 0 && out.diagnostics.every((d) => d.code === "CS9003" || d.code === "CS4008")
      ? "Meanwhile the kernels run on the simulator (--backend simulator)."
      : "This is a CudaScript bug (the checker accepted the kernels): please report it; meanwhile run on the simulator (--backend simulator).";
    throw new GpuError(
      GpuErrorCodes.CompileFailed,
      `NVRTC ${nvrtcVersion} could not compile the kernels of ${artifact.file} for ${key}:\n${lines.join("\n") || "  (no diagnostics)"}\n${advice}`,
    );
  }
  const modules: PtxModule[] = out.modules.map((m) => ({ ptx: m.ptx ?? "", kernels: m.kernels }));
  return remember(perTarget, {
    target: key,
    forwardJit: target.forwardJit,
    modules,
    kernels,
    source: out.fromCache ? "cache" : "nvrtc",
    nvrtcVersion,
    millis: performance.now() - t0,
  });
}

const capability = (cc: number) => `${Math.floor(cc / 10)}.${cc % 10}`;

/**
 * CSR047 before anything is compiled: every use of a feature the device's compute capability lacks
 * (GPU_FEATURES), in any kernel of the artifact — they are compiled into one module, which NVRTC would
 * refuse (reported as a CudaScript bug) or the driver's JIT would reject whole.
 */
function checkComputeCapability(artifact: KernelArtifact, kernels: ReadonlyMap<string, GpuKernelInfo>, options: CompileForDeviceOptions): void {
  const table = compilerCuda().GPU_FEATURES;
  const lines: string[] = [];
  for (const k of kernels.values())
    for (const use of k.uses.features) {
      const need = table[use.feature].minComputeCapability;
      if (options.computeCapability >= need) continue;
      const at = `${displayPath(use.span.file)}:${use.span.line}:${use.span.col}`;
      lines.push(`  kernel '${k.name}' uses ${table[use.feature].name} at ${at}, which needs a GPU of compute capability ${capability(need)} (sm_${need}) or newer`);
    }
  if (lines.length === 0) return;
  throw new GpuError(
    GpuErrorCodes.FeatureNeedsNewerGpu,
    `the kernels of ${displayPath(artifact.file)} cannot run on ${options.deviceLabel}, whose compute capability is ${capability(options.computeCapability)}:\n${lines.join("\n")}\n` +
      `Run them on a newer GPU or on the simulator (--backend simulator). The kernels of a file are compiled together: move a kernel that needs a newer GPU into a file of its own to run the others on this one.`,
  );
}

function remember(perTarget: Map<string, CompiledForDevice>, c: CompiledForDevice): CompiledForDevice {
  perTarget.set(c.target, c);
  return c;
}

/**
 * Embedded PTX: `artifact.cuda.ptx` maps "compute_80" (and "compute_80#1", … when kernels with
 * different options made several modules) to PTX text. Which kernels a module holds is read from
 * its `.entry` names.
 */
function embeddedModules(artifact: KernelArtifact, cc: number): PtxModule[] | undefined {
  const table = artifact.cuda?.ptx;
  if (!table) return undefined;
  const texts = Object.entries(table)
    .filter(([k]) => k === `compute_${cc}` || k.startsWith(`compute_${cc}#`))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([, ptx]) => ptx);
  if (texts.length === 0) return undefined;
  const infos = kernelInfos(artifact);
  const bySymbol = new Map([...infos.values()].map((k) => [k.symbol, k.name]));
  const parse = nativeBindings().parsePtx;
  const modules = texts.map((ptx) => ({ ptx, kernels: parse(ptx).entries.map((e) => bySymbol.get(e.name)).filter((n): n is string => n !== undefined) }));
  const covered = new Set(modules.flatMap((m) => m.kernels));
  return [...infos.keys()].every((k) => covered.has(k)) ? modules : undefined;
}

function bestEmbedded(artifact: KernelArtifact, cc: number): { cc: number; modules: PtxModule[] } | undefined {
  const table = artifact.cuda?.ptx;
  if (!table) return undefined;
  const ccs = [...new Set(Object.keys(table).map((k) => /^compute_(\d+)/.exec(k)?.[1]).filter((x): x is string => !!x).map(Number))].filter((c) => c <= cc).sort((a, b) => b - a);
  for (const c of ccs) {
    const modules = embeddedModules(artifact, c);
    if (modules) return { cc: c, modules };
  }
  return undefined;
}

/** "7.8" from a PTX text's `.version` directive. */
export function ptxIsaVersion(ptx: string): string | undefined {
  const m = /(^|\s)\.version\s+(\d+\.\d+)/.exec(ptx);
  return m?.[2];
}
