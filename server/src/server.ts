#!/usr/bin/env node
/**
 * Entry point: `node server.js --stdio` (or `--node-ipc`, `--socket=<port>`, `--pipe=<name>`), the
 * transports of vscode-languageserver. Defaults to stdio when no transport is named.
 */
import { createConnection, ProposedFeatures } from "vscode-languageserver/node";
import { startServer } from "./language-server";

const TRANSPORTS = ["--stdio", "--node-ipc", "--socket", "--pipe", "--clientProcessId"];
if (require.main === module) {
  if (!process.argv.some((a) => TRANSPORTS.some((t) => a === t || a.startsWith(`${t}=`)))) process.argv.push("--stdio");
  startServer(createConnection(ProposedFeatures.all));
}

export { startServer };
export * from "./protocol";
