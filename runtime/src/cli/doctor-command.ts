/**
 * `cudascript doctor [--json]` (like `numba -s`): what CudaScript finds on this machine — the CUDA
 * driver (version, or why it is missing), the devices with compute capability and memory, NVRTC
 * (version, supported architectures, the PTX target per device), a PTX JIT check (NVRTC's PTX
 * loaded by the driver: catches an NVRTC newer than the driver), the compile cache, the simulator,
 * and which backend `--backend auto` picks. Every missing part comes with its fix.
 *
 * Exit code 0 when kernels can run (the simulator always can, unless something is broken), 1 when
 * the simulator itself cannot, 2 for usage errors.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { CudaDeviceInfo, CudaProbe } from "@cudascript/native-bindings/cuda";
import { printUsageError, startCommand, type Command } from "./args";
import { chooseBackend, withoutSimulatorNote } from "../host/device";
import { probeGpu, shortReason } from "../host/gpu-probe";

const USAGE = `Usage: cudascript doctor [--json]

Shows the CUDA driver, GPUs, NVRTC, compile cache and simulator CudaScript finds, which backend
'--backend auto' picks, and how to fix what is missing.
  --json      the same as JSON
  -h, --help  this text
  --version   the version of cudascript`;

export interface DoctorProblem {
  readonly part: "native" | "driver" | "devices" | "nvrtc" | "jit" | "cache" | "simulator";
  readonly problem: string;
  readonly fix: string;
}

export interface DoctorDevice {
  readonly ordinal: number;
  readonly name: string;
  readonly computeCapability: string;
  readonly arch: string;
  readonly totalMemoryBytes: number;
  readonly multiprocessors: number;
  readonly maxThreadsPerBlock: number;
  readonly sharedMemoryPerBlock: number;
  readonly sharedMemoryPerBlockOptin: number;
  readonly clockMHz: number;
  readonly kernelExecTimeout: boolean;
  readonly pciBusId: string;
  /** What NVRTC compiles for it: "compute_86", or undefined without NVRTC. */
  readonly ptxTarget?: string;
  readonly forwardJit?: boolean;
}

export interface DoctorReport {
  readonly cudascript: { readonly version: string; readonly node: string; readonly platform: string; readonly arch: string };
  readonly driver: { readonly ok: boolean; readonly path?: string; readonly version?: string; readonly testDouble?: boolean; readonly code?: string; readonly message?: string };
  readonly devices: readonly DoctorDevice[];
  readonly nvrtc: { readonly ok: boolean; readonly path?: string; readonly version?: string; readonly supportedArchs?: readonly string[]; readonly reason?: string; readonly message?: string };
  readonly jit?: { readonly ok: boolean; readonly device: number; readonly target: string; readonly ptxIsa?: string; readonly millis?: number; readonly message?: string };
  readonly cache: { readonly dir: string; readonly exists: boolean; readonly writable: boolean; readonly entries: number; readonly bytes: number };
  readonly simulator: { readonly ok: boolean; readonly workers: number; readonly cores: number; readonly workerScript: string; readonly workerScriptFound: boolean; readonly message?: string };
  readonly backend: { readonly env?: string; readonly auto: "gpu" | "simulator"; readonly description: string; readonly reason?: string };
  /** NCCL for dist's collectives on GPUs (informational: collectives work without it, over TCP). */
  readonly nccl: { readonly ok: boolean; readonly path?: string; readonly version?: string; readonly reason?: string };
  readonly problems: readonly DoctorProblem[];
}

export const doctorCommand: Command = async (argv) => {
  const args = startCommand(argv, { json: { type: "boolean" } }, USAGE);
  if (typeof args === "number") return args;
  if (args.positional.length) return printUsageError(`unexpected argument '${args.positional[0]}'`, USAGE);
  const report = doctorReport();
  if (args.flags.has("json")) console.log(JSON.stringify(report, null, 2));
  else process.stdout.write(formatDoctor(report));
  return report.simulator.ok ? 0 : 1;
};

