/**
 * `cudascript debug-adapter`: the kernel debugger's Debug Adapter, speaking DAP over stdin/stdout
 * (docs/debugging.md). Editors start it as a debug adapter executable; it runs until the client
 * disconnects and closes its input.
 */
import { printUsageError, startCommand, type Command } from "./args";

const USAGE = `Usage: cudascript debug-adapter

Runs the kernel debugger's Debug Adapter over stdin/stdout (DAP): editors start it, people do not.
See docs/debugging.md for its launch configuration.
  -h, --help  this text`;

export const debugAdapterCommand: Command = async (argv) => {
  const args = startCommand(argv, {}, USAGE);
  if (typeof args === "number") return args;
  if (args.positional.length) return printUsageError(`unexpected argument '${args.positional[0]}'`, USAGE);
  const { runDebugAdapter } = require("../debugger/dap") as typeof import("../debugger/dap");
  runDebugAdapter();
  // The adapter ends with its input (the client disconnects): keep the process alive until then.
  await new Promise<void>((resolve) => process.stdin.on("close", resolve).on("end", resolve));
  return 0;
};
