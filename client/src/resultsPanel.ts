/**
 * The results panel: one webview per program (a new run of the same program replaces its content), fed
 * from the program's results file (JSON lines, see runtime/src/report/protocol.ts) while it runs and at
 * its end. The webview keeps its DOM while hidden (retainContextWhenHidden) and, after a reload, a
 * WebviewPanelSerializer re-reads the results file named in the webview's saved state.
 */
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { parseResults } from "cudascript/dist/report/protocol";
import type { FromWebview, PanelState, RenderedSummary, ResultRecord, RunInfo, RunStatus, ToWebview } from "./webview/messages";
import { resultsDocument } from "./webview/document";
import type { ProfileMessage } from "./webview/profile-section";

export const RESULTS_VIEW_TYPE = "cudascript.results";

export function resultsHtml(webview: { cspSource: string; asWebviewUri(u: vscode.Uri): vscode.Uri }, distUri: vscode.Uri, nonce: string): string {
  const script = webview.asWebviewUri(vscode.Uri.joinPath(distUri, "webview.js"));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(distUri, "webview.css"));
  return resultsDocument({ cspSource: webview.cspSource, script: script.toString(), style: style.toString(), nonce });
}

/** Reads a growing JSON-lines file from where it left off; `flush` also takes a last line without newline. */
export class ResultsTail {
  private offset = 0;
  private partial = "";
  constructor(readonly file: string) {}

  read(flush = false): ResultRecord[] {
    let text = "";
    try {
      const fd = fs.openSync(this.file, "r");
      try {
        const size = fs.fstatSync(fd).size;
        if (size > this.offset) {
          const buf = Buffer.alloc(size - this.offset);
          const n = fs.readSync(fd, buf, 0, buf.length, this.offset);
          this.offset += n;
          text = buf.subarray(0, n).toString("utf8");
        }
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      return [];
    }
    text = this.partial + text;
    const cut = flush ? text.length : text.lastIndexOf("\n") + 1;
    this.partial = text.slice(cut);
    return cut > 0 ? parseResults(text.slice(0, cut)) : [];
  }
}

export class ResultsPanel {
  private static readonly panels = new Map<string, ResultsPanel>();
  private static readonly renderedEmitter = new vscode.EventEmitter<{ panel: ResultsPanel; summary: RenderedSummary }>();
  /** Fires each time a webview has rendered what it was sent (tests and the API use it). */
  static readonly onDidRender = ResultsPanel.renderedEmitter.event;

  private records: ResultRecord[] = [];
  private output = "";
  private status: RunStatus | undefined;
  private run: RunInfo | undefined;
  private resultsFile = "";
  private profile: ProfileMessage | undefined;
  private profileFile: string | undefined;
  private ready = false;
  lastSummary: RenderedSummary | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  private constructor(
    readonly key: string,
    readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
  ) {
    const dist = vscode.Uri.joinPath(extensionUri, "dist");
    panel.webview.options = { enableScripts: true, localResourceRoots: [dist] };
    panel.webview.html = resultsHtml(panel.webview, dist, crypto.randomBytes(18).toString("base64"));
    this.disposables.push(
      panel.webview.onDidReceiveMessage((m: FromWebview) => this.onMessage(m)),
      panel.onDidDispose(() => this.dispose()),
    );
    ResultsPanel.panels.set(key, this);
  }

  /** The panel for `key` (a program), created beside the editor when there is none. */
  static forProgram(key: string, title: string, extensionUri: vscode.Uri): ResultsPanel {
    const existing = ResultsPanel.panels.get(key);
    if (existing) {
      existing.panel.title = title;
      existing.panel.reveal(vscode.ViewColumn.Beside, true);
      return existing;
    }
    const panel = vscode.window.createWebviewPanel(RESULTS_VIEW_TYPE, title, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, {
      enableScripts: true,
      retainContextWhenHidden: true,
      localResourceRoots: [vscode.Uri.joinPath(extensionUri, "dist")],
    });
    return new ResultsPanel(key, panel, extensionUri);
  }

  /** Shows a profile report in a panel (profile.ts sets it): a restored panel's Profile section. */
  static profileRestorer: ((panel: ResultsPanel, profileFile: string, program: string) => void) | undefined;

  static all(): ResultsPanel[] {
    return [...ResultsPanel.panels.values()];
  }