// ───────────────────────── gathering ─────────────────────────

function ncclInfo(): DoctorReport["nccl"] {
  const { probeNccl } = require("../distributed/nccl") as typeof import("../distributed/nccl");
  const p = probeNccl();
  return p.ok ? { ok: true, path: p.path, version: p.version } : { ok: false, reason: p.reason };
}

type NativeBindings = typeof import("@cudascript/native-bindings");

export function deviceRow(d: CudaDeviceInfo, supportedArchs?: readonly number[]): DoctorDevice {
  const cc = d.computeCapability.major * 10 + d.computeCapability.minor;
  let target: { cc: number; forwardJit: boolean } | undefined;
  if (supportedArchs) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { chooseTarget } = require("../gpu/compile") as typeof import("../gpu/compile");
    target = chooseTarget(cc, supportedArchs);
  }
  const hex = (n: number, w: number) => n.toString(16).padStart(w, "0");
  return {
    ordinal: d.ordinal,
    name: d.name,
    computeCapability: `${d.computeCapability.major}.${d.computeCapability.minor}`,
    arch: d.arch,
    totalMemoryBytes: d.totalMemoryBytes,
    multiprocessors: d.multiprocessorCount,
    maxThreadsPerBlock: d.maxThreadsPerBlock,
    sharedMemoryPerBlock: d.sharedMemoryPerBlock,
    sharedMemoryPerBlockOptin: d.sharedMemoryPerBlockOptin,
    clockMHz: Math.round(d.clockRateKHz / 1000),
    kernelExecTimeout: d.kernelExecTimeout,
    pciBusId: `${hex(d.pci.domain, 4)}:${hex(d.pci.bus, 2)}:${hex(d.pci.device, 2)}.0`,
    ...(target ? { ptxTarget: `compute_${target.cc}`, forwardJit: target.forwardJit } : {}),
  };
}

/**
 * The native bindings load koffi's binary (`@koromix/koffi-<platform>`) when imported; where it is
 * missing (a copy packed for another platform, an install with --omit=optional) they throw, and with
 * them go the driver and NVRTC: one problem that says so, instead of a crash.
 */
function nativeBindingsFailure(): DoctorProblem | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    require("@cudascript/native-bindings/cuda");
    return undefined;
  } catch (e) {
    const why = String((e as Error).message).split("\n")[0];
    return {
      part: "native",
      problem: `CudaScript's native bindings do not load on ${process.platform}-${process.arch} (${why}): no GPU, no NVRTC; kernels run on the simulator`,
      fix: "install cudascript with npm on this machine (npm install --save-dev cudascript, without --omit=optional): it installs koffi's binary for this platform",
    };
  }
}

