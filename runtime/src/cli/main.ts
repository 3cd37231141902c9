#!/usr/bin/env node
/**
 * `cudascript` command line: each subcommand lives in its own module and is loaded only when used, so
 * `cudascript check` never loads NVRTC or the simulator.
 */
import * as nodeModule from "node:module";
import { packageVersion, parseArgs, printUsageError, type Command } from "./args";

// V8's code cache for the modules this process loads (Node 22.1+; NODE_DISABLE_COMPILE_CACHE=1 turns it
// off): a build loads TypeScript, whose 9 MB of JavaScript otherwise take V8 longer to compile at each
// `run` after an edit, `check` or `compile` than the kernel checker takes to run.
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();

const commands: Record<string, () => Command> = {
  check: () => require("./check-command").checkCommand as Command,
  compile: () => require("./compile-command").compileCommand as Command,
  run: () => require("./run-command").runCommand as Command,
  profile: () => require("./profile-command").profileCommand as Command,
  launch: () => require("./launch-command").launchCommand as Command,
  doctor: () => require("./doctor-command").doctorCommand as Command,
  devices: () => require("./devices-command").devicesCommand as Command,
  "debug-adapter": () => require("./debug-adapter-command").debugAdapterCommand as Command,
};

const USAGE = `Usage: cudascript <command> [options]

Commands:
  check [options] <files|dirs|globs>   check kernels against the CudaScript rules
                                       (--format text|json|sarif, --watch)
  compile [options] <file.ts>          CUDA C++, PTX, CUBIN or resources (--arch, --emit, -o)
  run [options] <file.ts> [args...]    build and run a program; arguments after the file are its own
                                       (--backend auto|gpu|simulator, --sanitize, --timeout s, --workers n)
  profile [options] <file.ts> [args...]
                                       run on the simulator, counting coalescing, bank conflicts and
                                       divergence per line (--gpu a100, --format text|json, -o file)
  launch [options] <file.ts> [args...] one process per rank: dist.rank, dist.allReduce, …
                                       (--launcher local|slurm|kubernetes, -n ranks)
  doctor [--json]                      driver, GPUs, NVRTC, cache, simulator: what is missing and how to fix it
  devices [--json]                     list the CUDA devices (or why kernels run on the simulator)
  debug-adapter                        the kernel debugger's Debug Adapter (DAP over stdin/stdout)

Options:
  -h, --help                           this text
  -v, --version                        the version of cudascript

Run 'cudascript <command> --help' for details.`;

async function main(argv: string[]): Promise<number | undefined> {
  // Options of `cudascript` itself come before the command; everything after it is the command's.
  const args = parseArgs(argv, { version: { type: "boolean", short: "v" } }, { program: true });
  if ("error" in args) return printUsageError(args.error, USAGE);
  if (args.flags.has("version")) {
    console.log(packageVersion());
    return 0;
  }
  const name = args.positional[0];
  if (!name || args.flags.has("help")) {
    console.log(USAGE);
    return name || args.flags.has("help") ? 0 : 2;
  }
  const load = commands[name];
  if (!load) return printUsageError(`unknown command '${name}'`, USAGE);
  let command: Command;
  try {
    command = load();
  } catch (err) {
    return printUsageError(`command '${name}' is not available in this build (${(err as Error).message.split("\n")[0]})`, USAGE);
  }
  return command(args.programArgs);
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (err: unknown) => {
    // Last resort: a bug of ours, reported briefly rather than as a bare stack trace.
    console.error(`cudascript: internal error: ${err instanceof Error ? err.message : String(err)}`);
    if (process.env.CUDASCRIPT_DEBUG) console.error(err);
    process.exitCode = 3;
  },
);
