#!/usr/bin/env node
/**
 * `cudascript` command line: each subcommand lives in its own module and is loaded only when used, so
 * `cudascript check` never loads NVRTC or the simulator.
 */
import * as nodeModule from "node:module";
import { printUsageError, type Command } from "./args";

// V8's code cache for the modules this process loads (Node 22.1+; NODE_DISABLE_COMPILE_CACHE=1 turns it
// off): a build loads TypeScript, whose 9 MB of JavaScript otherwise take V8 longer to compile at each
// `run` after an edit, `check` or `compile` than the kernel checker takes to run.
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();

const commands: Record<string, () => Command> = {
  check: () => require("./check-command").checkCommand as Command,
  compile: () => require("./compile-command").compileCommand as Command,
  run: () => require("./run-command").runCommand as Command,
  doctor: () => require("./doctor-command").doctorCommand as Command,
  devices: () => require("./devices-command").devicesCommand as Command,
};

const USAGE = `Usage: cudascript <command> [options]

Commands:
  check <files|dirs|globs> [--format text|json]   check kernels against the CudaScript rules
  compile <file.ts> [--arch sm_80] [--emit cuda|ptx|cubin|resources] [-o dir]
  run <file.ts> [--backend auto|gpu|simulator] [--sanitize [--uninitialized-shared warn|error]] [--timeout s]
  doctor [--json]                                  driver, GPUs, NVRTC, cache, simulator: what is missing and how to fix it
  devices [--json]                                 list the CUDA devices (or why kernels run on the simulator)

Run 'cudascript <command> --help' for details.`;

async function main(argv: string[]): Promise<number | undefined> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h") {
    console.log(USAGE);
    return name ? 0 : 2;
  }
  if (name === "--version" || name === "-v") {
    console.log(require("../../package.json").version);
    return 0;
  }
  const load = commands[name];
  if (!load) return printUsageError(`unknown command '${name}'`, USAGE);
  let command: Command;
  try {
    command = load();
  } catch (err) {
    return printUsageError(`command '${name}' is not available in this build (${(err as Error).message.split("\n")[0]})`, USAGE);
  }
  return command(rest);
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