  static registerSerializer(extensionUri: vscode.Uri): vscode.Disposable {
    return vscode.window.registerWebviewPanelSerializer(RESULTS_VIEW_TYPE, {
      async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: PanelState | undefined) {
        const key = state?.run?.program ?? `restored:${Date.now()}`;
        ResultsPanel.panels.get(key)?.panel.dispose();
        const p = new ResultsPanel(key, panel, extensionUri);
        if (state?.run && state.resultsFile) {
          p.reset(state.run, state.resultsFile);
          p.addRecords(new ResultsTail(state.resultsFile).read(true));
          if (state.output) p.addOutput(state.output, "stdout");
          p.setStatus(state.status ?? { state: "ok", message: "Restored from the results file." });
          if (state.profileFile && fs.existsSync(state.profileFile)) ResultsPanel.profileRestorer?.(p, state.profileFile, state.run.program);
        }
      },
    });
  }

  reset(run: RunInfo, resultsFile: string): void {
    this.run = run;
    this.resultsFile = resultsFile;
    this.records = [];
    this.output = "";
    this.status = undefined;
    this.profile = undefined;
    this.profileFile = undefined;
    this.lastSummary = undefined;
    this.post({ type: "reset", run, resultsFile });
  }

  addRecords(records: ResultRecord[]): void {
    if (!records.length) return;
    this.records.push(...records);
    this.post({ type: "records", records });
  }

  addOutput(text: string, stream: "stdout" | "stderr"): void {
    this.output += text;
    this.post({ type: "output", text, stream });
  }

  /** What the status's "Debug this fault" button does (runner.ts sets it for a run that ended with a kernel fault). */
  debugFault: (() => void) | undefined;

  setStatus(status: RunStatus): void {
    this.status = status;
    this.post({ type: "status", status });
  }

  /** The Profile section (profile.ts): a profile's view, or why there is none; `file`, the report's (kept across a reload). */
  setProfile(profile: ProfileMessage, file?: string): void {
    this.profile = profile;
    this.profileFile = file;
    this.post({ type: "profile", profile, ...(file ? { file } : {}) });
  }

  get recordCount(): number {
    return this.records.length;
  }

  private post(m: ToWebview): void {
    if (this.ready) void this.panel.webview.postMessage(m);
  }

  /** A (re)loaded webview asks for everything. */
  private replay(): void {
    if (!this.run) return;
    void this.panel.webview.postMessage({ type: "reset", run: this.run, resultsFile: this.resultsFile } satisfies ToWebview);
    if (this.records.length) void this.panel.webview.postMessage({ type: "records", records: this.records } satisfies ToWebview);
    if (this.output) void this.panel.webview.postMessage({ type: "output", text: this.output, stream: "stdout" } satisfies ToWebview);
    if (this.status) void this.panel.webview.postMessage({ type: "status", status: this.status } satisfies ToWebview);
    if (this.profile) void this.panel.webview.postMessage({ type: "profile", profile: this.profile, ...(this.profileFile ? { file: this.profileFile } : {}) } satisfies ToWebview);
  }

  private onMessage(m: FromWebview): void {
    if (m.type === "ready") {
      this.ready = true;
      this.replay();
    } else if (m.type === "rendered") {
      this.lastSummary = m.summary;
      ResultsPanel.renderedEmitter.fire({ panel: this, summary: m.summary });
    } else if (m.type === "open") void this.openSource(m.file, m.line);
    else if (m.type === "debugFault") {
      if (this.debugFault) this.debugFault();
      else void vscode.window.showInformationMessage("CudaScript: run the program again to debug its fault (this panel was restored, the run is gone).");
    }
  }

  private async openSource(file: unknown, line: unknown): Promise<void> {
    if (typeof file !== "string" || !file) return;
    const n = typeof line === "number" && Number.isFinite(line) ? Math.max(1, Math.floor(line)) : 1;
    let abs = file;
    if (!path.isAbsolute(abs)) {
      const bases = [this.run ? path.dirname(this.run.program) : undefined, ...(vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath)];
      abs = bases.map((b) => b && path.resolve(b, file)).find((p) => p && fs.existsSync(p)) ?? file;
    }
    if (!fs.existsSync(abs)) {
      void vscode.window.showWarningMessage(`CudaScript: cannot find ${file}`);
      return;
    }
    const pos = new vscode.Position(n - 1, 0);
    await vscode.window.showTextDocument(vscode.Uri.file(abs), { viewColumn: vscode.ViewColumn.One, selection: new vscode.Range(pos, pos) });
  }

  private dispose(): void {
    if (ResultsPanel.panels.get(this.key) === this) ResultsPanel.panels.delete(this.key);
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
