/**
 * The CudaScript VS Code extension: a thin client. It starts the language server (diagnostics, hovers
 * with occupancy, CodeLens), runs programs and single kernels through `cudascript run`, shows their
 * results in a webview panel, opens the generated CUDA C++ / PTX beside the source, and debugs kernels
 * (the `cudascript` debug type: debug.ts).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import { ARCHS, runSettings, update, type Backend } from "./config";
import { registerDebugging, type DebugApi } from "./debug";
import { GENERATED_CODE_REQUEST, GeneratedCodeProvider, type GeneratedCodeParams, type GeneratedCodeResult } from "./generated";
import { createClient } from "./lsp";
import { ResultsPanel, ResultsTail } from "./resultsPanel";
import { registerProfiling, type ProfilingApi } from "./profile";
import { generateHostProgram, KERNELS_REQUEST, parseRunTag, RunTagError, suggestRunTag, type KernelInfo } from "./runTag";
import { Runner, type RunResult } from "./runner";
import { detectGpu, StatusItem } from "./status";
import { fileUsesCudaScript, folderUsesCudaScript, textImportsCudaScript } from "./uses-cudascript";
import type { RenderedSummary } from "./webview/messages";

export const COMMANDS = [
  "cudascript.runFile",
  "cudascript.runKernel",
  "cudascript.showCuda",
  "cudascript.showPtx",
  "cudascript.showOccupancy",
  "cudascript.selectBackend",
  "cudascript.selectTargetArch",
  "cudascript.toggleSanitizer",
  "cudascript.openResults",
  "cudascript.showOutput",
] as const;

/** What activate() returns: used by the extension tests, and by anyone automating the extension. */
export interface CudaScriptApi {
  readonly languageClient: () => LanguageClient | undefined;
  readonly lastRun: () => RunResult | undefined;
  readonly panels: () => { key: string; title: string; records: number; summary?: RenderedSummary }[];
  readonly onDidRenderResults: vscode.Event<{ key: string; summary: RenderedSummary }>;
  readonly generatedLines: (generated: vscode.Uri, sourceLine: number) => number[];
  /** The focus thread of the stopped CudaScript debug session (the status bar item). */
  readonly debugFocus: DebugApi["focus"];
  readonly debugAdapter: DebugApi["adapter"];
  /** The lines the last profile marks in a file, with their heat level. */
  readonly profiledLines: ProfilingApi["profiledLines"];
}

type CommandArg = vscode.Uri | { uri?: string | vscode.Uri; kernel?: string } | undefined;

function argUri(arg: CommandArg): vscode.Uri | undefined {
  if (arg instanceof vscode.Uri) return arg;
  if (arg && typeof arg === "object" && "uri" in arg && arg.uri) return typeof arg.uri === "string" ? vscode.Uri.parse(arg.uri) : arg.uri;
  const doc = vscode.window.activeTextEditor?.document;
  return doc && doc.uri.scheme !== "cudascript-generated" ? doc.uri : undefined;
}
function argKernel(arg: CommandArg): string | undefined {
  return arg && !(arg instanceof vscode.Uri) && typeof arg === "object" && typeof arg.kernel === "string" ? arg.kernel : undefined;
}

const RESTRICTED =
  "CudaScript: running is disabled in Restricted Mode, because a run executes this workspace's code on your machine. Diagnostics, hovers and generated code stay available. Trust the workspace to run kernels.";

let client: LanguageClient | undefined;

/** Why this workspace uses CudaScript (a folder's package.json or node_modules), or undefined. */
function workspaceUse(): string | undefined {
  const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === "file" && folderUsesCudaScript(f.uri.fsPath));
  return folder && `the workspace folder ${folder.name} depends on cudascript`;
}

