/**
 * The `cudascript` debug type: the kernel debugger's adapter, inline in the extension host for a kernel
 * launch written out, else as `cudascript debug-adapter` (AdapterFactory says why), from the project's
 * package or the extension (debug-adapter-location.ts); launch configurations filled in from the active editor, the "Debug
 * Kernel" command behind the Debug CodeLens, and the focus thread picker (status bar item and
 * "Focus Thread…", over the adapter's `cudascript.focus` request and event: runtime/src/debugger/dap-focus.ts).
 * Debugging runs the workspace's code: in Restricted Mode every way in says so and stops.
 */
import * as path from "node:path";
import * as vscode from "vscode";
import { findDebugAdapter } from "./debug-adapter-location";
import { formatFocus, parseFocus, type FocusState } from "./focus-input";
import type { KernelInfo } from "./runTag";

export const DEBUG_TYPE = "cudascript";
const FOCUS = "cudascript.focus"; // the adapter's custom event and request (dap-focus.ts)

export const DEBUG_RESTRICTED =
  "CudaScript: debugging is disabled in Restricted Mode, because a debug session runs this workspace's code on your machine. Diagnostics, hovers and generated code stay available. Trust the workspace to debug kernels.";

export interface DebugDeps {
  readonly extensionRoot: string;
  readonly channel: vscode.OutputChannel;
  /** The document's kernels from the language server, or undefined after saying why not. */
  readonly kernelsOf: (doc: vscode.TextDocument) => Promise<KernelInfo[] | undefined>;
  /** The kernel the command names, the one at the cursor, the only one, or the user's pick. */
  readonly pickKernel: (doc: vscode.TextDocument, name: string | undefined) => Promise<KernelInfo | undefined>;
  /** Offers to insert an @run tag for a kernel without one (Run Kernel's offer). */
  readonly offerRunTag: (doc: vscode.TextDocument, kernel: KernelInfo) => Promise<void>;
}

export interface DebugApi {
  /** The focus of the active cudascript session (the status bar item), while it is stopped. */
  readonly focus: () => FocusState | undefined;
  /** How the last session's adapter ran: inline in the extension host or as a process, and whose package it came from. */
  readonly adapter: () => { kind: "inline" | "process"; source: "project" | "extension" } | undefined;
}

function requireTrust(): boolean {
  if (vscode.workspace.isTrusted) return true;
  void vscode.window.showWarningMessage(DEBUG_RESTRICTED, "Manage Workspace Trust").then((a) => a && vscode.commands.executeCommand("workbench.trust.manage"));
  return false;
}

/**
 * Runs the adapter inline in the extension host for a kernel launch written out in full (one launch, in
 * memory, nothing else). A host program — and a kernel's @run tag, which runs as one — gets the adapter
 * as a process (`cudascript debug-adapter` of the project's CLI) instead: that adapter makes the
 * program's folder its working folder and runs the program in a thread of its own process, neither of
 * which may happen to the extension host every extension shares; and a long program would block it.
 */
class AdapterFactory implements vscode.DebugAdapterDescriptorFactory {
  last: { kind: "inline" | "process"; source: "project" | "extension" } | undefined;
  constructor(private readonly deps: DebugDeps) {}

  createDebugAdapterDescriptor(session: vscode.DebugSession): vscode.ProviderResult<vscode.DebugAdapterDescriptor> {
    const config = session.configuration;
    const program = typeof config.program === "string" ? config.program : "";
    const folder = session.workspaceFolder?.uri.fsPath;
    const where = findDebugAdapter(program ? path.dirname(program) : (folder ?? this.deps.extensionRoot), this.deps.extensionRoot);
    if (!where) throw new Error("CudaScript: the kernel debugger was not found: install the 'cudascript' package in this project (npm install --save-dev cudascript), or reinstall the extension.");
    const origin = where.source === "project" ? "the workspace's cudascript package" : "the extension";
    const explicit = config.kernel !== undefined && config.grid !== undefined;
    if (explicit && where.inline) {
      try {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const { KernelDebugAdapter } = require(where.inline) as { KernelDebugAdapter: new () => vscode.DebugAdapter };
        const adapter = new vscode.DebugAdapterInlineImplementation(new KernelDebugAdapter());
        this.deps.channel.appendLine(`Debug adapter: inline, from ${origin} (${where.inline})`);
        this.last = { kind: "inline", source: where.source };
        return adapter;
      } catch (err) {
        // a module this extension cannot load in its host (another version's): its CLI's adapter still speaks DAP
        this.deps.channel.appendLine(`Debug adapter: ${where.inline} did not load inline (${err instanceof Error ? err.message : String(err)}); running it as a process.`);
      }
    }
    if (!explicit && where.source === "extension")
      // The program's thread must load the runtime the program imports: the project's package.
      throw new Error(
        `CudaScript: debugging ${config.kernel ? `kernel '${config.kernel}' from its @run tag` : "a host program"} needs the cudascript package in this project (npm install --save-dev cudascript). Without it, the extension's debugger debugs one kernel with its launch written out: "kernel", "grid", "block" and "args" in the launch configuration.`,
      );
    const cwd = typeof config.cwd === "string" ? config.cwd : (folder ?? (program ? path.dirname(program) : undefined));
    this.deps.channel.appendLine(`Debug adapter: \`cudascript debug-adapter\` of ${origin} (${where.cli}), in ${cwd ?? "the extension host's folder"}`);
    this.last = { kind: "process", source: where.source };
    return new vscode.DebugAdapterExecutable(process.execPath, [where.cli, "debug-adapter"], { env: { ELECTRON_RUN_AS_NODE: "1" }, ...(cwd ? { cwd } : {}) });
  }
}

