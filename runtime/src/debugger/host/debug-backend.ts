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
import { DebugSession, type BreakpointSpec, type DebugEvent, type StopEvent } from "../session";

export interface DebugBackendOptions {
  /** Stop at the first statement of the first launch. */
  readonly stopOnEntry: boolean;
  readonly breakOnFault: boolean;
  /** The breakpoints by file; read at each launch (the adapter changes them meanwhile). */
  readonly breakpoints: ReadonlyMap<string, readonly BreakpointSpec[]>;
  /** Called before each launch: takes in what the adapter sent while the program ran (new breakpoints). */
  readonly beforeLaunch: () => void;
  /** A launch stopped: serve the adapter until a command ends the launch; returns that end. */
  readonly stopped: (session: DebugSession, stop: StopEvent) => DebugEvent;
}

export class DebuggingSimulatorBackend extends SimulatorBackend {
  private readonly checker = new KernelChecker();
  /** Each kernel file's IR, checked once: the stepping backend is generated from the IR, which a bundle holds only in serialised form. */
  private readonly irModules = new Map<string, IrModule>();
  private stopOnEntry: boolean;

  constructor(private readonly debug: DebugBackendOptions) {
    super("simulator (debugging)");
    this.stopOnEntry = debug.stopOnEntry;
  }

  override launch(module: ModuleHandle, kernel: string, config: LaunchConfig, args: readonly KernelArg[]): void {
    const artifact = module.artifact;
    if (artifact.kernels[kernel]?.simulator.cooperative) return super.launch(module, kernel, config, args);
    this.debug.beforeLaunch();
    const session = new DebugSession(
      { module: this.irOf(artifact.file), kernel, grid: config.grid, block: config.block, sharedMem: config.sharedMem, args: this.argDescs(args) },
      { stopOnEntry: this.stopOnEntry, breakOnFault: this.debug.breakOnFault, print: this.options.print },
    );
    this.stopOnEntry = false;
    for (const [file, specs] of this.debug.breakpoints) session.setBreakpoints(file, specs);
    let e = session.continue();
    if (e.kind === "stop") e = this.debug.stopped(session, e);
    if (e.kind === "end" && e.error) throw e.error;
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