export function doctorReport(): DoctorReport {
  const problems: DoctorProblem[] = [];
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const version = (require("../../package.json") as { version: string }).version;

  // Driver and devices.
  const probe: CudaProbe = probeGpu();
  let driver: DoctorReport["driver"];
  let devicesInfo: CudaDeviceInfo[] = [];
  let unloadable: DoctorProblem | undefined;
  if (probe.ok) {
    driver = { ok: true, path: probe.driver.info.path, version: `${probe.driverVersion.major}.${probe.driverVersion.minor}`, testDouble: probe.driver.info.isTestDouble };
    devicesInfo = probe.devices;
  } else {
    const d = probe.driver;
    let v: string | undefined;
    if (d) {
      const r = d.version();
      if (r.result === 0) v = `${Math.floor(r.version / 1000)}.${Math.floor((r.version % 1000) / 10)}`;
    }
    driver = { ok: probe.code !== "CSD001", ...(d ? { path: d.info.path, testDouble: d.info.isTestDouble } : {}), ...(v ? { version: v } : {}), code: probe.code, message: shortReason(probe) };
    const detail = withoutSimulatorNote(probe.message);
    unloadable = probe.code === "CSD001" ? nativeBindingsFailure() : undefined;
    if (unloadable) problems.push(unloadable);
    else if (probe.code === "CSD001") {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const hint = (require("@cudascript/native-bindings/cuda") as typeof import("@cudascript/native-bindings/cuda")).CUDA_DRIVER_INSTALL_HINT;
      problems.push({ part: "driver", problem: `no CUDA driver found (${shortReason(probe)})`, fix: hint });
    } else problems.push({ part: "devices", problem: shortReason(probe), fix: detail });
  }

  // NVRTC.
  let nvrtc: DoctorReport["nvrtc"];
  let supported: number[] | undefined;
  let nb: NativeBindings | undefined;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    nb = require("@cudascript/native-bindings") as NativeBindings;
    const load = nb.loadNvrtc();
    if (load.ok) {
      const i = load.nvrtc.info;
      supported = i.supportedArchs;
      nvrtc = { ok: true, path: i.path, version: `${i.version.major}.${i.version.minor}`, supportedArchs: i.supportedArchs.map((a) => `sm_${a}`), reason: i.reason };
    } else {
      nvrtc = { ok: false, message: load.error.message.split("\n")[0]!.replace(/^CSN001: /, "") };
      const explicit = process.env.CUDASCRIPT_NVRTC;
      const consequence = `kernels cannot be compiled to PTX${probe.ok ? ", so they cannot run on the GPU" : " (needed for the GPU backend, `cudascript compile` and register counts)"}`;
      if (explicit && explicit !== "off") {
        // The user chose a library: say that one is the problem, not that NVRTC is missing.
        const why = load.error.attempts.filter((a) => a.reason === "environment variable CUDASCRIPT_NVRTC").map((a) => `${a.place}: ${a.failure}`).join("; ");
        problems.push({
          part: "nvrtc",
          problem: `CUDASCRIPT_NVRTC=${explicit} is not a working NVRTC library (${why}): ${consequence}`,
          fix: "point CUDASCRIPT_NVRTC at a libnvrtc.so (or the folder that holds one), or unset it to let CudaScript find NVRTC itself",
        });
      } else {
        problems.push({ part: "nvrtc", problem: `NVRTC not found: ${consequence}`, fix: nb.NVRTC_INSTALL_HINT });
      }
    }
  } catch (e) {
    nvrtc = { ok: false, message: (e as Error).message.split("\n")[0]! };
    // the native bindings themselves do not load: already reported once, with its fix
    if (!unloadable) problems.push({ part: "nvrtc", problem: `NVRTC could not be loaded: ${(e as Error).message}`, fix: "reinstall cudascript (npm ci)" });
  }
  const devices = devicesInfo.map((d) => deviceRow(d, supported));
  for (const d of devices) {
    if (supported && !d.ptxTarget)
      problems.push({
        part: "nvrtc",
        problem: `NVRTC ${nvrtc.version} cannot compile for GPU ${d.ordinal} (${d.arch}): its oldest target is sm_${supported[0]}`,
        fix: `use an older CUDA toolkit's NVRTC that supports ${d.arch} (set CUDASCRIPT_NVRTC to its libnvrtc.so)`,
      });
  }

  // PTX JIT check: NVRTC's PTX loaded by the driver on device 0.
  let jit: DoctorReport["jit"];
  const d0 = devices[0];
  if (probe.ok && nb && nvrtc.ok && d0?.ptxTarget) jit = jitCheck(probe, nb, d0, problems);

  // Cache.
  const cache = cacheInfo(problems);

  // Simulator.
  const simulator = simulatorInfo(problems);

  // Backend.
  const env = process.env.CUDASCRIPT_BACKEND || undefined;
  const auto = chooseBackend("auto");
  const backend = { ...(env ? { env } : {}), auto: auto.kind, description: auto.description, ...(auto.reason ? { reason: auto.reason } : {}) };

  return {
    cudascript: { version, node: process.version, platform: process.platform, arch: process.arch },
    driver,
    devices,
    nvrtc,
    ...(jit ? { jit } : {}),
    cache,
    simulator,
    backend,
    nccl: ncclInfo(),
    problems,
  };
}

