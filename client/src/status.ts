/**
 * Status bar item: the backend runs go to and the device behind it — the GPU's name and compute
 * capability (from nvidia-smi, or from the last run's report), or "Simulator". Click: Select Backend.
 */
import { execFile } from "node:child_process";
import * as vscode from "vscode";
import { runSettings } from "./config";

export interface GpuInfo {
  readonly name: string;
  /** e.g. "sm_86" */
  readonly arch: string;
}

let detection: Promise<GpuInfo | undefined> | undefined;

/** The first GPU nvidia-smi lists; undefined without a driver (no GPU here). */
export function detectGpu(): Promise<GpuInfo | undefined> {
  detection ??= new Promise((resolve) => {
    try {
      execFile("nvidia-smi", ["--query-gpu=name,compute_cap", "--format=csv,noheader"], { timeout: 4000, windowsHide: true }, (err, stdout) => {
        if (err) return resolve(undefined);
        const line = String(stdout).split("\n").find((l) => l.trim());
        const m = line ? /^(.*),\s*(\d+)\.(\d+)\s*$/.exec(line.trim()) : null;
        resolve(m ? { name: m[1]!.trim(), arch: `sm_${m[2]}${m[3]}` } : undefined);
      });
    } catch {
      resolve(undefined);
    }
  });
  return detection;
}

export class StatusItem implements vscode.Disposable {
  readonly item = vscode.window.createStatusBarItem("cudascript.status", vscode.StatusBarAlignment.Left, 50);
  private gpu: GpuInfo | undefined;
  private reported: { backend: string; device: string } | undefined;

  constructor() {
    this.item.name = "CudaScript backend";
    this.item.command = "cudascript.selectBackend";
    void detectGpu().then((g) => {
      this.gpu = g;
      this.update();
    });
    this.update();
  }

  /** A run said which device it used. */
  reportDevice(info: { backend: string; device: string }): void {
    this.reported = info;
    this.update();
  }

  update(): void {
    const s = runSettings();
    const trusted = vscode.workspace.isTrusted;
    let device: string;
    let icon = "$(chip)";
    if (s.backend === "simulator") device = "Simulator";
    else if (this.reported?.backend === "gpu") device = this.reported.device;
    else if (this.gpu) device = `${this.gpu.name} (${this.gpu.arch})`;
    else if (s.backend === "gpu") {
      device = "GPU (none found)";
      icon = "$(warning)";
    } else device = "Simulator";
    const parts = [device];
    if (s.sanitize) parts.push("sanitizer");
    if (s.targetArch !== "auto") parts.push(s.targetArch);
    this.item.text = `${trusted ? icon : "$(shield)"} CudaScript: ${parts.join(" · ")}`;
    const md = new vscode.MarkdownString(undefined, true);
    md.appendMarkdown(`**CudaScript**\n\n`);
    md.appendMarkdown(`- backend: \`${s.backend}\`${s.backend === "auto" ? ` (→ ${this.gpu ? "GPU" : "simulator: no GPU found"})` : ""}\n`);
    md.appendMarkdown(`- device: ${device}\n- target architecture: \`${s.targetArch}\`\n- sanitizer: ${s.sanitize ? "on" : "off"}\n`);
    if (!trusted) md.appendMarkdown(`\n$(shield) Restricted mode: diagnostics work; running programs needs a trusted workspace.\n`);
    md.appendMarkdown(`\nClick to select the backend.`);
    this.item.tooltip = md;
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}
