/**
 * The simulator backend of a host program being debugged (host-worker.ts): every kernel launch runs as
 * a DebugSession — its own, with the editor's breakpoints — instead of on the executor. A launch where
 * nothing stops costs little more than the fast simulator (the session runs blocks without a reachable
 * breakpoint on the fast simulator's module); one that stops hands its session to `stopped`, which
 * serves the adapter until the launch ends. The launch's end is the simulator's: the same fault
 * (CudaScriptError) thrown to the program, or nothing.
 *
 * Cooperative kernels (g.sync()) run on the plain simulator: the stepping backend runs one block at
 * a time (CSD012).
 */
import { KernelChecker, type IrModule } from "@cudascript/compiler";
import type { KernelArg, LaunchConfig, ModuleHandle } from "../../backend";
import { CudaScriptError } from "../../errors";
import { SimulatorBackend } from "../../simulator/backend";
import { DebugSession, type BreakpointSpec, type DebugEvent, type DebugOptions, type StopEvent } from "../session";
import type { LogEvent } from "../breakpoints";
import type { HostReplay } from "../replay-host";
import type { ReplayTarget } from "../replay-target";

export interface DebugBackendOptions {
  /** Stop at the first statement of the first launch. */
  readonly stopOnEntry: boolean;
  readonly breakOnFault: boolean;
  /** The breakpoints by file; read at each launch (the adapter changes them meanwhile). One whose condition does not parse is removed. */
  readonly breakpoints: Map<string, readonly BreakpointSpec[]>;
  /** What the debugger (not the program) has to say: a breakpoint condition that does not parse. */
  readonly warn: (text: string) => void;
  /** Ends the debug session with a debugger error the launch cannot go on after. */
  readonly fatal: (error: CudaScriptError) => never;
  /** Called before each launch: takes in what the adapter sent while the program ran (new breakpoints). */
  readonly beforeLaunch: () => void;
  /** Which breakpoints of `file` are on a statement of this launch's module (a breakpoint in host code never is). */
  readonly verified: (file: string, results: readonly { line: number; verified: boolean }[]) => void;
  /** A logpoint's message (each launch's session prints through it). */
  readonly log: (e: LogEvent) => void;
  /** A launch stopped: serve the adapter until a command ends the launch; returns that end. */
  readonly stopped: (session: DebugSession, stop: StopEvent) => DebugEvent;
  /** Replay to a fault (replay-host.ts): launches run on the simulator first; the first that faults is debugged to its fault. */
  readonly replay?: HostReplay;
}

/** Replay to a fault: how long a launch may run on the simulator before it is debugged (then it is a runaway loop, CSR024). */
const REPLAY_LAUNCH_MS = 60_000;

export class DebuggingSimulatorBackend extends SimulatorBackend {
  private readonly checker = new KernelChecker();
  /** Each kernel file's IR, checked once: the stepping backend is generated from the IR, which a bundle holds only in serialised form. */
  private readonly irModules = new Map<string, IrModule>();
  private stopOnEntry: boolean;

  constructor(private readonly debug: DebugBackendOptions) {
    super("simulator (debugging)", debug.replay?.simulatorOptions);
    this.stopOnEntry = debug.stopOnEntry;
  }

  override launch(module: ModuleHandle, kernel: string, config: LaunchConfig, args: readonly KernelArg[]): void {
    const artifact = module.artifact;
    if (artifact.kernels[kernel]?.simulator.cooperative) {
      if (!this.debug.replay?.pending) return super.launch(module, kernel, config, args);
      try {
        return super.launch(module, kernel, config, args);
      } catch (e) {
        // Its fault is the one to replay, but the stepping backend runs one block at a time.
        if (e instanceof CudaScriptError && e.details) this.debug.replay.notReplayed(e, `kernel '${kernel}' calls g.sync(): the debugger cannot run cooperative kernels (CSD012), so the fault is reported as the run reported it`);
        throw e;
      }
    }
    this.debug.beforeLaunch();
    const launch = { module: this.irOf(artifact.file), kernel, grid: config.grid, block: config.block, sharedMem: config.sharedMem, args: this.argDescs(args) };
    let replay: ReplayTarget | undefined;
    let more: Partial<DebugOptions> | undefined;
    if (this.debug.replay?.pending) {
      const r = this.debug.replay.launch(launch, () => {
        // A kernel that never ends must not hang the replay: the run's watchdog stops it (CSR024).
        // Its console.log output is held back: a launch that faults prints it again when it is debugged.
        const { deadline, deadlineLabel, print } = this.options;
        const held: string[] = [];
        this.configure({ deadline: Math.min(deadline, Date.now() + REPLAY_LAUNCH_MS), deadlineLabel: `the replay's ${REPLAY_LAUNCH_MS / 1000} s per launch`, print: (text) => void held.push(text) });
        try {
          super.launch(module, kernel, config, args);
          for (const text of held) print(text);
        } finally {
          this.configure({ deadline, deadlineLabel, print });
        }
      });
      if (r.clean) return;
      replay = r.target;
      more = r.options;
    }
    const session = new DebugSession(launch, { stopOnEntry: this.stopOnEntry, breakOnFault: this.debug.breakOnFault, print: this.options.print, log: this.debug.log, ...(replay ? { replay } : {}), ...more });
    this.stopOnEntry = false;
    for (const [file, specs] of this.debug.breakpoints) this.debug.verified(file, this.usable(session, file, specs));
    let e = this.firstStop(session);
    if (e.kind === "stop") e = this.debug.stopped(session, e);
    if (e.kind === "end" && e.error) throw e.error;
  }

  /**
   * Applies the specs of `file` to the launch's session: one the session cannot set (a condition, hit
   * condition or logpoint message that does not check: its result carries the coded error) is reported
   * and removed for the rest of the program, the others apply. Returns which are on a statement.
   */
  private usable(session: DebugSession, file: string, specs: readonly BreakpointSpec[]): { line: number; verified: boolean }[] {
    const results = session.setBreakpoints(file, specs);
    const bad = new Set(results.flatMap((r, i) => (r.message ? [i] : [])));
    if (bad.size === 0) return results;
    for (const i of bad) this.debug.warn(`cudascript debug: ${results[i]!.message}: it is removed\n`);
    const ok = specs.filter((_, i) => !bad.has(i));
    this.debug.breakpoints.set(file, ok);
    return session.setBreakpoints(file, ok);
  }

  /**
   * Runs the launch to its first stop or its end. A debugger error there (a breakpoint condition that
   * fails for a thread, CSD009) is not the program's: it must not reach the program as an exception
   * from its launch, nor can the launch go on (the thread was stopped mid-statement), so the debug
   * session ends with it (`fatal`).
   */
  private firstStop(session: DebugSession): DebugEvent {
    try {
      return session.continue();
    } catch (e) {
      if (e instanceof CudaScriptError && e.code.startsWith("CSD")) this.debug.fatal(e);
      throw e;
    }
  }

  private irOf(file: string): IrModule {
    let m = this.irModules.get(file);
    if (!m) {
      const check = this.checker.checkFile(file);
      const errors = check.diagnostics.filter((d) => d.severity === "error");
      // The program was built from this file a moment ago; it changed on disk since.
      if (errors.length) throw new CudaScriptError("CSD023", `${file} changed since the program was built and no longer checks (${errors[0]!.code} ${errors[0]!.message}): fix it and start debugging again`);
      m = check.module;
      this.irModules.set(file, m);
    }
    return m;
  }
}
