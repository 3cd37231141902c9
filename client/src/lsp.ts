/** Starts the CudaScript language server (Node IPC) from the extension's bundle. */
import * as fs from "node:fs";
import * as vscode from "vscode";
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from "vscode-languageclient/node";

export function serverModule(extensionUri: vscode.Uri): string | undefined {
  const candidates = [vscode.Uri.joinPath(extensionUri, "dist", "server.js"), vscode.Uri.joinPath(extensionUri, "server", "dist", "server.js")];
  return candidates.map((u) => u.fsPath).find((p) => fs.existsSync(p));
}

export function createClient(extensionUri: vscode.Uri, outputChannel: vscode.LogOutputChannel): LanguageClient | undefined {
  const module = serverModule(extensionUri);
  if (!module) {
    outputChannel.appendLine("The language server (dist/server.js) is missing from the extension: no diagnostics.");
    return undefined;
  }
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.ipc },
    debug: { module, transport: TransportKind.ipc, options: { execArgv: ["--nolazy", "--inspect=6019"] } },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: "file", language: "typescript" },
      { scheme: "untitled", language: "typescript" },
    ],
    synchronize: { configurationSection: "cudascript" },
    initializationOptions: { cudascript: JSON.parse(JSON.stringify(vscode.workspace.getConfiguration("cudascript"))) as unknown },
    outputChannel,
    // Running is the client's business: the trusted state decides, not the server.
    markdown: { isTrusted: false, supportHtml: false },
  };
  return new LanguageClient("cudascript", "CudaScript Language Server", serverOptions, clientOptions);
}
