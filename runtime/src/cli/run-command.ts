/**
 * `cudascript run <file.ts> [--backend auto|gpu|simulator] [--sanitize] [--uninitialized-shared warn|error] [--timeout s] [--workers n] [-- args]`
 *
 * Bundles the host program with esbuild and the CudaScript plugin (kernels compiled at build time),
 * then runs the bundle in a child process so that a program that never ends can be stopped: the
 * simulator stops a kernel still running at the deadline (CSR024), and the child is killed shortly
 * after if it is still alive. Kernel faults and sanitizer findings are printed as one clear message
 * with the TypeScript location; the exit code is non-zero.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs, parseNumberOption, printUsageError, type Command } from "./args";
import { notRegularFile } from "./inputs";
import { CudaScriptError } from "../errors";
import { chooseBackend, type BackendChoice, type BackendRequest } from "../host/device";
import { KILL_GRACE_MS, PARENT_PID_ENV, TEMP_DIR_ENV, TEMP_PREFIX } from "./run-limits";

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
  --timeout <s>                  stop the program after s seconds (default 60; 0 = no limit)
  --workers <n>                  simulator worker threads (default: the number of cores)`;

const DEFAULT_TIMEOUT_S = 60;
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
  const timeoutText = (args.flags.get("timeout") as string | undefined) ?? String(DEFAULT_TIMEOUT_S);
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

  // 2. Build.
  removeAbandonedTempDirs();
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), `${TEMP_PREFIX}${process.pid}-`));
  try {
    const bundle = path.join(outDir, `${path.basename(entry).replace(/\.[^.]+$/, "")}.mjs`);
    // On the GPU, the kernels' PTX for it is compiled during the build and embedded in the bundle.
    const gpuArchs = choice.kind === "gpu" && choice.probe?.ok ? [(choice.probe.devices[Number(process.env.CUDASCRIPT_DEVICE || 0)] ?? choice.probe.devices[0]!).arch] : undefined;
    const built = await buildProgram(entry, bundle, gpuArchs ? { cudaArchs: gpuArchs } : {});
    if (!built) return 1;

    console.error(`cudascript: running ${path.relative(process.cwd(), entry) || entry} on the ${description}${sanitize ? ", sanitizer on" : ""}${why}`);

    // 3. Run in a child process.
    // Whole milliseconds: the child reads CUDASCRIPT_DEADLINE as digits.
    const deadline = timeout > 0 ? Math.ceil(Date.now() + timeout * 1000) : undefined;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      CUDASCRIPT_BACKEND: choice.kind,
      CUDASCRIPT_SANITIZE: sanitize ? "1" : "0",
      CUDASCRIPT_RUN: "1",
      // The child's watchdog (run-watchdog.ts) stops the program if this process dies, and removes outDir.
      [PARENT_PID_ENV]: String(process.pid),
      [TEMP_DIR_ENV]: outDir,
    };
    if (deadline !== undefined) {
      env.CUDASCRIPT_DEADLINE = String(deadline);
      env.CUDASCRIPT_DEADLINE_LABEL = `--timeout ${timeoutText} s`;
    } else delete env.CUDASCRIPT_DEADLINE;
    if (workers !== undefined) env.CUDASCRIPT_WORKERS = String(workers);
    if (uninit) env.CUDASCRIPT_UNINITIALIZED_SHARED = uninit;
    const child = spawn(process.execPath, ["--enable-source-maps", path.join(__dirname, "run-child.js"), bundle, ...programArgs], { stdio: "inherit", env });
    let killedForTimeout = false;
    const timer =
      deadline !== undefined
        ? timerAt(deadline + KILL_GRACE_MS, () => {
            killedForTimeout = true;
            child.kill("SIGKILL");
          })
        : undefined;
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
    timer?.cancel();
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
    if (killedForTimeout) {
      console.error(
        `cudascript: ${path.relative(process.cwd(), entry) || entry} was stopped: it ran longer than --timeout ${timeoutText} s. A kernel or the host program may never end; --sanitize shows a runaway loop's line.`,
      );
      return 124;
    }
    return code;
  } finally {
    fs.rmSync(outDir, { recursive: true, force: true });
  }
};

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

/** Bundles `entry` (TypeScript) with the kernels compiled; prints errors and returns false on failure. */
export async function buildProgram(entry: string, outfile: string, pluginOptions: import("../plugin/core").CudaScriptPluginOptions = {}): Promise<boolean> {
  const esbuild = await import("esbuild");
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { cudascriptPlugin } = require("../plugin/esbuild") as typeof import("../plugin/esbuild");
  const runtimeEntry = path.join(__dirname, "..", "index.js");
  try {
    const result = await esbuild.build({
      entryPoints: [entry],
      outfile,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      sourcemap: "inline",
      sourcesContent: false,
      logLevel: "silent",
      banner: { js: 'import { createRequire as __cudascriptCreateRequire } from "node:module"; const require = __cudascriptCreateRequire(import.meta.url);' },
      plugins: [
        {
          // The program uses the runtime this CLI belongs to.
          name: "cudascript-runtime",
          setup(b) {
            b.onResolve({ filter: /^cudascript$/ }, () => ({ path: runtimeEntry, external: true }));
          },
        },
        cudascriptPlugin(pluginOptions),
      ],
    });
    printMessages(esbuild, result.warnings, "warning");
    return true;
  } catch (e) {
    const failure = e as { errors?: import("esbuild").Message[]; warnings?: import("esbuild").Message[] };
    if (!failure.errors) throw e;
    printMessages(esbuild, failure.warnings ?? [], "warning");
    printMessages(esbuild, failure.errors, "error");
    console.error(`cudascript: ${path.relative(process.cwd(), entry) || entry} was not run: ${failure.errors.length} error${failure.errors.length === 1 ? "" : "s"}.`);
    return false;
  }
}

function printMessages(esbuild: typeof import("esbuild"), messages: import("esbuild").Message[], kind: "error" | "warning"): void {
  if (!messages.length) return;
  const rel = messages.map((m) => (m.location ? { ...m, location: { ...m.location, file: path.relative(process.cwd(), m.location.file) || m.location.file } } : m));
  const text = esbuild.formatMessagesSync(rel, { kind, color: process.stderr.isTTY, terminalWidth: process.stderr.columns });
  process.stderr.write(text.join(""));
}