function jitCheck(probe: Extract<CudaProbe, { ok: true }>, nb: NativeBindings, d: DoctorDevice, problems: DoctorProblem[]): NonNullable<DoctorReport["jit"]> {
  const target = d.ptxTarget!;
  const load = nb.loadNvrtc();
  if (!load.ok) return { ok: false, device: d.ordinal, target, message: "NVRTC not found" };
  const source = 'extern "C" __global__ void cudascript_doctor(int* p) { p[threadIdx.x] = (int)threadIdx.x; }\n';
  const compiled = load.nvrtc.compile({ source, name: "doctor.cu", options: [`--gpu-architecture=${target}`] });
  if (!compiled.ok || compiled.ptx === undefined) {
    const message = `NVRTC could not compile a trivial kernel for ${target}: ${compiled.errorCode ?? ""} ${compiled.log.trim()}`.trim();
    problems.push({ part: "jit", problem: message, fix: "check the NVRTC installation (its libnvrtc-builtins must be next to it, same version)" });
    return { ok: false, device: d.ordinal, target, message };
  }
  const isa = /\.version\s+(\d+\.\d+)/.exec(compiled.ptx)?.[1];
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const cu = require("@cudascript/native-bindings/cuda") as typeof import("@cudascript/native-bindings/cuda");
  let ctx: import("@cudascript/native-bindings/cuda").CudaContext | undefined;
  const t0 = performance.now();
  try {
    ctx = cu.CudaContext.retain(probe.driver, d.ordinal);
  } catch (e) {
    const message = `could not create a CUDA context on GPU ${d.ordinal}: ${(e as Error).message.split("\n")[0]}`;
    problems.push({
      part: "jit",
      problem: message,
      fix: "check `nvidia-smi`: the GPU may be in exclusive-process compute mode and used by another process, out of memory, or in a failed state",
    });
    return { ok: false, device: d.ordinal, target, message };
  }
  try {
    const module = ctx.loadModule(compiled.ptx);
    module.getFunction("cudascript_doctor");
    module.unload();
    return { ok: true, device: d.ordinal, target, ...(isa ? { ptxIsa: isa } : {}), millis: performance.now() - t0 };
  } catch (e) {
    const err = e as Error & { code?: string; result?: number; jitLog?: string };
    const message = `the driver (CUDA ${probe.driverVersion.major}.${probe.driverVersion.minor}) could not load NVRTC's PTX (ISA ${isa ?? "?"}, ${target}): ${err.code ?? ""} ${err.message.split("\n")[0]}`;
    const fix =
      err.result === 222
        ? `NVRTC is newer than the driver: update the NVIDIA driver, or use an NVRTC no newer than CUDA ${probe.driverVersion.major}.${probe.driverVersion.minor} (set CUDASCRIPT_NVRTC)`
        : `see the JIT log:\n${err.jitLog ?? "(none)"}`;
    problems.push({ part: "jit", problem: message, fix });
    return { ok: false, device: d.ordinal, target, ...(isa ? { ptxIsa: isa } : {}), message };
  } finally {
    try {
      ctx?.release();
    } catch {
      // the check must not fail the report
    }
  }
}

function cacheInfo(problems: DoctorProblem[]): DoctorReport["cache"] {
  let dir: string;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    dir = (require("@cudascript/compiler/dist/compile/cache.js") as typeof import("@cudascript/compiler")).defaultCacheDir();
  } catch {
    dir = process.env.CUDASCRIPT_CACHE_DIR ? path.resolve(process.env.CUDASCRIPT_CACHE_DIR) : path.join(os.homedir(), ".cache", "cudascript");
  }
  const exists = fs.existsSync(dir);
  let writable = false;
  let probeDir = dir;
  while (!fs.existsSync(probeDir) && path.dirname(probeDir) !== probeDir) probeDir = path.dirname(probeDir);
  try {
    fs.accessSync(probeDir, fs.constants.W_OK);
    writable = true;
  } catch {
    problems.push({ part: "cache", problem: `the compile cache folder ${dir} is not writable: every GPU run recompiles its kernels`, fix: "set CUDASCRIPT_CACHE_DIR to a writable folder" });
  }
  let entries = 0;
  let bytes = 0;
  const walk = (d: string, depth: number) => {
    if (depth > 3) return;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p, depth + 1);
      else if (e.isFile()) {
        entries++;
        bytes += fs.statSync(p).size;
      }
    }
  };
  try {
    if (exists) walk(dir, 0);
  } catch {
    // unreadable entries: counted as far as possible
  }
  return { dir, exists, writable, entries, bytes };
}

