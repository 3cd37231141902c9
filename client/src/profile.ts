/**
 * Profile (the CodeLens beside Run, `CudaScript: Profile`): runs the program on the simulator through
 * `cudascript profile --format json -o FILE` (the same child process, progress, Cancel and output as
 * Run: runner.ts), then shows the profile in the results panel (totals, derived figures, roofline,
 * worst lines with advice, the source with a heat column) and in the editor (heat marks and hovers on
 * the profiled lines: profile-editor.ts). A profile that cannot be shown — the profiler failed, the
 * program launched no kernel, the file is not a profile — is a message in the panel, never a half
 * drawn one. `CudaScript: Open Profile File…` shows a saved profile the same way.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { runSettings, section } from "./config";
import { linesByFile, type LineProfile, type ProfileReport } from "./profile-model";
import { launchesKernels, readProfile, runProblem } from "./profile-run";
import { ProfileEditorView } from "./profile-editor";
import { buildProfileView, type SourceReader } from "./profile-view";
import { ResultsPanel } from "./resultsPanel";
import type { KernelInfo } from "./runTag";
import type { Runner, RunResult } from "./runner";
import type { ProfileMessage } from "./webview/profile-section";
import { storageFolder } from "./storage";

export const PROFILE_COMMANDS = ["cudascript.profile", "cudascript.openProfile"] as const;

type CommandArg = vscode.Uri | { uri?: string | vscode.Uri; kernel?: string } | undefined;

export interface ProfilingDeps {
  readonly runner: Runner;
  readonly requireTrust: () => boolean;
  readonly sourceDocument: (uri: vscode.Uri) => Promise<vscode.TextDocument>;
  readonly pickKernel: (doc: vscode.TextDocument, name: string | undefined) => Promise<KernelInfo | undefined>;
  readonly offerRunTag: (doc: vscode.TextDocument, kernel: KernelInfo) => Promise<void>;
  /** Writes the host program that launches `kernel` as its @run tag says; undefined after saying why not. */
  readonly kernelProgram: (uri: vscode.Uri, kernel: KernelInfo, tag: string) => string | undefined;
}

/** What a Profile command did (returned to callers and tests). */
export interface ProfileOutcome {
  readonly panelKey: string;
  readonly run?: RunResult;
  readonly profileFile: string;
  /** Set when nothing could be shown, and why (also in the panel). */
  readonly problem?: string;
  readonly launches: number;
}

export interface ProfilingApi {
  /** Profiled lines (1-based) of a file and their heat level, as the editor marks them now. */
  readonly profiledLines: (uri: vscode.Uri) => { line: number; level: number }[];
}

const argUri = (arg: CommandArg): vscode.Uri | undefined => {
  if (arg instanceof vscode.Uri) return arg;
  if (arg && typeof arg === "object" && arg.uri) return typeof arg.uri === "string" ? vscode.Uri.parse(arg.uri) : arg.uri;
  const doc = vscode.window.activeTextEditor?.document;
  return doc && doc.uri.scheme === "file" ? doc.uri : undefined;
};
const argKernel = (arg: CommandArg): string | undefined => (arg && !(arg instanceof vscode.Uri) && typeof arg === "object" && typeof arg.kernel === "string" ? arg.kernel : undefined);

