#!/usr/bin/env node
/**
 * Entry point of the language server, as a program: `cudascript-language-server --stdio` (what
 * nvim-lspconfig, Helix and Zed pass), or `--node-ipc`, `--socket=<port>`, `--pipe=<name>` — the transports
 * vscode-languageserver reads from the command line itself. Defaults to stdio when no transport is named.
 * `--version` and `--help` print and exit. `node dist/server.js …` (the VS Code extension) works the same.
 */
import { createConnection, ProposedFeatures } from "vscode-languageserver/node";
import { SERVER_NAME, serverVersion, startServer } from "./language-server";

const TRANSPORTS = ["--stdio", "--node-ipc", "--socket", "--pipe", "--clientProcessId"];

export const USAGE = `Usage: ${SERVER_NAME} [--stdio | --node-ipc | --socket=<port> | --pipe=<name>]

The CudaScript language server (Language Server Protocol): kernel diagnostics with CS codes, quick
fixes, occupancy hovers and CodeLens for TypeScript files that import "cudascript".
Editors start it themselves; see docs/editors.md for Neovim, Helix and Zed.

Options:
  --stdio             talk LSP over stdin/stdout (the default)
  --node-ipc          talk over Node IPC (when started by a Node client with fork)
  --socket=<port>     connect to a socket on this port
  --pipe=<name>       connect to this named pipe
  --clientProcessId=N exit when that process exits
  --version           print the version and exit
  -h, --help          print this help and exit
`;

const isTransport = (arg: string): boolean => TRANSPORTS.some((t) => arg === t || arg.startsWith(`${t}=`));

/**
 * Runs the server for the command line `argv` (without node and the script). Returns the exit code when
 * it only had to print something, or undefined once the server is listening.
 */
export function main(argv: readonly string[]): number | undefined {
  if (argv.includes("--version") || argv.includes("-v")) {
    process.stdout.write(`${serverVersion()}\n`);
    return 0;
  }
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(USAGE);
    return 0;
  }
  // `--clientProcessId N` comes as two arguments from some clients: the number is not an option.
  const unknown = argv.filter((a, i) => !isTransport(a) && !(argv[i - 1] === "--clientProcessId" && /^\d+$/.test(a)));
  if (unknown.length) {
    process.stderr.write(`${SERVER_NAME}: unknown argument '${unknown[0]}': start it as '${SERVER_NAME} --stdio' (see --help)\n`);
    return 2;
  }
  // vscode-languageserver picks the transport from process.argv; an editor that passes none gets stdio.
  if (!argv.some(isTransport)) process.argv.push("--stdio");
  startServer(createConnection(ProposedFeatures.all));
  return undefined;
}

if (require.main === module) {
  const code = main(process.argv.slice(2));
  if (code !== undefined) process.exitCode = code;
}

export { startServer };
export * from "./protocol";