function simulatorInfo(problems: DoctorProblem[]): DoctorReport["simulator"] {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const sim = require("../simulator/backend") as typeof import("../simulator/backend");
  const workerScript = sim.SIMULATOR_WORKER_FILE;
  const workerScriptFound = fs.existsSync(workerScript);
  const cores = typeof os.availableParallelism === "function" ? os.availableParallelism() : os.cpus().length;
  let ok = true;
  let message: string | undefined;
  let workers = cores;
  try {
    workers = sim.simulatorOptionsFromEnv().workers;
    if (typeof SharedArrayBuffer !== "function") throw new Error("this JavaScript runtime has no SharedArrayBuffer");
    const b = new sim.SimulatorBackend("simulator (doctor)", { workers: 1 });
    try {
      const buf = b.alloc(16);
      b.copyHtoD(buf, 0, new Int32Array([1, 2, 3, 4]));
      const back = new Int32Array(4);
      b.copyDtoH(back, buf, 0);
      if (back.join() !== "1,2,3,4") throw new Error("a copy through simulator memory did not round-trip");
    } finally {
      b.dispose();
    }
  } catch (e) {
    ok = false;
    message = (e as Error).message;
    // A bad setting (CSR018) is fixed by the setting, not by reinstalling.
    const fix = (e as { code?: string }).code === "CSR018" ? "set CUDASCRIPT_SIM_MEMORY to a size such as 8GiB, or unset it" : "use Node.js 20 or newer, and reinstall cudascript (npm ci)";
    problems.push({ part: "simulator", problem: `the simulator cannot run: ${message}`, fix });
  }
  if (!workerScriptFound)
    problems.push({ part: "simulator", problem: `the simulator's worker script is missing (${workerScript}): large launches run on one thread`, fix: "rebuild or reinstall cudascript (npx tsc -b / npm ci)" });
  return { ok, workers, cores, workerScript, workerScriptFound, ...(message ? { message } : {}) };
}

// ───────────────────────── text ─────────────────────────

