/**
 * Loading an artifact's PTX into one CUDA context: one CudaModule per PTX module (the bindings cache
 * modules per context by PTX hash, and this layer caches per artifact object), a CudaFunction and an
 * argument plan (ABI) per kernel, checked against the PTX signature. A PTX JIT failure becomes CSR041
 * with the JIT log and what to do about it.
 */
import type { CudaContext, CudaFunction, CudaModule } from "@cudascript/native-bindings/cuda";
import type { KernelArtifact } from "../backend";
import { ArgPlan } from "./abi";
import { compileForDevice, ptxIsaVersion, raiseSitesOf, type CompileForDeviceOptions, type CompiledForDevice, type GpuKernelInfo } from "./compile";
import { cudaErrorText, cudaFailureOf, GpuError, GpuErrorCodes, isDriverError } from "./errors";
import { ptxCountsPrintf } from "./printf-overflow";
import { recursionStackBytes } from "./recursion-stack";
import { ptxDefinesRaiseRecord, type RaiseSiteInfo } from "./kernel-errors";

export interface LoadedKernel {
  readonly info: GpuKernelInfo;
  /** Per-thread stack bytes its recursion needs (recursion-stack.ts), when it reaches recursive functions. */
  readonly stackBytes?: number;
  readonly fn: CudaFunction;
  readonly plan: ArgPlan;
}

export interface LoadedArtifact {
  readonly artifact: KernelArtifact;
  readonly context: CudaContext;
  readonly compiled: CompiledForDevice;
  readonly modules: readonly CudaModule[];
  readonly kernels: ReadonlyMap<string, LoadedKernel>;
  /** PTX symbol → source name (for driver errors that name the symbol). */
  readonly symbols: ReadonlyMap<string, string>;
  /** JIT info logs (ptxas-style resource report) per module. */
  readonly jitInfo: readonly string[];
  /** The modules whose kernels use console.log: they define the printf byte counter (printf-overflow.ts). */
  readonly printfModules: readonly CudaModule[];
  /** The modules whose kernels can raise: they define the error record (kernel-errors.ts), whose sites are raiseSites. */
  readonly raiseModules: readonly CudaModule[];
  readonly raiseSites: readonly RaiseSiteInfo[];
}

export interface LoadOptions extends CompileForDeviceOptions {
  /** Driver version, for messages: { major, minor }. */
  readonly driverVersion?: { major: number; minor: number };
}

export function loadArtifact(context: CudaContext, artifact: KernelArtifact, options: LoadOptions): LoadedArtifact {
  const compiled = compileForDevice(artifact, options);
  const modules: CudaModule[] = [];
  const kernels = new Map<string, LoadedKernel>();
  const symbols = new Map<string, string>([...compiled.kernels.values()].map((k) => [k.symbol, k.name]));
  for (const m of compiled.modules) {
    let module: CudaModule;
    try {
      module = context.loadModule(m.ptx);
    } catch (e) {
      throw jitError(e, artifact, m.kernels, m.ptx, compiled, options, symbols);
    }
    modules.push(module);
    for (const name of m.kernels) {
      const info = compiled.kernels.get(name);
      if (!info) continue;
      const fn = module.getFunction(info.symbol);
      const plan = new ArgPlan(name, info.params);
      // A cooperative kernel's PTX has the grid barrier's workspace pointer after the ABI's parameters.
      plan.checkPtx(info.cooperative && fn.params ? fn.params.slice(0, -1) : fn.params);
      kernels.set(name, { info, fn, plan, ...(info.recursionDepth !== undefined ? { stackBytes: recursionStackBytes(info.recursionDepth, module.infoLog) } : {}) });
    }
  }
  const printfModules = modules.filter((_, i) => ptxCountsPrintf(compiled.modules[i]!.ptx));
  const raiseModules = modules.filter((_, i) => ptxDefinesRaiseRecord(compiled.modules[i]!.ptx));
  const raiseSites = raiseModules.length ? raiseSitesOf(artifact) : [];
  return { artifact, context, compiled, modules, kernels, symbols, jitInfo: modules.map((m) => m.infoLog), printfModules, raiseModules, raiseSites };
}

function jitError(
  e: unknown,
  artifact: KernelArtifact,
  kernelNames: readonly string[],
  ptx: string,
  compiled: CompiledForDevice,
  options: LoadOptions,
  symbols: ReadonlyMap<string, string>,
): unknown {
  // A sticky error here is a kernel's fault surfacing at the load, not the JIT's: the backend maps it (CSR040).
  if (!isDriverError(e) || !e.contextUsable) return e;
  const failure = cudaFailureOf(e, (s) => symbols.get(s) ?? s);
  const isa = ptxIsaVersion(ptx);
  const drv = options.driverVersion ? `CUDA ${options.driverVersion.major}.${options.driverVersion.minor}` : "this driver";
  const made = `${compiled.source === "embedded" ? "embedded at build time" : `NVRTC ${compiled.nvrtcVersion ?? "?"}`}${isa ? `, PTX ISA ${isa}` : ""}, ${compiled.target}`;
  let hint: string;
  switch (e.result) {
    case 222: // CUDA_ERROR_UNSUPPORTED_PTX_VERSION
      hint =
        `The PTX (${made}) is newer than the NVIDIA driver (${drv}) can compile: update the NVIDIA driver, ` +
        `or use an NVRTC no newer than ${drv} (set CUDASCRIPT_NVRTC to its libnvrtc.so).`;
      break;
    case 221: // CUDA_ERROR_JIT_COMPILER_NOT_FOUND
      hint = "The driver's PTX JIT compiler (libnvidia-ptxjitcompiler) is missing: reinstall the NVIDIA driver; in a container, set NVIDIA_DRIVER_CAPABILITIES=compute,utility.";
      break;
    case 223: // CUDA_ERROR_JIT_COMPILATION_DISABLED
      hint = "PTX JIT compilation is disabled (CUDA_DISABLE_PTX_JIT is set?): unset it — CudaScript loads kernels as PTX.";
      break;
    case 209: // CUDA_ERROR_NO_BINARY_FOR_GPU
      hint = `The PTX (${made}) cannot be compiled for ${options.deviceLabel} (${options.arch}).`;
      break;
    case 2: // CUDA_ERROR_OUT_OF_MEMORY
      hint = "The GPU ran out of memory while loading the module: free device arrays (.free()) first.";
      break;
    default:
      hint = `The PTX was made by ${made}; if the driver rejects it, this is likely a CudaScript bug: please report it with the JIT log; meanwhile run on the simulator (--backend simulator).`;
  }
  const log = failure.jitLog ? `\nPTX JIT log:\n${failure.jitLog}` : "\n(the JIT wrote no log)";
  return new GpuError(
    GpuErrorCodes.JitFailed,
    `the GPU driver could not load the kernels of ${artifact.file} (${kernelNames.join(", ")}) on ${options.deviceLabel}: ${cudaErrorText(failure)}. ${hint} ` +
      `${failure.contextUsable ? "The CUDA context is still usable." : "The CUDA context is no longer usable; restart the process."}${log}`,
    failure,
  );
}
