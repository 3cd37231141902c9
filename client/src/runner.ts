/**
 * Runs a host program through `cudascript run` in a child process: a progress notification with
 * Cancel (kills the whole process tree), output streamed to the "CudaScript" output channel, the
 * results file tailed into the results panel, and a clear message on failure or timeout.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { findCli } from "./cli";
import { failureLine } from "./failure";
import { DEBUG_THIS_FAULT, debugThisFault, runFault } from "./fault-replay";
import { runSettings } from "./config";
import { start } from "./processes";
import { ResultsPanel, ResultsTail } from "./resultsPanel";
import type { RunState } from "./webview/messages";
import { storageFolder } from "./storage";

export interface RunRequest {
  /** The program to run (a .ts host program). */
  readonly program: string;
  /** Key of the results panel (the program, or kernel@file for Run Kernel). */
  readonly panelKey: string;
  /** Panel title and header. */
  readonly title: string;
  readonly headerTitle: string;
  /** Another `cudascript` command than `run`, with its own options (Profile: `profile --format json -o FILE`). */
  readonly cli?: { readonly command: string; readonly options: readonly string[] };
}

export interface RunResult {
  readonly state: RunState;
  readonly exitCode: number | null;
  readonly output: string;
  readonly resultsFile: string;
  readonly records: number;
  readonly durationMs: number;
  readonly message: string;
}

