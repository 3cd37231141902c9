/**
 * `cudascript run`'s command line: `cudascript run [options] file.ts [program arguments...]`, as
 * `node [options] file.js [args...]`: the options come before the program file, and everything after
 * it is the program's own (`process.argv`), even an option of ours.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { parseNumberOption, printUsageError, startCommand, type OptionSpecs } from "./args";
import { notRegularFile } from "./inputs";
import type { BackendRequest } from "../host/device";

export const RUN_USAGE = `Usage: cudascript run [options] <file.ts> [program arguments...]

Builds the host program with its kernels and runs it. Options go before the file: everything after
it is passed to the program (process.argv), as with node.

Options:
  --backend auto|gpu|simulator   where kernels run (default auto, or CUDASCRIPT_BACKEND: the GPU when
                                 the CUDA driver loads, cuInit succeeds and a device exists, else the
                                 simulator, saying why; 'cudascript doctor' shows what is missing)
  --sanitize                     simulator: detect races in shared and global memory (between the
                                 threads of a block and between blocks), undefined values (read from
                                 shared memory no thread wrote) where they are used, divergent
                                 barriers and runaway loops (out-of-bounds is always on); runs on the
                                 simulator even where a GPU is present, on one core
  --uninitialized-shared warn|error
                                 with --sanitize: an undefined value stored to global memory, branched
                                 on, used as an index… stops the run (error, the default) or is a
                                 warning and the run goes on (warn)
  --uninitialized zero|poison    simulator: shared memory starts as zeros (zero, the default) or as
                                 NaN / 0xCD bytes (poison), garbage as a GPU could hold
  --timeout <s>                  stop the program after s seconds (default 0: no limit, as node; with
                                 a limit the program runs in a child process that can be stopped)
  --workers <n>                  simulator worker threads (default: the number of cores)
  -h, --help                     this text
  --version                      the version of cudascript

Colour: on a terminal; NO_COLOR=1 turns it off, FORCE_COLOR=1 on.`;

const RUN_OPTIONS: OptionSpecs = {
  backend: { type: "string" },
  sanitize: { type: "boolean" },
  "uninitialized-shared": { type: "string" },
  uninitialized: { type: "string" },
  timeout: { type: "string" },
  workers: { type: "string" },
};

/** About 31 years: longer is "no limit" (0). Keeps the deadline an exact whole number of milliseconds. */
const MAX_TIMEOUT_S = 1e9;
/** Each simulator worker is a thread with its own JavaScript heap: far more than any machine's cores only exhausts memory. */
const MAX_WORKERS = 1024;

export interface RunOptions {
  /** The program file as given, and resolved. */
  readonly file: string;
  readonly entry: string;
  readonly programArgs: string[];
  readonly backend: BackendRequest;
  /** The --timeout text as given (for messages) and its value in seconds (0 = no limit). */
  readonly timeoutText: string;
  readonly timeout: number;
  readonly workers?: number;
  readonly sanitize: boolean;
  readonly uninitializedShared?: "warn" | "error";
  readonly uninitialized?: "zero" | "poison";
}

/** The run's options, or the exit code when there is nothing to run (help, version, a usage error). */
export function parseRunOptions(argv: readonly string[]): RunOptions | number {
  const args = startCommand(argv, RUN_OPTIONS, RUN_USAGE, { program: true });
  if (typeof args === "number") return args;
  const file = args.positional[0];
  if (!file) return printUsageError("name the program to run, e.g. cudascript run examples/saxpy.ts", RUN_USAGE);
  // Earlier versions took the program's arguments after a `--`: one right after the file is still dropped.
  const programArgs = args.programArgs[0] === "--" ? args.programArgs.slice(1) : args.programArgs;
  warnAboutLateOptions(file, args.programArgs);
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
    return printUsageError(backendFlag !== undefined ? `--backend takes auto, gpu or simulator, not '${backend}'` : `CUDASCRIPT_BACKEND=${backend} is not a backend: use auto, gpu or simulator`, RUN_USAGE);
  const timeoutText = (args.flags.get("timeout") as string | undefined) ?? "0";
  const timeout = parseNumberOption("timeout", timeoutText, { integer: false, min: 0, max: MAX_TIMEOUT_S, unit: "of seconds (0 = no limit)" });
  if (typeof timeout !== "number") return printUsageError(timeout.error, RUN_USAGE);
  const workersText = args.flags.get("workers") as string | undefined;
  const workers = workersText === undefined ? undefined : parseNumberOption("workers", workersText, { integer: true, min: 1, max: MAX_WORKERS });
  if (typeof workers === "object") return printUsageError(workers.error, RUN_USAGE);
  const sanitize = args.flags.has("sanitize");
  if (sanitize && backend === "gpu") return printUsageError("--sanitize runs kernels on the simulator; it cannot be combined with --backend gpu", RUN_USAGE);
  const uninit = args.flags.get("uninitialized-shared") as string | undefined;
  if (uninit !== undefined && uninit !== "warn" && uninit !== "error") return printUsageError(`--uninitialized-shared takes warn or error, not '${uninit}'`, RUN_USAGE);
  if (uninit !== undefined && !sanitize) return printUsageError("--uninitialized-shared only applies with --sanitize (without it, undefined values are not tracked)", RUN_USAGE);
  const fill = args.flags.get("uninitialized") as string | undefined;
  if (fill !== undefined && fill !== "zero" && fill !== "poison") return printUsageError(`--uninitialized takes zero or poison, not '${fill}'`, RUN_USAGE);
  if (fill !== undefined && backend === "gpu") return printUsageError("--uninitialized sets what the simulator's shared memory starts as; it cannot be combined with --backend gpu (a GPU's holds whatever it held)", RUN_USAGE);
  return { file, entry, programArgs, backend, timeoutText, timeout, ...(workers !== undefined ? { workers } : {}), sanitize, ...(uninit ? { uninitializedShared: uninit } : {}), ...(fill ? { uninitialized: fill } : {}) };
}

/**
 * `cudascript run app.ts --sanitize` used to mean the sanitizer; now the program gets `--sanitize`.
 * The program still runs with it (it may have an option of that name), but a note says where ours go.
 */
function warnAboutLateOptions(file: string, programArgs: readonly string[]): void {
  const named = programArgs.filter((a) => a.startsWith("--") && Object.hasOwn(RUN_OPTIONS, a.slice(2).replace(/=.*$/, "")));
  if (named.length === 0) return;
  console.error(`cudascript: note: ${named.join(", ")} after ${file} ${named.length === 1 ? "goes" : "go"} to the program; cudascript's own options go before the file (cudascript run ${named[0]}${RUN_OPTIONS[named[0]!.slice(2).replace(/=.*$/, "")]!.type === "string" && !named[0]!.includes("=") ? " …" : ""} ${file})`);
}