export function formatBytes(n: number): string {
  if (n >= 1 << 30) return `${(n / (1 << 30)).toFixed(1)} GiB`;
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(1)} MiB`;
  if (n >= 1 << 10) return `${(n / 1024).toFixed(1)} KiB`;
  return `${n} B`;
}

export function formatDevice(d: DoctorDevice): string[] {
  return [
    `[${d.ordinal}] ${d.name}`,
    `    compute capability  ${d.computeCapability} (${d.arch})`,
    `    memory              ${formatBytes(d.totalMemoryBytes)}`,
    `    multiprocessors     ${d.multiprocessors} × up to ${d.maxThreadsPerBlock} threads per block, ${d.clockMHz} MHz`,
    `    shared memory       ${formatBytes(d.sharedMemoryPerBlock)} per block (${formatBytes(d.sharedMemoryPerBlockOptin)} opt-in)`,
    `    PCI bus id          ${d.pciBusId}${d.kernelExecTimeout ? "   (display watchdog: long kernels time out)" : ""}`,
    ...(d.ptxTarget ? [`    kernels compile to  ${d.ptxTarget} PTX${d.forwardJit ? ` (the driver JIT-compiles it for ${d.arch})` : ""}`] : []),
  ];
}

export function formatDoctor(r: DoctorReport): string {
  const out: string[] = [];
  const kv = (k: string, v: string) => out.push(`  ${k.padEnd(20)}${v}`);
  out.push(`CudaScript ${r.cudascript.version} — Node.js ${r.cudascript.node}, ${r.cudascript.platform} ${r.cudascript.arch}`, "");

  out.push("CUDA driver");
  if (r.driver.path) kv("library", `${r.driver.path}${r.driver.testDouble ? "  (the libcuda TEST DOUBLE, not NVIDIA's driver)" : ""}`);
  if (r.driver.version) kv("version", `CUDA ${r.driver.version}`);
  if (!r.driver.path) kv("status", `not found (${r.driver.message})`);
  else if (r.driver.code) kv("status", `${r.driver.code}: ${r.driver.message}`);
  else kv("status", "ok");
  out.push("");

  out.push(`CUDA devices (${r.devices.length})`);
  if (r.devices.length === 0) out.push("  none: kernels run on the simulator");
  for (const d of r.devices) out.push(...formatDevice(d).map((l) => `  ${l}`));
  out.push("");

  out.push("NVRTC (CUDA C++ → PTX)");
  if (r.nvrtc.ok) {
    kv("library", r.nvrtc.path ?? "?");
    kv("version", `${r.nvrtc.version} (${r.nvrtc.reason})`);
    kv("architectures", (r.nvrtc.supportedArchs ?? []).join(" "));
  } else kv("status", `not found (${r.nvrtc.message})`);
  if (r.jit) kv("PTX JIT check", r.jit.ok ? `ok: ${r.jit.target} PTX (ISA ${r.jit.ptxIsa ?? "?"}) loads on GPU ${r.jit.device} (${r.jit.millis?.toFixed(1)} ms)` : `FAILED: ${r.jit.message}`);
  out.push("");

  out.push("Compile cache");
  kv("folder", `${r.cache.dir}${r.cache.exists ? "" : " (not created yet)"}${r.cache.writable ? "" : " — NOT WRITABLE"}`);
  kv("entries", `${r.cache.entries} (${formatBytes(r.cache.bytes)})`);
  out.push("");

  out.push("Simulator");
  kv("status", r.simulator.ok ? "ok" : `BROKEN: ${r.simulator.message}`);
  kv("workers", `${r.simulator.workers} (${r.simulator.cores} cores; CUDASCRIPT_WORKERS or --workers to change)`);
  kv("worker script", `${r.simulator.workerScript}${r.simulator.workerScriptFound ? "" : " — MISSING"}`);
  out.push("");

  out.push("Collectives (dist, cudascript launch)");
  kv("NCCL", r.nccl.ok ? `${r.nccl.path} (NCCL ${r.nccl.version})` : `not found (${r.nccl.reason})`);
  kv("transport", "TCP between the ranks, staged through the host (docs/distributed.md)");
  out.push("");

  out.push("Backend");
  if (r.backend.env) kv("CUDASCRIPT_BACKEND", r.backend.env);
  kv("--backend auto", `${r.backend.description}${r.backend.reason ? ` — ${r.backend.reason}` : ""}`);
  out.push("");

  if (r.problems.length === 0) out.push("Everything CudaScript can use was found.");
  else {
    out.push(`What is missing, and how to fix it (${r.problems.length}):`);
    r.problems.forEach((p, i) => {
      out.push(`  ${i + 1}. [${p.part}] ${p.problem}`);
      out.push(...p.fix.split("\n").map((l, j) => `     ${j === 0 ? "fix: " : "     "}${l}`));
    });
  }
  if (!r.simulator.ok) out.push("Kernels cannot run here until the simulator problem above is fixed.");
  else if (r.backend.auto === "gpu" && (r.jit?.ok === false || !r.nvrtc.ok))
    out.push(`--backend auto picks the ${r.backend.description}, but kernels cannot be loaded there until the ${r.nvrtc.ok ? "PTX JIT" : "NVRTC"} problem above is fixed; meanwhile use --backend simulator.`);
  else out.push(`Kernels run on the ${r.backend.description}.`);
  return out.join("\n") + "\n";
}
