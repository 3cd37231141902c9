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
import { parseArgs, printUsageError, type Command } from "./args";
import { CudaScriptError } from "../errors";
import { chooseBackend, type BackendChoice, type BackendRequest } from "../host/device";

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
/** After the deadline, the simulator gets this long to stop the kernel and report before the child is killed. */
const KILL_GRACE_MS = 2500;

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
  if (!fs.existsSync(entry)) {
    console.error(`cudascript: no such file: ${file}`);
    return 2;
  }
  const backendFlag = args.flags.get("backend") as string | undefined;
  const backend = (backendFlag ?? (process.env.CUDASCRIPT_BACKEND || "auto")) as BackendRequest;
  if (!["auto", "gpu", "simulator"].includes(backend))
    return printUsageError(backendFlag !== undefined ? `--backend takes auto, gpu or simulator, not '${backend}'` : `CUDASCRIPT_BACKEND=${backend} is not a backend: use auto, gpu or simulator`, USAGE);
  const timeoutText = (args.flags.get("timeout") as string | undefined) ?? String(DEFAULT_TIMEOUT_S);
  const timeout = Number(timeoutText);
  if (!Number.isFinite(timeout) || timeout < 0) return printUsageError(`--timeout takes a number of seconds ≥ 0, not '${timeoutText}'`, USAGE);
  const workersText = args.flags.get("workers") as string | undefined;
  if (workersText !== undefined && !/^[1-9]\d*$/.test(workersText)) return printUsageError(`--workers takes a whole number ≥ 1, not '${workersText}'`, USAGE);
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
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), "cudascript-run-"));
  try {
    const bundle = path.join(outDir, `${path.basename(entry).replace(/\.[^.]+$/, "")}.mjs`);
    // On the GPU, the kernels' PTX for it is compiled during the build and embedded in the bundle.
    const gpuArchs = choice.kind === "gpu" && choice.probe?.ok ? [(choice.probe.devices[Number(process.env.CUDASCRIPT_DEVICE || 0)] ?? choice.probe.devices[0]!).arch] : undefined;
    const built = await buildProgram(entry, bundle, gpuArchs ? { cudaArchs: gpuArchs } : {});
    if (!built) return 1;

    console.error(`cudascript: running ${path.relative(process.cwd(), entry) || entry} on the ${description}${sanitize ? ", sanitizer on" : ""}${why}`);

    // 3. Run in a child process.
    const deadline = timeout > 0 ? Date.now() + timeout * 1000 : undefined;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      CUDASCRIPT_BACKEND: choice.kind,
      CUDASCRIPT_SANITIZE: sanitize ? "1" : "0",
      CUDASCRIPT_RUN: "1",
    };
    if (deadline !== undefined) {
      env.CUDASCRIPT_DEADLINE = String(deadline);
      env.CUDASCRIPT_DEADLINE_LABEL = `--timeout ${timeoutText} s`;
    } else delete env.CUDASCRIPT_DEADLINE;
    if (workersText) env.CUDASCRIPT_WORKERS = workersText;
    if (uninit) env.CUDASCRIPT_UNINITIALIZED_SHARED = uninit;
    const child = spawn(process.execPath, ["--enable-source-maps", path.join(__dirname, "run-child.js"), bundle, ...programArgs], { stdio: "inherit", env });
    let killedForTimeout = false;
    const timer =
      deadline !== undefined
        ? setTimeout(() => {
            killedForTimeout = true;
            child.kill("SIGKILL");
          }, deadline - Date.now() + KILL_GRACE_MS)
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
    if (timer) clearTimeout(timer);
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

/** Bundles `entry` (TypeScript) with the kernels compiled; prints errors and returns false on failure. */
export async function buildProgram(entry: string, outfile: string, pluginOptions: import("../esbuild/index").CudaScriptPluginOptions = {}): Promise<boolean> {
  const esbuild = await import("esbuild");
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { cudascriptPlugin } = require("../esbuild/index") as typeof import("../esbuild/index");
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
