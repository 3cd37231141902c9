/**
 * `cudascript run <file.ts> [--backend auto|gpu|simulator] [--sanitize] [--uninitialized-shared warn|error] [--timeout s] [--workers n] [-- args]`
 *
 * Bundles the host program with esbuild and the CudaScript plugin (kernels compiled at build time;
 * run-build.ts), or reuses the bundle of the previous run when none of its sources changed (the build
 * cache, run-cache.ts: then neither esbuild nor the compiler is loaded), then runs the bundle: in this
 * process, as node would (no time limit, the default), or under `--timeout` in a child process so that
 * a program that never ends can be stopped: the simulator stops a kernel still running at the deadline
 * (CSR024), and the child is killed shortly after if it is still alive. Kernel faults and sanitizer
 * findings are printed as one clear message with the TypeScript location; the exit code is non-zero.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs, parseNumberOption, printUsageError, type Command } from "./args";
import { notRegularFile } from "./inputs";
import { CudaScriptError } from "../errors";
import { chooseBackend, type BackendChoice, type BackendRequest } from "../host/device";
import { probeGpu } from "../host/gpu-probe";
import { KILL_GRACE_MS, PARENT_PID_ENV, TEMP_DIR_ENV, TEMP_PREFIX } from "./run-limits";
import { RunCacheSlot, type RunBuildOptions } from "./run-cache";

/** Bundles a program (see run-build.ts); loaded only when a run builds. */
export async function buildProgram(...args: Parameters<typeof import("./run-build").buildProgram>): Promise<boolean> {
  return (require("./run-build") as typeof import("./run-build")).buildProgram(...args);
}

const USAGE = `Usage: cudascript run <file.ts> [options] [-- program arguments]

Builds the host program with its kernels and runs it.

Options:
  --backend auto|gpu|simulator   where kernels run (default auto, or CUDASCRIPT_BACKEND: the GPU when
                                 the CUDA driver loads, cuInit succeeds and a device exists, else the
                                 simulator, saying why; 'cudascript doctor' shows what is missing)
  --sanitize                     simulator: detect shared-memory races, uninitialised shared reads,
                                 divergent barriers and runaway loops (out-of-bounds is always on);
                                 runs on the simulator even where a GPU is present
  --uninitialized-shared warn|error
                                 with --sanitize: a read of shared memory no thread wrote is a
                                 warning and the run goes on (warn, the default) or stops it (error)
  --timeout <s>                  stop the program after s seconds (default 0: no limit, as node; with
                                 a limit the program runs in a child process that can be stopped)
  --workers <n>                  simulator worker threads (default: the number of cores)`;