/** Fills in a launch: F5 with no launch.json debugs the active editor's file (its kernel at the cursor). */
class ConfigurationProvider implements vscode.DebugConfigurationProvider {
  constructor(private readonly deps: DebugDeps) {}

  async resolveDebugConfiguration(folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): Promise<vscode.DebugConfiguration | undefined> {
    if (!requireTrust()) return undefined; // undefined stops the launch
    if (!config.type && !config.request && !config.name) {
      const doc = vscode.window.activeTextEditor?.document;
      if (!doc || doc.uri.scheme !== "file" || !/\.(m|c)?tsx?$/.test(doc.uri.fsPath)) {
        void vscode.window.showErrorMessage("CudaScript: open the TypeScript file to debug (a host program, or a file with a kernel that has an @run tag), or add a launch configuration.");
        return undefined;
      }
      const kernels = (await this.deps.kernelsOf(doc)) ?? [];
      const line = vscode.window.activeTextEditor!.selection.active.line;
      // the kernel at the cursor, else the file's only kernel with an @run tag; none: the file is a host program
      const tagged = kernels.filter((k) => k.run !== undefined);
      const kernel = kernels.find((k) => (k.docRange ?? k.range).start.line <= line && line <= k.range.end.line) ?? (tagged.length === 1 ? tagged[0] : undefined);
      config = { type: DEBUG_TYPE, request: "launch", name: `Debug ${kernel ? kernel.name : path.basename(doc.uri.fsPath)}`, program: doc.uri.fsPath, ...(kernel ? { kernel: kernel.name } : {}) };
    }
    if (typeof config.program === "string" && !path.isAbsolute(config.program)) {
      // relative to "cwd", as the adapter reads it, else to the workspace folder (the program's default working folder)
      const base = typeof config.cwd === "string" ? config.cwd : (folder?.uri.fsPath ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath);
      if (base) config.program = path.join(base, config.program);
    }
    if (!config.program) {
      void vscode.window.showErrorMessage('CudaScript: the launch configuration has no "program": the TypeScript file to debug, e.g. "${workspaceFolder}/src/kernels.ts".');
      return undefined;
    }
    return config;
  }
}

/** The focus of the stopped cudascript session, in the status bar; click: Focus Thread…. */
class FocusStatus implements vscode.Disposable {
  readonly item = vscode.window.createStatusBarItem("cudascript.debugFocus", vscode.StatusBarAlignment.Left, 49);
  readonly states = new Map<string, FocusState>();

  constructor() {
    this.item.name = "CudaScript focus thread";
    this.item.command = "cudascript.focusThread";
  }

  set(session: vscode.DebugSession, state: FocusState): void {
    this.states.set(session.id, state);
    this.update();
  }
  drop(session: vscode.DebugSession): void {
    this.states.delete(session.id);
    this.update();
  }
  active(): { session: vscode.DebugSession; state: FocusState } | undefined {
    const session = vscode.debug.activeDebugSession;
    const state = session && this.states.get(session.id);
    return session && state ? { session, state } : undefined;
  }
  update(): void {
    const a = this.active();
    if (!a) return this.item.hide();
    this.item.text = `$(debug-stackframe-focused) ${formatFocus(a.state)}`;
    this.item.tooltip = `CudaScript focus thread of a launch with gridDim (${a.state.gridDim.join(", ")}) and blockDim (${a.state.blockDim.join(", ")}). Click to focus another thread.`;
    this.item.show();
  }
  dispose(): void {
    this.item.dispose();
  }
}