/** Why this document uses CudaScript (it imports it, or its project depends on it), or undefined. */
function documentUse(doc: vscode.TextDocument): string | undefined {
  if (doc.languageId !== "typescript" && doc.languageId !== "typescriptreact") return undefined;
  const uses = doc.uri.scheme === "file" ? fileUsesCudaScript(doc.uri.fsPath, doc.getText()) : doc.uri.scheme === "untitled" && textImportsCudaScript(doc.getText());
  return uses ? `${path.basename(doc.uri.path)} uses CudaScript` : undefined;
}
let runner: Runner | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<CudaScriptApi> {
  const channel = vscode.window.createOutputChannel("CudaScript");
  const serverChannel = vscode.window.createOutputChannel("CudaScript Language Server", { log: true });
  const status = new StatusItem();
  runner = new Runner(context, channel);
  const run = runner;
  let lastRun: RunResult | undefined;
  context.subscriptions.push(channel, serverChannel, status, run.onDidReportDevice((d) => status.reportDevice(d)));

  // ---- language server: only for workspaces and files that use CudaScript (uses-cudascript.ts); the
  // extension activates on every TypeScript file, and most TypeScript projects never write a kernel.
  let clientReady: Promise<boolean> | undefined;
  const startServer = (why: string): Promise<boolean> => {
    if (clientReady) return clientReady;
    serverChannel.appendLine(`Starting the language server: ${why}.`);
    client = createClient(context.extensionUri, serverChannel);
    clientReady = client
      ? client.start().then(
          () => true,
          (err: unknown) => {
            serverChannel.appendLine(`The language server did not start: ${err instanceof Error ? err.message : String(err)}`);
            return false;
          },
        )
      : Promise.resolve(false);
    return clientReady;
  };
  const use = workspaceUse() ?? vscode.workspace.textDocuments.map(documentUse).find((why) => why);
  if (use) void startServer(use);
  else {
    serverChannel.appendLine("This workspace does not use CudaScript (no package.json depending on it, no file importing it): the language server starts when one is opened.");
    const check = (why: string | undefined) => {
      if (!why || clientReady) return;
      void startServer(why);
      watchers.forEach((w) => w.dispose());
    };
    const watchers = [
      vscode.workspace.onDidOpenTextDocument((d) => check(documentUse(d))),
      vscode.workspace.onDidSaveTextDocument((d) => check(documentUse(d))),
      vscode.workspace.onDidChangeWorkspaceFolders(() => check(workspaceUse())),
    ];
    context.subscriptions.push(...watchers);
  }
  // Asking for generated code is asking for CudaScript: start the server if it is not running yet.
  const requester = () => async (params: GeneratedCodeParams) => {
    if (!(await startServer("generated code was asked for")) || !client?.isRunning()) throw new Error("the language server is not running");
    return client.sendRequest<GeneratedCodeResult>(GENERATED_CODE_REQUEST, params);
  };
  const generated = new GeneratedCodeProvider(requester);

  /** The document's kernels, from the language server (the checker's view), or undefined after saying why not. */
  const kernelsOf = async (doc: vscode.TextDocument): Promise<KernelInfo[] | undefined> => {
    if (!client || !(await clientReady) || !client.isRunning()) {
      void vscode.window.showErrorMessage("CudaScript: the language server is not running, and it is what finds the kernels (see the 'CudaScript Language Server' output).");
      return undefined;
    }
    try {
      return (await client.sendRequest<{ kernels: KernelInfo[] }>(KERNELS_REQUEST, { uri: doc.uri.toString() })).kernels;
    } catch (err) {
      void vscode.window.showErrorMessage(`CudaScript: the language server did not list the kernels: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
  };
  context.subscriptions.push(generated, ResultsPanel.registerSerializer(context.extensionUri));

  // ---- commands
  const requireTrust = (): boolean => {
    if (vscode.workspace.isTrusted) return true;
    void vscode.window.showWarningMessage(RESTRICTED, "Manage Workspace Trust").then((a) => a && vscode.commands.executeCommand("workbench.trust.manage"));
    return false;
  };

  const sourceDocument = async (uri: vscode.Uri): Promise<vscode.TextDocument> => {
    const doc = await vscode.workspace.openTextDocument(uri);
    if (doc.isDirty) await doc.save();
    return doc;
  };

  const runFile = async (arg?: CommandArg): Promise<RunResult | undefined> => {
    if (!requireTrust()) return undefined;
    const uri = argUri(arg);
    if (!uri || uri.scheme !== "file" || !/\.(m|c)?tsx?$/.test(uri.fsPath)) {
      void vscode.window.showErrorMessage("CudaScript: open a TypeScript host program (e.g. examples/saxpy.ts) to run it.");
      return undefined;
    }
    await sourceDocument(uri);
    const rel = vscode.workspace.asRelativePath(uri, false);
    lastRun = await run.run({ program: uri.fsPath, panelKey: uri.fsPath, title: `Results: ${path.basename(uri.fsPath)}`, headerTitle: rel });
    return lastRun;
  };

  const pickKernel = async (doc: vscode.TextDocument, name: string | undefined): Promise<KernelInfo | undefined> => {
    const kernels = await kernelsOf(doc);
    if (!kernels) return undefined;
    if (name) {
      const k = kernels.find((x) => x.name === name);
      if (!k) void vscode.window.showErrorMessage(`CudaScript: no kernel '${name}' (const ${name} = cuda.jit(…)) in ${path.basename(doc.uri.fsPath)}.`);
      return k;
    }
    if (!kernels.length) {
      void vscode.window.showErrorMessage(`CudaScript: ${path.basename(doc.uri.fsPath)} has no kernels (const name = cuda.jit(…), with cuda imported from "cudascript").`);
      return undefined;
    }
    const editor = vscode.window.activeTextEditor;
    if (editor?.document === doc) {
      // the kernel whose declaration (or the JSDoc above it) holds the cursor
      const line = editor.selection.active.line;
      const at = kernels.find((k) => (k.docRange ?? k.range).start.line <= line && line <= k.range.end.line);
      if (at) return at;
    }
    if (kernels.length === 1) return kernels[0];
    const pick = await vscode.window.showQuickPick(
      kernels.map((k) => ({ label: k.name, description: k.run !== undefined ? `@run ${k.run}` : "no @run tag", kernel: k })),
      { placeHolder: "Kernel to run" },
    );
    return pick?.kernel;
  };

  /** A kernel without an @run tag cannot be run or debugged from its tag: offer to insert one. */
  const offerRunTag = async (doc: vscode.TextDocument, kernel: KernelInfo): Promise<void> => {
    const suggestion = suggestRunTag(kernel);
    const choice = await vscode.window.showInformationMessage(
      `CudaScript: kernel '${kernel.name}' has no @run tag saying how to launch it. Add one above the kernel, for example:\n${suggestion}`,
      "Insert @run Tag",
    );
    if (choice) {
      const editor = await vscode.window.showTextDocument(doc);
      const line = doc.lineAt(kernel.range.start.line);
      const indent = line.text.slice(0, line.firstNonWhitespaceCharacterIndex);
      await editor.edit((e) => e.insert(new vscode.Position((kernel.docRange ?? kernel.range).start.line, 0), `${indent}${suggestion}\n`));
    }
  };

  /** Writes the host program that launches `kernel` as its @run tag says into .cudascript/ (Run Kernel, Profile); undefined after saying why not. */
  const kernelProgram = (uri: vscode.Uri, kernel: KernelInfo, tag: string): string | undefined => {
    const folder = vscode.workspace.getWorkspaceFolder(uri)?.uri.fsPath ?? path.dirname(uri.fsPath);
    const dir = path.join(folder, ".cudascript");
    fs.mkdirSync(dir, { recursive: true });
    if (!fs.existsSync(path.join(dir, ".gitignore"))) fs.writeFileSync(path.join(dir, ".gitignore"), "# generated by the CudaScript extension\n*\n");
    let importPath = path.relative(dir, uri.fsPath).replace(/\\/g, "/").replace(/\.(m|c)?tsx?$/, "");
    if (!importPath.startsWith(".")) importPath = `./${importPath}`;
    const rel = vscode.workspace.asRelativePath(uri, false);
    let program: string;
    try {
      program = generateHostProgram(kernel, parseRunTag(tag), { importPath, displayPath: rel });
    } catch (err) {
      const msg = err instanceof RunTagError ? err.message : String(err);
      void vscode.window.showErrorMessage(`CudaScript: ${msg}`);
      return undefined;
    }
    const file = path.join(dir, `run-${path.basename(uri.fsPath).replace(/\.(m|c)?tsx?$/, "")}-${kernel.name}.ts`);
    fs.writeFileSync(file, program);
    return file;
  };

  const runKernel = async (arg?: CommandArg): Promise<RunResult | undefined> => {
    if (!requireTrust()) return undefined;
    const uri = argUri(arg);
    if (!uri || uri.scheme !== "file") {
      void vscode.window.showErrorMessage("CudaScript: open the file with the kernel to run it.");
      return undefined;
    }
    const doc = await sourceDocument(uri);
    const kernel = await pickKernel(doc, argKernel(arg));
    if (!kernel) return undefined;
    const tag = kernel.run;
    if (tag === undefined) {
      await offerRunTag(doc, kernel);
      return undefined;
    }
    const file = kernelProgram(uri, kernel, tag);
    if (!file) return undefined;
    const rel = vscode.workspace.asRelativePath(uri, false);
    lastRun = await run.run({ program: file, panelKey: `${uri.fsPath}#${kernel.name}`, title: `Results: ${kernel.name}`, headerTitle: `kernel ${kernel.name} · ${rel}` });
    return lastRun;
  };

  const showGenerated = (kind: "cuda" | "ptx") => async (arg?: CommandArg) => {
    const uri = argUri(arg);
    if (!uri) {
      void vscode.window.showErrorMessage("CudaScript: open a TypeScript file with kernels first.");
      return undefined;
    }
    return generated.show(uri, kind, argKernel(arg));
  };

  const showOccupancy = async (arg?: CommandArg) => {
    const uri = argUri(arg);
    if (!uri) return;
    const doc = await vscode.workspace.openTextDocument(uri);
    const kernel = await pickKernel(doc, argKernel(arg));
    if (!kernel) return;
    const editor = await vscode.window.showTextDocument(doc, { preserveFocus: false });
    const pos = new vscode.Position(kernel.nameRange.start.line, kernel.nameRange.start.character);
    editor.selection = new vscode.Selection(pos, pos);
    editor.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    await vscode.commands.executeCommand("editor.action.showHover");
  };

  const selectBackend = async () => {
    const gpu = await detectGpu();
    const current = runSettings().backend;
    const items: (vscode.QuickPickItem & { value: Backend })[] = [
      { value: "auto", label: "Auto", description: gpu ? `GPU: ${gpu.name} (${gpu.arch})` : "no GPU found: the simulator", detail: "The GPU when there is one, else the CPU simulator." },
      { value: "gpu", label: "GPU", description: gpu ? `${gpu.name} (${gpu.arch})` : "no GPU found on this machine", detail: "Compile with NVRTC and run on the GPU through the CUDA driver." },
      { value: "simulator", label: "Simulator", description: "CPU", detail: "Run the compiled kernels on the CPU simulator (with the sanitizer when enabled)." },
    ];
    for (const i of items) if (i.value === current) i.label = `$(check) ${i.label}`;
    const pick = await vscode.window.showQuickPick(items, { placeHolder: `Backend for CudaScript runs (now: ${current})` });
    if (!pick) return undefined;
    await update("backend", pick.value);
    status.update();
    return pick.value;
  };

  const ARCH_NAMES: Record<string, string> = {
    auto: "the local GPU's architecture, else sm_80",
    sm_75: "Turing: T4, RTX 20xx",
    sm_80: "Ampere: A100, A30",
    sm_86: "Ampere: RTX 30xx, A10, A40",
    sm_89: "Ada: RTX 40xx, L4, L40",
    sm_90: "Hopper: H100, H200",
  };
  const selectTargetArch = async () => {
    const current = runSettings().targetArch;
    const pick = await vscode.window.showQuickPick(
      ARCHS.map((a) => ({ label: a === current ? `$(check) ${a}` : a, description: ARCH_NAMES[a], value: a })),
      { placeHolder: `Target architecture for occupancy, PTX and compiles (now: ${current})` },
    );
    if (!pick) return undefined;
    await update("targetArch", pick.value);
    status.update();
    return pick.value;
  };

  const toggleSanitizer = async () => {
    const on = !runSettings().sanitize;
    await update("sanitizer.enabled", on);
    status.update();
    void vscode.window.showInformationMessage(
      on ? "CudaScript: sanitizer on — runs check out-of-bounds accesses, races and barrier misuse (on the simulator)." : "CudaScript: sanitizer off.",
    );
    return on;
  };

  const openResults = async (arg?: vscode.Uri) => {
    let uri = arg instanceof vscode.Uri ? arg : undefined;
    if (!uri) {
      const picked = await vscode.window.showOpenDialog({ canSelectMany: false, filters: { "CudaScript results": ["jsonl"] }, openLabel: "Show Results" });
      uri = picked?.[0];
    }
    if (!uri) return undefined;
    const file = uri.fsPath;
    const panel = ResultsPanel.forProgram(`results:${file}`, `Results: ${path.basename(file)}`, context.extensionUri);
    panel.reset({ title: vscode.workspace.asRelativePath(uri, false), program: file, command: `results file ${path.basename(file)}`, startedAt: new Date().toISOString() }, file);
    panel.addRecords(new ResultsTail(file).read(true));
    panel.setStatus({ state: "ok", message: "Loaded from a results file." });
    return panel.key;
  };

  const handlers: Record<(typeof COMMANDS)[number], (...args: never[]) => unknown> = {
    "cudascript.runFile": runFile,
    "cudascript.runKernel": runKernel,
    "cudascript.showCuda": showGenerated("cuda"),
    "cudascript.showPtx": showGenerated("ptx"),
    "cudascript.showOccupancy": showOccupancy,
    "cudascript.selectBackend": selectBackend,
    "cudascript.selectTargetArch": selectTargetArch,
    "cudascript.toggleSanitizer": toggleSanitizer,
    "cudascript.openResults": openResults,
    "cudascript.showOutput": () => channel.show(true),
  };
  for (const id of COMMANDS) context.subscriptions.push(vscode.commands.registerCommand(id, handlers[id] as (...args: unknown[]) => unknown));

  const debugging = registerDebugging(context, { extensionRoot: context.extensionUri.fsPath, channel, kernelsOf, pickKernel, offerRunTag });
  const profiling = registerProfiling(context, { runner: run, requireTrust, sourceDocument, pickKernel, offerRunTag, kernelProgram });

  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration("cudascript") && status.update()),
    vscode.workspace.onDidGrantWorkspaceTrust(() => status.update()),
  );

  const rendered = new vscode.EventEmitter<{ key: string; summary: RenderedSummary }>();
  context.subscriptions.push(rendered, ResultsPanel.onDidRender((e) => rendered.fire({ key: e.panel.key, summary: e.summary })));
  return {
    languageClient: () => client,
    lastRun: () => lastRun,
    panels: () => ResultsPanel.all().map((p) => ({ key: p.key, title: p.panel.title, records: p.recordCount, summary: p.lastSummary })),
    onDidRenderResults: rendered.event,
    generatedLines: (uri, line) => generated.mappedLines(uri, line),
    debugFocus: debugging.focus,
    debugAdapter: debugging.adapter,
    profiledLines: profiling.profiledLines,
  };
}

export async function deactivate(): Promise<void> {
  await runner?.cancelAll();
  const c = client;
  client = undefined;
  if (c) await c.stop().catch(() => undefined);
}
