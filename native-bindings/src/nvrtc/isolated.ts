// NVRTC compiles in a child process, so that a crash of the native library (a stack overflow on
// deeply nested code, or any other fault) ends that child instead of the CLI, the language server or
// the user's program; the caller gets a result with `crashed` set, which the compiler reports as
// CS9003. The child also gives NVRTC the largest stack koffi allows (nvrtc-compile-child.ts): koffi's
// async calls, which compiled on libuv's pool before, run native code on a 128 KiB stack that a
// 20-term Horner polynomial overflows.
//
// - Asynchronous compiles share one long-lived child per library (started at the first compile and
//   restarted after a crash), so only the first compile pays for starting it. One compile runs at a
//   time; the others wait their turn. While idle the child does not keep the parent alive.
// - Synchronous compiles (the GPU backend loading kernels) run in a one-shot child (spawnSync).
import { fork, spawnSync, type ChildProcess } from "node:child_process";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import * as v8 from "node:v8";
import type { CompileRequest, CompileResult, NvrtcCrash } from "./compile-types";
export type { NvrtcCrash } from "./compile-types";

/** `errorCode` of a compile whose process crashed. */
export const NVRTC_CRASHED = "NVRTC_CRASHED";

/** The compile child's script: next to this file (tsc output), or next to the bundle that inlined it. */
export const COMPILE_CHILD_SCRIPT = path.join(__dirname, "nvrtc-compile-child.js");

// PTX of a large module is a few MiB; leave room so a big one is not mistaken for a crash.
const MAX_REPLY_BYTES = 1024 * 1024 * 1024;

/** Compiles in a one-shot child process; blocks until it is done. */
export function compileInChildSync(library: string, request: CompileRequest): CompileResult {
  const start = performance.now();
  const run = spawnSync(process.execPath, [COMPILE_CHILD_SCRIPT, "--once"], {
    input: v8.serialize({ library, request }),
    maxBuffer: MAX_REPLY_BYTES,
    env: childEnv(),
    stdio: ["pipe", "pipe", "inherit"],
    windowsHide: true,
  });
  if (run.status === 0 && run.stdout.length > 0) return { ...(v8.deserialize(run.stdout) as CompileResult), millis: performance.now() - start };
  const crash: NvrtcCrash = { signal: run.signal, exitCode: run.status };
  if (run.error) crash.startError = run.error.message;
  return crashedResult(request, crash, start);
}

interface Job {
  request: CompileRequest;
  start: number;
  resolve(result: CompileResult): void;
}

/** One long-lived compile child for one NVRTC library. */
class CompileChild {
  private child: ChildProcess | undefined;
  private current: Job | undefined;
  private readonly waiting: Job[] = [];

  constructor(private readonly library: string) {}

  compile(request: CompileRequest): Promise<CompileResult> {
    return new Promise((resolve) => {
      this.waiting.push({ request, start: performance.now(), resolve });
      this.next();
    });
  }

  private next(): void {
    if (this.current || this.waiting.length === 0) return;
    const child = this.child ?? this.start();
    this.current = this.waiting.shift()!;
    setKeepsParentAlive(child, true);
    child.send({ library: this.library, request: this.current.request }, (err) => {
      if (err) this.ended(child, { signal: null, exitCode: null, startError: err.message });
    });
  }

  private start(): ChildProcess {
    const child = fork(COMPILE_CHILD_SCRIPT, [], {
      execArgv: [], // not the parent's --inspect, --test, …
      serialization: "advanced", // CUBINs travel as Uint8Array
      stdio: ["ignore", "ignore", "inherit", "ipc"], // stdout may be the language server's LSP stream
      env: childEnv(),
    });
    this.child = child;
    child.on("message", (message: { result: CompileResult }) => {
      const job = this.current;
      if (child !== this.child || !job) return;
      this.current = undefined;
      setKeepsParentAlive(child, false);
      job.resolve({ ...message.result, millis: performance.now() - job.start });
      this.next();
    });
    child.on("exit", (exitCode, signal) => this.ended(child, { signal, exitCode }));
    child.on("error", (e) => this.ended(child, { signal: null, exitCode: null, startError: e.message }));
    return child;
  }

  // The child is gone (crashed, killed, or never started): the compile it was running failed;
  // the ones waiting get a new child.
  private ended(child: ChildProcess, crash: NvrtcCrash): void {
    if (child !== this.child) return; // already handled (error and exit both fire)
    this.child = undefined;
    if (child.exitCode === null && child.signalCode === null) child.kill();
    const job = this.current;
    this.current = undefined;
    if (job) job.resolve(crashedResult(job.request, crash, job.start));
    this.next();
  }
}

const children = new Map<string, CompileChild>();

/** Compiles in the long-lived child process for `library`. */
export function compileInChild(library: string, request: CompileRequest): Promise<CompileResult> {
  let child = children.get(library);
  if (!child) children.set(library, (child = new CompileChild(library)));
  return child.compile(request);
}

function crashedResult(request: CompileRequest, crash: NvrtcCrash, start: number): CompileResult {
  // A signal is NVRTC crashing; an exit code is the child failing on its own (its script missing from
  // a package, a broken install), which its stderr explains: not something the user's code caused.
  const how = crash.startError
    ? `the NVRTC compile process could not run (${crash.startError})`
    : crash.signal
      ? `NVRTC crashed (${crash.signal}) while compiling ${request.name}`
      : `the NVRTC compile process (${COMPILE_CHILD_SCRIPT}) exited with code ${crash.exitCode} while compiling ${request.name}, before replying; its error output says why`;
  return { ok: false, log: how, errorCode: NVRTC_CRASHED, crashed: crash, millis: performance.now() - start };
}

// Inside VS Code (Electron) process.execPath is the editor: make it behave as plain Node.
function childEnv(): NodeJS.ProcessEnv {
  return { ...process.env, ELECTRON_RUN_AS_NODE: "1" };
}

// A busy child keeps the parent's event loop alive (its reply is awaited); an idle one must not, or
// a CLI would never exit.
function setKeepsParentAlive(child: ChildProcess, keep: boolean): void {
  const channel = child.channel as { ref?(): void; unref?(): void } | null | undefined;
  if (keep) {
    child.ref();
    channel?.ref?.();
  } else {
    child.unref();
    channel?.unref?.();
  }
}
