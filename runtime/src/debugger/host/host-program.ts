/**
 * The adapter's side of a host program being debugged: starts the program's thread (host-worker.ts),
 * turns its messages into the adapter's events (output, a launch stopped, the program's end), and,
 * while a launch is stopped, is the DebugTarget of that launch (target.ts: every call is answered by
 * the DebugSession in the program's thread).
 *
 * The program runs in a worker thread, not a child process: a launch is synchronous in the program,
 * and the stopped thread serves calls over shared memory while its device memory stays where it is.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { MessageChannel, receiveMessageOnPort, Worker } from "node:worker_threads";
import { CudaScriptError } from "../../errors";
import { parseResults, RESULTS_FILE_ENV } from "../../report/protocol";
import { formatReport } from "../../report/text";
import type { BreakpointSpec, DebugEvent, StopEvent } from "../session";
import { CONTROL_WORDS, decode, SyncCaller } from "./rpc";
import { remoteSession, type DebugTarget } from "./target";
import type { HostMessage, HostWorkerData } from "./host-worker";
import type { HostReplayOptions } from "../replay-host";

export interface HostProgramOptions {
  /** The host program (.ts), an absolute path. */
  readonly program: string;
  readonly args: readonly string[];
  /** Variables added to the program's environment. */
  readonly env: Readonly<Record<string, string>>;
  readonly stopOnEntry: boolean;
  readonly breakOnFault: boolean;
  readonly breakpoints: ReadonlyMap<string, readonly BreakpointSpec[]>;
  /** Replay to a fault (replay-host.ts): the program runs again and stops at its first kernel fault. */
  readonly replay?: HostReplayOptions;
}

export interface HostProgramEvents {
  /** The program's output; "console": the arrays it reported (`report(…)`), at its end. */
  output(text: string, category: "stdout" | "stderr" | "console"): void;
  /** Breakpoints on these lines of `file` are on a kernel statement (seen in a launch). */
  verified(file: string, lines: readonly number[]): void;
  /** A launch stopped: `target` answers for it until a command ends the launch. */
  stopped(event: StopEvent): void;
  /** The program ended: its exit code; `error` when its thread failed rather than ended. */
  exited(code: number, error?: CudaScriptError): void;
}

export class HostProgram {
  /** The stopped launch's DebugSession, through the program's thread. */
  readonly target: DebugTarget;
  private readonly worker: Worker;
  private readonly port: MessageChannel["port1"];
  private stoppedInLaunch = false;
  private ended = false;
  private failure: CudaScriptError | undefined;
  /** Where the program's `report(…)` records go (a results panel's file), shown as text at its end. */
  private readonly resultsFile: string | undefined;

  constructor(options: HostProgramOptions, private readonly events: HostProgramEvents) {
    const channel = new MessageChannel();
    const control = new Int32Array(new SharedArrayBuffer(CONTROL_WORDS * 4));
    this.port = channel.port1;
    const caller = new SyncCaller(this.port, control, (m) => this.take(m));
    const remote = remoteSession(caller);
    // Every call is made while a launch is stopped; an answer that ends the launch ends that.
    this.target = new Proxy(remote, {
      get: (t, name, receiver) => {
        if (!this.stoppedInLaunch) throw new CudaScriptError("CSD022", `the program is running: no kernel launch is stopped (the debugger was asked for '${String(name)}')`);
        const member = Reflect.get(t, name, receiver);
        if (typeof member !== "function") return member;
        return (...args: unknown[]) => {
          const value = (member as (...a: unknown[]) => unknown)(...args);
          if ((value as DebugEvent | undefined)?.kind === "end") this.stoppedInLaunch = false;
          return value;
        };
      },
    });
    const data: HostWorkerData = {
      program: options.program,
      args: [...options.args],
      stopOnEntry: options.stopOnEntry,
      breakOnFault: options.breakOnFault,
      breakpoints: [...options.breakpoints].map(([file, specs]) => [file, [...specs]] as const),
      ...(options.replay ? { replay: options.replay } : {}),
      port: channel.port2,
      control,
    };
    const env: Record<string, string | undefined> = { ...process.env, ...options.env };
    if (!env[RESULTS_FILE_ENV]) {
      this.resultsFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "cudascript-debug-")), "results.jsonl");
      env[RESULTS_FILE_ENV] = this.resultsFile;
    }
    this.worker = new Worker(path.join(__dirname, "host-worker.js"), { workerData: data, transferList: [channel.port2], env, stdout: true, stderr: true });
    this.port.on("message", (m) => this.take(m));
    // Output the thread writes outside the program's streams (Node's own warnings) is output too.
    this.worker.stdout.on("data", (b: Buffer) => events.output(b.toString("utf8"), "stdout"));
    this.worker.stderr.on("data", (b: Buffer) => events.output(b.toString("utf8"), "stderr"));
    this.worker.on("error", (e) => {
      this.failure = new CudaScriptError("CSD022", `the debugged program's thread failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    });
    this.worker.on("exit", (code) => {
      // Messages posted just before the end may not have been delivered yet.
      for (let m = receiveMessageOnPort(this.port); m; m = receiveMessageOnPort(this.port)) this.take(m.message);
      this.ended = true;
      this.stoppedInLaunch = false;
      this.port.close();
      const report = this.takeReport();
      if (report) events.output(report, "console");
      events.exited(code, this.failure);
    });
  }

  /** Whether a launch is stopped (the target answers). */
  get stopped(): boolean {
    return this.stoppedInLaunch;
  }

  /** Replaces the breakpoints of `file` for this launch (when stopped) and every later one; per breakpoint whether a statement is on its line, when known. */
  setBreakpoints(file: string, specs: readonly BreakpointSpec[]): { line: number; verified: boolean }[] | undefined {
    if (this.ended) return undefined;
    this.port.postMessage({ type: "breakpoints", file, specs: [...specs] } satisfies HostMessage);
    return this.stoppedInLaunch ? this.target.setBreakpoints(file, specs) : undefined;
  }

  /** Stops the program's thread, wherever it is (running, or stopped in a launch). */
  async terminate(): Promise<void> {
    if (this.ended) return;
    this.stoppedInLaunch = false;
    await this.worker.terminate();
    if (this.resultsFile) fs.rmSync(path.dirname(this.resultsFile), { recursive: true, force: true });
  }

  /** The arrays the program reported, as text; removes the results file. */
  private takeReport(): string {
    if (!this.resultsFile) return "";
    try {
      return formatReport(parseResults(fs.readFileSync(this.resultsFile, "utf8")));
    } catch {
      return ""; // the program reported nothing: no file
    } finally {
      fs.rmSync(path.dirname(this.resultsFile), { recursive: true, force: true });
    }
  }

  private take(m: unknown): void {
    const msg = m as HostMessage;
    if (msg.type === "output") this.events.output(msg.text, msg.category);
    else if (msg.type === "verified") this.events.verified(msg.file, msg.lines);
    else if (msg.type === "stopped") {
      this.stoppedInLaunch = true;
      this.events.stopped(decode(msg.event) as StopEvent);
    }
  }
}