/** About 31 years: longer is "no limit" (0). Keeps the deadline an exact whole number of milliseconds. */
const MAX_TIMEOUT_S = 1e9;
/** Each simulator worker is a thread with its own JavaScript heap: far more than any machine's cores only exhausts memory. */
const MAX_WORKERS = 1024;
/** Node's timers hold at most 2^31 - 1 ms (about 24.8 days); a longer delay fires after 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export const runCommand: Command = async (argv) => {
  const args = parseArgs(argv, ["sanitize", "help"], ["backend", "sanitize", "uninitialized-shared", "timeout", "workers", "help", "h"]);
  if ("error" in args) return printUsageError(args.error, USAGE);
  if (args.flags.has("help") || args.flags.has("h")) {
    console.log(USAGE);
    return 0;
  }
  const [file, ...programArgs] = args.positional;
  if (!file) return printUsageError("name the program to run, e.g. cudascript run examples/saxpy.ts", USAGE);
  const entry = path.resolve(file);
  const unreadable = notRegularFile(entry);
  if (unreadable) {
    // Only a regular file: esbuild would wait forever on a FIFO.
    console.error(fs.existsSync(entry) ? `cudascript: cannot run ${file}: ${unreadable}; give a TypeScript file` : `cudascript: no such file: ${file}`);
    return 2;
  }
  const backendFlag = args.flags.get("backend") as string | undefined;
  const backend = (backendFlag ?? (process.env.CUDASCRIPT_BACKEND || "auto")) as BackendRequest;
  if (!["auto", "gpu", "simulator"].includes(backend))
    return printUsageError(backendFlag !== undefined ? `--backend takes auto, gpu or simulator, not '${backend}'` : `CUDASCRIPT_BACKEND=${backend} is not a backend: use auto, gpu or simulator`, USAGE);
  const timeoutText = (args.flags.get("timeout") as string | undefined) ?? "0";
  const timeout = parseNumberOption("timeout", timeoutText, { integer: false, min: 0, max: MAX_TIMEOUT_S, unit: "of seconds (0 = no limit)" });
  if (typeof timeout !== "number") return printUsageError(timeout.error, USAGE);
  const workersText = args.flags.get("workers") as string | undefined;
  const workers = workersText === undefined ? undefined : parseNumberOption("workers", workersText, { integer: true, min: 1, max: MAX_WORKERS });
  if (typeof workers === "object") return printUsageError(workers.error, USAGE);
  const sanitize = args.flags.has("sanitize");
  if (sanitize && backend === "gpu") return printUsageError("--sanitize runs kernels on the simulator; it cannot be combined with --backend gpu", USAGE);
  const uninit = args.flags.get("uninitialized-shared") as string | undefined;
  if (uninit !== undefined && uninit !== "warn" && uninit !== "error") return printUsageError(`--uninitialized-shared takes warn or error, not '${uninit}'`, USAGE);
  if (uninit !== undefined && !sanitize) return printUsageError("--uninitialized-shared only applies with --sanitize (without it, uninitialised reads are not checked)", USAGE);

  // 1. Which backend (fails early and clearly for --backend gpu without a GPU). The decision is made
  //    here, printed once with its reason, and passed to the program's process.
  let choice: BackendChoice;
  try {
    choice = chooseBackend(sanitize ? "simulator" : backend);
  } catch (e) {
    if (e instanceof CudaScriptError) {
      console.error(`cudascript: --backend ${backend}: ${e.message}`);
      return 1;
    }
    throw e;
  }
  const description = sanitize && backend === "auto" ? "simulator (--sanitize)" : choice.description;
  const why = choice.reason ? ` — ${choice.reason}; 'npx cudascript doctor' shows how to fix it` : "";

  // 2. Build, or reuse the previous run's build.
  // On the GPU, the kernels' PTX for it is compiled during the build and embedded in the bundle.
  // chooseBackend decided from the same cached probe.
  const probe = choice.kind === "gpu" ? probeGpu() : undefined;
  const gpuArchs = probe?.ok ? [(probe.devices[Number(process.env.CUDASCRIPT_DEVICE || 0)] ?? probe.devices[0]!).arch] : undefined;
  const program = await cachedBuild(entry, gpuArchs ? { cudaArchs: gpuArchs } : {});
  if (!program) return 1;
  const outDir = program.tempDir;
  console.error(`cudascript: running ${path.relative(process.cwd(), entry) || entry} on the ${description}${sanitize ? ", sanitizer on" : ""}${why}`);
  // What the program's runtime reads when it starts its backend: the decision made above.
  const settings: NodeJS.ProcessEnv = {
    CUDASCRIPT_BACKEND: choice.kind,
    CUDASCRIPT_SANITIZE: sanitize ? "1" : "0",
    CUDASCRIPT_RUN: "1",
    ...(workers !== undefined ? { CUDASCRIPT_WORKERS: String(workers) } : {}),
    ...(uninit ? { CUDASCRIPT_UNINITIALIZED_SHARED: uninit } : {}),
  };
  if (timeout === 0) return runHere(program.bundle, programArgs, settings, outDir);
  return runInChild(program.bundle, programArgs, settings, outDir, { entry, timeout, timeoutText });
};

/**
 * No time limit: the program runs in this process, as `node` would run it (one process start, not
 * two). The program owns the exit code from here: undefined tells main() to leave it alone.
 */
function runHere(bundle: string, programArgs: string[], settings: NodeJS.ProcessEnv, outDir: string | undefined): undefined {
  Object.assign(process.env, settings);
  delete process.env.CUDASCRIPT_DEADLINE;
  delete process.env.CUDASCRIPT_DEADLINE_LABEL;
  if (outDir) process.on("exit", () => fs.rmSync(outDir, { recursive: true, force: true }));
  // As `node --enable-source-maps`: the program's stack traces name its TypeScript lines.
  process.setSourceMapsEnabled(true);
  (require("./run-program") as typeof import("./run-program")).runProgram(bundle, programArgs);
  return undefined;
}

/**
 * Under --timeout: the program runs in a child process so that it can be stopped whatever it does: the
 * simulator stops a kernel still running at the deadline (CSR024), and the child is killed shortly
 * after if it is still alive (exit code 124).
 */