export function registerProfiling(context: vscode.ExtensionContext, deps: ProfilingDeps): ProfilingApi {
  const editorView = new ProfileEditorView();
  context.subscriptions.push(editorView);


  /** Finds a file the profile names (absolute, or relative to the program, the workspace, the profiled source). */
  const sourceReader = (bases: string[], known: string[]): SourceReader => (file) => {
    const candidates = path.isAbsolute(file) ? [file] : [...bases.map((b) => path.resolve(b, file)), ...known.filter((k) => path.basename(k) === path.basename(file))];
    for (const c of candidates) {
      try {
        return { path: c, text: fs.readFileSync(c, "utf8") };
      } catch {
        /* next */
      }
    }
    return undefined;
  };

  /** Shows a profile (or its problem) in the panel and the editor; `file`: the report's, kept across a reload. */
  const show = (panel: ResultsPanel, result: ProfileReport | { problem: string }, read: SourceReader, file?: string): void => {
    if ("problem" in result) {
      panel.setProfile({ problem: result.problem } satisfies ProfileMessage);
      return;
    }
    const view = buildProfileView(result, read);
    panel.setProfile(view, file);
    const files = new Map<string, Map<number, LineProfile>>();
    for (const [file, lines] of linesByFile(result)) {
      const found = read(file);
      if (found) files.set(found.path, lines);
    }
    editorView.show(files);
  };

  // A results panel restored after a reload shows its profile again, from the report it names.
  ResultsPanel.profileRestorer = (panel, file, program) => {
    const bases = [path.dirname(program), ...(vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath)];
    show(panel, readProfile(file), sourceReader(bases, []), file);
  };
  context.subscriptions.push({ dispose: () => (ResultsPanel.profileRestorer = undefined) });

  const profile = async (arg?: CommandArg): Promise<ProfileOutcome | undefined> => {
    if (!deps.requireTrust()) return undefined;
    const uri = argUri(arg);
    if (!uri || uri.scheme !== "file" || !/\.(m|c)?tsx?$/.test(uri.fsPath)) {
      void vscode.window.showErrorMessage("CudaScript: open a TypeScript file with kernels (or a host program that launches them) to profile it.");
      return undefined;
    }
    const doc = await deps.sourceDocument(uri);
    const rel = vscode.workspace.asRelativePath(uri, false);
    let program = uri.fsPath;
    let panelKey = `profile:${uri.fsPath}`;
    let title = `Profile: ${path.basename(uri.fsPath)}`;
    let headerTitle = `profile of ${rel}`;
    const named = argKernel(arg);
    if (named || !launchesKernels(doc.getText())) {
      const kernel = await deps.pickKernel(doc, named);
      if (!kernel) return undefined;
      if (kernel.run === undefined) {
        await deps.offerRunTag(doc, kernel);
        return undefined;
      }
      const file = deps.kernelProgram(uri, kernel, kernel.run);
      if (!file) return undefined;
      program = file;
      panelKey = `profile:${uri.fsPath}#${kernel.name}`;
      title = `Profile: ${kernel.name}`;
      headerTitle = `profile of kernel ${kernel.name} · ${rel}`;
    }
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    const profileFile = path.join(storageFolder(context, "profiles", ".json"), `${stamp}-${path.basename(program).replace(/\.(m|c)?tsx?$/, "")}.json`);
    editorView.clear(uri.fsPath);
    const options = ["--format", "json", "-o", profileFile, "--timeout", String(runSettings(uri).timeoutSeconds)];
    const gpu = section(uri).get<string>("profile.gpu", "").trim();
    if (gpu) options.push("--gpu", gpu);
    const run = await deps.runner.run({ program, panelKey, title, headerTitle, cli: { command: "profile", options } });
    const panel = ResultsPanel.forProgram(panelKey, title, context.extensionUri);
    const folder = vscode.workspace.getWorkspaceFolder(uri)?.uri.fsPath;
    const read = sourceReader([folder, path.dirname(program), path.dirname(uri.fsPath)].filter((d): d is string => !!d), [uri.fsPath]);
    const result = run.state === "ok" ? readProfile(profileFile) : { problem: runProblem(run) };
    show(panel, result, read, profileFile);
    return { panelKey, run, profileFile, launches: "problem" in result ? 0 : result.launches.length, ...("problem" in result ? { problem: result.problem } : {}) };
  };

  const openProfile = async (arg?: vscode.Uri): Promise<ProfileOutcome | undefined> => {
    let uri = arg instanceof vscode.Uri ? arg : undefined;
    if (!uri) uri = (await vscode.window.showOpenDialog({ canSelectMany: false, filters: { "CudaScript profile": ["json"] }, openLabel: "Show Profile" }))?.[0];
    if (!uri) return undefined;
    const file = uri.fsPath;
    const panelKey = `profile-file:${file}`;
    const title = `Profile: ${path.basename(file)}`;
    const panel = ResultsPanel.forProgram(panelKey, title, context.extensionUri);
    panel.reset({ title: vscode.workspace.asRelativePath(uri, false), program: file, command: `profile file ${path.basename(file)}`, startedAt: new Date().toISOString() }, "");
    const result = readProfile(file);
    const bases = [path.dirname(file), ...(vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath)];
    const known = vscode.workspace.textDocuments.filter((d) => d.uri.scheme === "file").map((d) => d.uri.fsPath);
    show(panel, result, sourceReader(bases, known));
    panel.setStatus("problem" in result ? { state: "failed", message: result.problem } : { state: "ok", message: "Loaded from a profile file." });
    return { panelKey, profileFile: file, launches: "problem" in result ? 0 : result.launches.length, ...("problem" in result ? { problem: result.problem } : {}) };
  };

  context.subscriptions.push(vscode.commands.registerCommand("cudascript.profile", profile), vscode.commands.registerCommand("cudascript.openProfile", openProfile));
  return { profiledLines: (uri) => editorView.lines(uri.fsPath) };
}
