/** The `cudascript.*` settings the client reads (the language server reads its own through LSP). */
import * as vscode from "vscode";

export type Backend = "auto" | "gpu" | "simulator";
export const ARCHS = ["auto", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90"] as const;

export interface RunSettings {
  backend: Backend;
  targetArch: string;
  sanitize: boolean;
  timeoutSeconds: number;
  simulatorWorkers: number;
  cacheDir: string;
  nvrtcPath: string;
}

export function section(scope?: vscode.Uri): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration("cudascript", scope);
}

export function runSettings(scope?: vscode.Uri): RunSettings {
  const c = section(scope);
  const backend = c.get<string>("backend", "auto");
  return {
    backend: backend === "gpu" || backend === "simulator" ? backend : "auto",
    targetArch: c.get<string>("targetArch", "auto") || "auto",
    sanitize: c.get<boolean>("sanitizer.enabled", false),
    timeoutSeconds: Math.max(1, c.get<number>("run.timeoutSeconds", 120)),
    simulatorWorkers: Math.max(0, c.get<number>("simulator.workers", 0)),
    cacheDir: c.get<string>("cacheDir", "").trim(),
    nvrtcPath: c.get<string>("nvrtcPath", "").trim(),
  };
}

/** Writes a setting where the user will see it: the workspace when one is open, else the user settings. */
export async function update(key: string, value: unknown): Promise<void> {
  const target = vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await section().update(key, value, target);
}