export class Runner {
  private readonly running = new Map<string, { cancel(): Promise<void> }>();
  private readonly deviceEmitter = new vscode.EventEmitter<{ backend: string; device: string }>();
  /** Fires when a run reports its backend and device (the status bar shows it). */
  readonly onDidReportDevice = this.deviceEmitter.event;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly channel: vscode.OutputChannel,
  ) {}

  async run(req: RunRequest): Promise<RunResult> {
    void this.running.get(req.panelKey)?.cancel();
    const settings = runSettings(vscode.Uri.file(req.program));
    const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(req.program))?.uri.fsPath;
    const cwd = folder ?? path.dirname(req.program);
    const cli = findCli(path.dirname(req.program), this.context.extensionUri.fsPath);
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    const resultsFile = path.join(storageFolder(this.context, "results", ".jsonl"), `${stamp}-${path.basename(req.program, ".ts")}.jsonl`);
    fs.writeFileSync(resultsFile, "");
    const rel = folder ? path.relative(folder, req.program) : req.program;
    // Options before the program: `cudascript run` hands everything after the file to the program.
    const options = ["--backend", settings.backend, "--timeout", String(settings.timeoutSeconds)];
    if (settings.sanitize) options.push("--sanitize");
    if (settings.simulatorWorkers > 0) options.push("--workers", String(settings.simulatorWorkers));
    const command = req.cli?.command ?? "run";
    if (req.cli) options.splice(0, options.length, ...req.cli.options);
    const args = [command, ...options, req.program];
    const commandText = `cudascript ${[command, ...options, rel].join(" ")}`;

    const panel = ResultsPanel.forProgram(req.panelKey, req.title, this.context.extensionUri);
    panel.reset({ title: req.headerTitle, program: req.program, command: commandText, startedAt: new Date().toISOString() }, resultsFile);

    const t0 = Date.now();
    panel.debugFault = undefined;
    const finish = (state: RunState, exitCode: number | null, message: string, output: string): RunResult => {
      const durationMs = Date.now() - t0;
      panel.setStatus({ state, exitCode, durationMs, message, ...(panel.debugFault ? { debugFault: true as const } : {}) });
      const icon = state === "ok" ? "✔" : state === "cancelled" ? "■" : "✖";
      this.channel.appendLine(`${icon} ${message} (${(durationMs / 1000).toFixed(2)} s)`);
      this.channel.appendLine("");
      return { state, exitCode, output, resultsFile, records: panel.recordCount, durationMs, message };
    };

    this.channel.appendLine(`▶ ${commandText}`);
    if (!cli) {
      const msg = "the cudascript CLI was not found: install the 'cudascript' package in this project (npm install cudascript), or reinstall the extension.";
      this.channel.appendLine(msg);
      void vscode.window.showErrorMessage(`CudaScript: ${msg}`);
      return finish("failed", null, "could not start", "");
    }
    if (cli.simulatorOnly) this.channel.appendLine(`  (${cli.simulatorOnly})`);
    this.channel.appendLine(cli.source === "project" ? `  (CLI from the workspace: ${cli.script})` : `  (CLI bundled with the extension: ${cli.script})`);

    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ELECTRON_RUN_AS_NODE: "1",
      NO_COLOR: "1",
      FORCE_COLOR: "0",
      CUDASCRIPT_RESULTS_FILE: resultsFile,
    };
    if (settings.nvrtcPath) env.CUDASCRIPT_NVRTC = settings.nvrtcPath;
    if (settings.cacheDir) env.CUDASCRIPT_CACHE_DIR = settings.cacheDir;

    let output = "";
    const tail = new ResultsTail(resultsFile);
    const pump = () => {
      const recs = tail.read();
      for (const r of recs) if (r.type === "run") this.deviceEmitter.fire({ backend: r.backend, device: r.device });
      panel.addRecords(recs);
    };

    return vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `CudaScript: running ${path.basename(req.title.replace(/^Results: /, ""))}`, cancellable: true },
      async (progress, token) => {
        const proc = start(process.execPath, [cli.script, ...args], {
          cwd,
          env,
          onOutput: (text) => {
            output += text;
            this.channel.append(text);
            panel.addOutput(text, "stdout");
          },
        });
        let cancelled = false;
        let timedOut = false;
        const cancel = () => {
          cancelled = true;
          return proc.kill();
        };
        this.running.set(req.panelKey, { cancel });
        token.onCancellationRequested(() => void cancel());
        // the CLI enforces --timeout itself; this is the backstop if it does not stop
        const timer = setTimeout(() => {
          timedOut = true;
          void proc.kill();
        }, (settings.timeoutSeconds + 5) * 1000);
        const poll = setInterval(() => {
          pump();
          progress.report({ message: `${((Date.now() - t0) / 1000).toFixed(0)} s` });
        }, 250);
        const { code, signal } = await proc.done;
        clearTimeout(timer);
        clearInterval(poll);
        if (this.running.get(req.panelKey)?.cancel === cancel) this.running.delete(req.panelKey);
        pump();
        panel.addRecords(tail.read(true));
        const timeoutByCli = code !== 0 && /\btimed out\b/i.test(output.slice(-2000));
        if (cancelled) return finish("cancelled", code, "cancelled: the run and its processes were stopped", output);
        if (timedOut || timeoutByCli) {
          const msg = `timed out after ${settings.timeoutSeconds} s and was stopped (setting cudascript.run.timeoutSeconds)`;
          void vscode.window.showErrorMessage(`CudaScript: ${path.basename(req.program)} ${msg}.`, "Show Output").then((a) => a && this.channel.show(true));
          return finish("timeout", code, msg, output);
        }
        if (code === 0) return finish("ok", 0, "finished with exit code 0", output);
        const why = code === null ? (signal ? `was killed by ${signal}` : "could not be started") : `exited with code ${code}`;
        const reason = failureLine(output);
        const msg = `${why}${reason ? `: ${reason.slice(0, 300)}` : ""}`;
        // A kernel fault can be replayed in the debugger, stopped at its thread and line (fault-replay.ts).
        const fault = runFault(output);
        const debug = fault && (() => void debugThisFault({ program: req.program, cwd, sanitize: settings.sanitize }, fault));
        panel.debugFault = debug; // the results panel's status offers it too
        void vscode.window.showErrorMessage(`CudaScript: ${path.basename(req.program)} ${msg}`, ...(debug ? [DEBUG_THIS_FAULT] : []), "Show Output").then((a) => {
          if (a === DEBUG_THIS_FAULT) debug?.();
          else if (a) this.channel.show(true);
        });
        return finish("failed", code, msg, output);
      },
    );
  }

  /** Stops every run (deactivation): kills the process trees. */
  async cancelAll(): Promise<void> {
    await Promise.all([...this.running.values()].map((r) => r.cancel()));
  }
}
