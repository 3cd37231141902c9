/**
 * `cudascript run [--backend auto|gpu|simulator] [--sanitize] [--uninitialized-shared warn|error] [--timeout s] [--workers n] <file.ts> [program args...]`
 * (the command line is read by run-options.ts)
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
import type { Command } from "./args";
import { parseRunOptions } from "./run-options";
import { useColor } from "./color";
import { CudaScriptError } from "../errors";
import { chooseBackend, noteSimulatorFallback, type BackendChoice } from "../host/device";
import { warningsSetting, type WarningsSetting } from "../host/warnings-setting";
import { probeGpu } from "../host/gpu-probe";
import { KILL_GRACE_MS, PARENT_PID_ENV, TEMP_DIR_ENV, TEMP_PREFIX } from "./run-limits";
import { RunCacheSlot, type RunBuildOptions } from "./run-cache";

/** Bundles a program (see run-build.ts); loaded only when a run builds. */
export async function buildProgram(...args: Parameters<typeof import("./run-build").buildProgram>): Promise<boolean> {
  return (require("./run-build") as typeof import("./run-build")).buildProgram(...args);
}

/** Node's timers hold at most 2^31 - 1 ms (about 24.8 days); a longer delay fires after 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export const runCommand: Command = async (argv) => {
  const options = parseRunOptions(argv);
  if (typeof options === "number") return options;
  const { entry, programArgs, backend, timeout, timeoutText, workers, sanitize } = options;
  const uninit = options.uninitializedShared;

  // 1. Which backend (fails early and clearly for --backend gpu without a GPU). The decision is made
  //    here, printed once with its reason, and passed to the program's process.
  let choice: BackendChoice;
  let warnings: WarningsSetting;
  try {
    warnings = warningsSetting();
  } catch (e) {
    if (e instanceof CudaScriptError) {
      console.error(`cudascript: error ${e.message}`);
      return 1;
    }
    throw e;
  }
  try {
    choice = chooseBackend(sanitize || options.uninitialized === "poison" ? "simulator" : backend);
  } catch (e) {
    if (e instanceof CudaScriptError) {
      console.error(`cudascript: --backend ${backend}: ${e.message}`);
      return 1;
    }
    throw e;
  }
  const description = sanitize && backend === "auto" ? "simulator (--sanitize)" : choice.description;

  // 2. Build, or reuse the previous run's build.
  // On the GPU, the kernels' PTX for it is compiled during the build and embedded in the bundle.
  // chooseBackend decided from the same cached probe.
  const probe = choice.kind === "gpu" ? probeGpu() : undefined;
  const gpuArchs = probe?.ok ? [(probe.devices[Number(process.env.CUDASCRIPT_DEVICE || 0)] ?? probe.devices[0]!).arch] : undefined;
  const program = await cachedBuild(entry, { ...(gpuArchs ? { cudaArchs: gpuArchs } : {}), ...(warnings === "error" ? { warnings: "error" as const } : {}) });
  if (!program) return 1;
  const outDir = program.tempDir;
  // The simulator for want of a GPU: the notice every runner prints; else which device was chosen.
  if (choice.notice) noteSimulatorFallback(choice);
  else console.error(`cudascript: running ${path.relative(process.cwd(), entry) || entry} on the ${description}${sanitize ? ", sanitizer on" : ""}`);
  // What the program's runtime reads when it starts its backend: the decision made above.
  const settings: NodeJS.ProcessEnv = {
    CUDASCRIPT_BACKEND: choice.kind,
    CUDASCRIPT_SANITIZE: sanitize ? "1" : "0",
    CUDASCRIPT_RUN: "1",
    ...(workers !== undefined ? { CUDASCRIPT_WORKERS: String(workers) } : {}),
    ...(uninit ? { CUDASCRIPT_UNINITIALIZED_SHARED: uninit } : {}),
    ...(options.uninitialized ? { CUDASCRIPT_UNINITIALIZED: options.uninitialized } : {}),
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
export async function cachedBuild(entry: string, options: RunBuildOptions): Promise<{ bundle: string; tempDir?: string } | undefined> {
  const slot = new RunCacheSlot(entry, options);
  const found = slot.lookup();
  if (found.hit) {
    process.stderr.write(useColor(process.stderr) ? found.warnings.color : found.warnings.plain);
    return { bundle: found.bundle };
  }
  const { bundleProgram, EsbuildUnavailable } = require("./run-build") as typeof import("./run-build");
  removeAbandonedTempDirs();
  try {
    return await buildInto(slot, entry, options, bundleProgram);
  } catch (e) {
    if (!(e instanceof EsbuildUnavailable)) throw e;
    // The program runs from its TypeScript source (run-program.ts), its kernels compiled at their first launch.
    console.error(
      `cudascript: ${e.message}: running ${path.relative(process.cwd(), entry) || entry} from its TypeScript source, its kernels compiled at their first launch. ` +
        `Installing cudascript in the program's project (npm install --save-dev cudascript) builds it first: faster, and kernel errors are reported before it runs.`,
    );
    return { bundle: entry };
  }
}

async function buildInto(
  slot: RunCacheSlot,
  entry: string,
  options: RunBuildOptions,
  bundleProgram: typeof import("./run-build").bundleProgram,
): Promise<{ bundle: string; tempDir?: string } | undefined> {
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