async function runInChild(
  bundle: string,
  programArgs: string[],
  settings: NodeJS.ProcessEnv,
  outDir: string | undefined,
  limit: { entry: string; timeout: number; timeoutText: string },
): Promise<number> {
  try {
    // Whole milliseconds: the child reads CUDASCRIPT_DEADLINE as digits.
    const deadline = Math.ceil(Date.now() + limit.timeout * 1000);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...settings,
      CUDASCRIPT_DEADLINE: String(deadline),
      CUDASCRIPT_DEADLINE_LABEL: `--timeout ${limit.timeoutText} s`,
      // The child's watchdog (run-watchdog.ts) stops the program if this process dies, and removes outDir.
      [PARENT_PID_ENV]: String(process.pid),
    };
    if (outDir) env[TEMP_DIR_ENV] = outDir;
    else delete env[TEMP_DIR_ENV];
    const child = spawn(process.execPath, ["--enable-source-maps", path.join(__dirname, "run-child.js"), bundle, ...programArgs], { stdio: "inherit", env });
    let killedForTimeout = false;
    const timer = timerAt(deadline + KILL_GRACE_MS, () => {
      killedForTimeout = true;
      child.kill("SIGKILL");
    });
    const forward = (sig: NodeJS.Signals) => () => child.kill(sig);
    const onInt = forward("SIGINT"), onTerm = forward("SIGTERM");
    process.on("SIGINT", onInt);
    process.on("SIGTERM", onTerm);
    const code = await new Promise<number>((resolve) => {
      child.on("exit", (c, signal) => resolve(c ?? (signal ? 128 + (os.constants.signals[signal] ?? 1) : 1)));
      child.on("error", (e) => {
        console.error(`cudascript: could not start the program: ${e.message}`);
        resolve(1);
      });
    });
    timer.cancel();
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
    if (killedForTimeout) {
      const entry = path.relative(process.cwd(), limit.entry) || limit.entry;
      console.error(`cudascript: ${entry} was stopped: it ran longer than --timeout ${limit.timeoutText} s. A kernel or the host program may never end; --sanitize shows a runaway loop's line.`);
      return 124;
    }
    return code;
  } finally {
    if (outDir) fs.rmSync(outDir, { recursive: true, force: true });
  }
}

/**
 * The program's bundle: the cached one when nothing it was built from changed; else a new build,
 * stored in the cache for the next run, or, when the cache folder cannot be written, in a temporary
 * folder removed after the run. Undefined when the build failed (its errors are printed).
 */
async function cachedBuild(entry: string, options: RunBuildOptions): Promise<{ bundle: string; tempDir?: string } | undefined> {
  const slot = new RunCacheSlot(entry, options);
  const found = slot.lookup();
  if (found.hit) {
    process.stderr.write(process.stderr.isTTY ? found.warnings.color : found.warnings.plain);
    return { bundle: found.bundle };
  }
  const { bundleProgram } = require("./run-build") as typeof import("./run-build");
  removeAbandonedTempDirs();
  if (slot.writable()) {
    const built = await bundleProgram(entry, slot.outfile, options);
    if (!built) return undefined;
    const stored = slot.store(built);
    if (stored) return { bundle: stored.bundle };
    // Rare: the folder took no file (full disk, quota). The bundle's source map is relative to the
    // slot, so it is built again for the temporary folder rather than copied there.
  }
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), `${TEMP_PREFIX}${process.pid}-`));
  const bundle = path.join(tempDir, `${path.basename(entry).replace(/\.[^.]+$/, "")}.mjs`);
  const built = await bundleProgram(entry, bundle, options);
  if (!built) {
    fs.rmSync(tempDir, { recursive: true, force: true });
    return undefined;
  }
  fs.writeFileSync(bundle, built.contents);
  return { bundle, tempDir };
}

/** Calls `fn` at the absolute time `at` (ms since epoch), however far away: Node's timers overflow past MAX_TIMER_MS. */
function timerAt(at: number, fn: () => void): { cancel(): void } {
  let handle: NodeJS.Timeout;
  const arm = () => {
    const left = at - Date.now();
    handle = left > MAX_TIMER_MS ? setTimeout(arm, MAX_TIMER_MS) : setTimeout(fn, Math.max(0, left));
  };
  arm();
  return { cancel: () => clearTimeout(handle) };
}

/**
 * Removes the temporary folders of earlier runs whose `cudascript run` process is gone (killed before
 * it could clean up, and whose child could not either). The owner's pid is in the folder's name.
 */
function removeAbandonedTempDirs(): void {
  const tmp = os.tmpdir();
  let names: string[];
  try {
    names = fs.readdirSync(tmp);
  } catch {
    return;
  }
  for (const name of names) {
    const m = new RegExp(`^${TEMP_PREFIX}(\\d+)-`).exec(name);
    if (!m || isAlive(Number(m[1]))) continue;
    try {
      fs.rmSync(path.join(tmp, name), { recursive: true, force: true });
    } catch {
      // someone else's folder we may not remove: leave it
    }
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"; // exists, owned by someone else
  }
}
