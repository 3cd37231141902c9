/**
 * The thread that runs a host program being debugged (started by host-program.ts): the program runs as
 * `cudascript run --backend simulator` runs it (same build and TypeScript loading, same CUDASCRIPT_*
 * settings from its environment, same error report), with its kernel launches on DebuggingSimulatorBackend. Its
 * console output and its kernels' go to the adapter as messages, in the order written. At a launch that
 * stops, this thread blocks and serves the adapter's calls on the launch's DebugSession (rpc.ts).
 */
import { receiveMessageOnPort, workerData, type MessagePort } from "node:worker_threads";
import { CudaScriptError } from "../../errors";
import { useBackend } from "../../host/device";
import type { BreakpointSpec, DebugEvent } from "../session";
import { DebuggingSimulatorBackend } from "./debug-backend";
import { logpointLine } from "../breakpoints";
import { serveCalls, Slot, encode } from "./rpc";
import { HostReplay, type HostReplayOptions } from "../replay-host";

export interface HostWorkerData {
  readonly program: string;
  readonly args: readonly string[];
  readonly stopOnEntry: boolean;
  readonly breakOnFault: boolean;
  readonly breakpoints: readonly (readonly [string, readonly BreakpointSpec[]])[];
  /** Replay to a fault (replay-host.ts). */
  readonly replay?: HostReplayOptions;
  readonly port: MessagePort;
  readonly control: Int32Array;
}

/** Messages of this thread to the adapter. */
export type HostMessage =
  /** "console": what the debugger says, not the program (a logpoint). */
  | { readonly type: "output"; readonly category: "stdout" | "stderr" | "console"; readonly text: string }
  | { readonly type: "stopped"; readonly event: unknown }
  /** A breakpoint list from the adapter (the other direction). */
  | { readonly type: "breakpoints"; readonly file: string; readonly specs: readonly BreakpointSpec[] }
  /** Lines of `file` with breakpoints that a launch's module has a statement on, first seen in this launch. */
  | { readonly type: "verified"; readonly file: string; readonly lines: readonly number[] };

const data = workerData as HostWorkerData;
const { port, control } = data;
const breakpoints = new Map<string, readonly BreakpointSpec[]>(data.breakpoints);

/** A debugger error the launch cannot go on after (see DebuggingSimulatorBackend.firstStop): the session ends with it. */
function fatal(error: CudaScriptError): never {
  process.stderr.write(`cudascript debug: ${error.message}\nThe launch cannot go on: the debug session ends. Fix that and start debugging again.\n`);
  // Ends this thread at once (the program does not see the error); exit code 1.
  process.exit(1);
}
/** `file:line` of the breakpoints reported verified already: each once, not at every launch. */
const verified = new Set<string>();

// Everything the program and its kernels write reaches the adapter through one channel, in order.
for (const [stream, category] of [
  [process.stdout, "stdout"],
  [process.stderr, "stderr"],
] as const) {
  stream.write = ((chunk: string | Uint8Array, encoding?: unknown, cb?: unknown) => {
    const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    port.postMessage({ type: "output", category, text } satisfies HostMessage);
    const done = typeof encoding === "function" ? encoding : cb;
    if (typeof done === "function") (done as () => void)();
    return true;
  }) as typeof stream.write;
}

// An adapter waiting for an answer learns that none will come.
process.on("exit", (code) => {
  // The program's end (it runs on after runCommand returns): a replay that met no fault says so
  // (not when the program never ran: a usage error, code 2).
  const note = code === 2 ? undefined : replay?.finish();
  if (note) process.stderr.write(note);
  Atomics.store(control, Slot.Ended, 1);
  Atomics.notify(control, Slot.Answers);
});

function takeMessage(m: unknown): void {
  const msg = m as HostMessage;
  if (msg.type === "breakpoints") breakpoints.set(msg.file, msg.specs);
}

const replay = data.replay ? new HostReplay(data.replay, (text) => process.stderr.write(text)) : undefined;

useBackend(
  new DebuggingSimulatorBackend({
    ...(replay ? { replay } : {}),
    stopOnEntry: data.stopOnEntry,
    breakOnFault: data.breakOnFault,
    breakpoints,
    warn: (text) => process.stderr.write(text),
    log: (e) => port.postMessage({ type: "output", category: "console", text: logpointLine(e) } satisfies HostMessage),
    fatal,
    verified: (file, results) => {
      const lines = results.filter((r) => r.verified && !verified.has(`${file}:${r.line}`)).map((r) => r.line);
      for (const line of lines) verified.add(`${file}:${line}`);
      if (lines.length) port.postMessage({ type: "verified", file, lines } satisfies HostMessage);
    },
    beforeLaunch: () => {
      for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) takeMessage(m.message);
    },
    stopped: (session, stop) => {
      port.postMessage({ type: "stopped", event: encode(stop) } satisfies HostMessage);
      let end: DebugEvent = { kind: "end" };
      serveCalls(
        session,
        port,
        control,
        (_, value) => {
          const v = value as DebugEvent | undefined;
          if (v?.kind === "end") end = v;
          return v?.kind === "end";
        },
        takeMessage,
        // A condition that fails for a thread while a command runs the launch: stopped mid-statement, it cannot go on.
        (method, e) => {
          if (e instanceof CudaScriptError && e.code === "CSD009" && method !== "setBreakpoints") fatal(e);
        },
      );
      return end;
    },
  }),
);

// As `cudascript run --backend simulator <program> [args…]`.
const { runCommand } = require("../../cli/run-command") as typeof import("../../cli/run-command");
runCommand(["--backend", "simulator", ...(data.replay?.sanitize ? ["--sanitize"] : []), ...(data.replay?.sanitize && data.replay.uninitializedShared ? ["--uninitialized-shared", data.replay.uninitializedShared] : []), data.program, ...data.args]).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`cudascript: internal error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 3;
  },
);