export function registerDebugging(context: vscode.ExtensionContext, deps: DebugDeps): DebugApi {
  const status = new FocusStatus();
  const factory = new AdapterFactory(deps);
  context.subscriptions.push(
    status,
    vscode.debug.registerDebugAdapterDescriptorFactory(DEBUG_TYPE, factory),
    vscode.debug.registerDebugConfigurationProvider(DEBUG_TYPE, new ConfigurationProvider(deps)),
    vscode.debug.onDidReceiveDebugSessionCustomEvent((e) => e.session.type === DEBUG_TYPE && e.event === FOCUS && status.set(e.session, e.body as FocusState)),
    vscode.debug.onDidTerminateDebugSession((s) => status.drop(s)),
    vscode.debug.onDidChangeActiveDebugSession(() => status.update()),
    // a running session has no focus to show: hidden from `continue` until the next stop's focus event
    vscode.debug.registerDebugAdapterTrackerFactory(DEBUG_TYPE, {
      createDebugAdapterTracker: (session) => ({
        onWillReceiveMessage: (m: { type?: string; command?: string }) => {
          if (m.type === "request" && ["continue", "next", "stepIn", "stepOut"].includes(m.command ?? "")) status.drop(session);
        },
      }),
    }),
  );

  const debugKernel = async (arg?: vscode.Uri | { uri?: string | vscode.Uri; kernel?: string }): Promise<boolean> => {
    if (!requireTrust()) return false;
    const raw = arg instanceof vscode.Uri ? arg : arg?.uri ?? vscode.window.activeTextEditor?.document.uri;
    const uri = typeof raw === "string" ? vscode.Uri.parse(raw) : raw;
    if (!uri || uri.scheme !== "file") {
      void vscode.window.showErrorMessage("CudaScript: open the file with the kernel to debug it.");
      return false;
    }
    const doc = await vscode.workspace.openTextDocument(uri);
    if (doc.isDirty) await doc.save();
    const kernel = await deps.pickKernel(doc, arg && !(arg instanceof vscode.Uri) ? arg.kernel : undefined);
    if (!kernel) return false;
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    // A launch configuration written for this kernel (its own grid, block and arguments) wins over the @run tag.
    const own = launchConfigurationFor(folder, uri.fsPath, kernel.name);
    if (own) return vscode.debug.startDebugging(folder, own);
    if (kernel.run === undefined) {
      await deps.offerRunTag(doc, kernel);
      return false;
    }
    return vscode.debug.startDebugging(folder, { type: DEBUG_TYPE, request: "launch", name: `Debug ${kernel.name}`, program: uri.fsPath, kernel: kernel.name });
  };

  const focusThread = async (): Promise<FocusState | undefined> => {
    const a = status.active();
    if (!a) {
      void vscode.window.showInformationMessage("CudaScript: Focus Thread works while a CudaScript debug session is stopped in a kernel.");
      return undefined;
    }
    const { session, state } = a;
    const input = await vscode.window.showInputBox({
      title: "CudaScript: Focus Thread",
      prompt: `A thread of the stopped block — gridDim (${state.gridDim.join(", ")}), blockDim (${state.blockDim.join(", ")})`,
      value: formatFocus(state),
      validateInput: (text) => {
        const r = parseFocus(text, state);
        return "error" in r ? r.error : undefined;
      },
    });
    if (input === undefined) return undefined;
    const target = parseFocus(input, state);
    if ("error" in target) return undefined;
    try {
      // the adapter answers with the new focus, then sends its focus event and a `stopped` event (the views refresh)
      return (await session.customRequest(FOCUS, { block: target.block, thread: target.thread })) as FocusState;
    } catch (err) {
      void vscode.window.showErrorMessage(err instanceof Error ? err.message : String(err));
      return undefined;
    }
  };

  context.subscriptions.push(vscode.commands.registerCommand("cudascript.debugKernel", debugKernel), vscode.commands.registerCommand("cudascript.focusThread", focusThread));
  return { focus: () => status.active()?.state, adapter: () => factory.last };
}

/** The launch.json configuration of type cudascript that debugs `kernel` of `file`, by name (VS Code resolves its variables). */
function launchConfigurationFor(folder: vscode.WorkspaceFolder | undefined, file: string, kernel: string): string | undefined {
  const configs = vscode.workspace.getConfiguration("launch", folder?.uri).get<vscode.DebugConfiguration[]>("configurations") ?? [];
  const resolve = (p: string) => path.resolve(folder?.uri.fsPath ?? "", p.replace(/\$\{workspaceFolder\}/g, folder?.uri.fsPath ?? ""));
  const c = configs.find((x) => x.type === DEBUG_TYPE && x.request === "launch" && x.kernel === kernel && typeof x.program === "string" && resolve(x.program) === path.resolve(file));
  return c?.name;
}
