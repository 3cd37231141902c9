/**
 * `cudascript debug --on-fault [--sanitize] [--uninitialized-shared warn|error] <file.ts> [args...]`:
 * replay to a fault from the command line (docs/debugging.md, "Replay to a fault"). The program runs
 * again as `cudascript run` ran it, on the simulator, in the debugger's host-program thread
 * (debugger/host/host-program.ts); at its first kernel fault the launch is replayed and stops at the
 * faulting thread, before the statement that faults. The stop is printed (debugger/replay-report.ts):
 * the fault, the thread and its line with the source around it, its locals, shared memory, and a race's
 * other thread with its line and locals. On a terminal a prompt then lets you look further (another
 * thread, an expression); otherwise the program goes on at once and ends with the fault, as it did.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as readline from "node:readline";
import { CudaScriptError } from "../errors";
import { printUsageError, startCommand, type Command } from "./args";
import type { DebugTarget } from "../debugger/host/target";

const USAGE = `Usage: cudascript debug --on-fault [options] <file.ts> [program args...]
       cudascript debug --on-fault [options] --kernel <name> <kernels.ts>

Runs the program again on the simulator and stops at its first kernel fault — an out-of-bounds access,
a sanitizer finding, a thrown error — at the faulting thread, before the statement that faults runs;
prints the thread, its line and locals, shared memory and, for a race, the other thread. The simulator
is deterministic: the run stops where \`cudascript run\` faulted. Give the options the run had.

Options:
  --on-fault                     replay to the program's first kernel fault (required)
  --sanitize                     with the sanitizer, as 'cudascript run --sanitize' (races, divergence,
                                 uninitialised reads are faults only with it)
  --uninitialized-shared <mode>  warn | error, as 'cudascript run'
  --kernel <name>                a kernel of the file, launched as its @run tag says (as Run Kernel)
  --no-prompt                    print the stop and go on, even on a terminal
  -h, --help                     this text

On a terminal, at the stop:  p <expr>  evaluate in the thread   t <x> [y] [z]  another thread of the block
                             o  the other access of a race     l  the stop again     c  go on (the program ends with the fault)
                             q  stop the program here`;

export const debugCommand: Command = async (argv) => {
  const args = startCommand(argv, { "on-fault": { type: "boolean" }, sanitize: { type: "boolean" }, "uninitialized-shared": { type: "string" }, kernel: { type: "string" }, "no-prompt": { type: "boolean" } }, USAGE, { program: true });
  if (typeof args === "number") return args;
  const file = args.positional[0];
  if (!args.flags.has("on-fault")) return printUsageError("'cudascript debug' replays a run to its fault: give --on-fault (an editor debugs through 'cudascript debug-adapter')", USAGE);
  if (!file) return printUsageError("no program: give the .ts file 'cudascript run' ran", USAGE);
  const uninit = args.flags.get("uninitialized-shared");
  if (uninit !== undefined && uninit !== "warn" && uninit !== "error") return printUsageError(`--uninitialized-shared takes warn or error, not '${String(uninit)}'`, USAGE);
  const sanitize = args.flags.has("sanitize");
  if (uninit !== undefined && !sanitize) return printUsageError("--uninitialized-shared only applies with --sanitize", USAGE);
  let program = path.resolve(file);
  const stat = fs.statSync(program, { throwIfNoEntry: false });
  if (!stat?.isFile()) {
    console.error(`cudascript: ${stat ? `cannot debug ${file}: not a regular file; give a TypeScript file` : `no such file: ${file}`}`);
    return 2;
  }
  const kernel = args.flags.get("kernel");
  if (typeof kernel === "string") {
    if (args.programArgs.length) return printUsageError("a kernel from its @run tag takes no program arguments", USAGE);
    try {
      const { runTagProgram } = require("../debugger/host/host-launch") as typeof import("../debugger/host/host-launch");
      program = runTagProgram(program, kernel);
    } catch (e) {
      if (!(e instanceof CudaScriptError)) throw e;
      console.error(`cudascript: error ${e.message}`);
      return 1;
    }
  }
  const { HostProgram } = require("../debugger/host/host-program") as typeof import("../debugger/host/host-program");
  const { formatStop } = require("../debugger/replay-report") as typeof import("../debugger/replay-report");
  const interactive = process.stdin.isTTY === true && process.stdout.isTTY === true && !args.flags.has("no-prompt");
  let stoppedByUs = false;
  return new Promise<number>((resolve) => {
    const host: InstanceType<typeof HostProgram> = new HostProgram(
      {
        program,
        args: args.programArgs,
        env: {},
        stopOnEntry: false,
        breakOnFault: true,
        breakpoints: new Map(),
        replay: { fault: true, sanitize, ...(uninit ? { uninitializedShared: uninit as "warn" | "error" } : {}) },
      },
      {
        // "console" is the debugger's summary of the arrays the program reported: `cudascript run` prints none.
        output: (text, category) => void (category === "stderr" ? process.stderr.write(text) : category === "stdout" ? process.stdout.write(text) : undefined),
        verified: () => {},
        // Answered outside the message handler: the calls into the program's thread wait for it.
        stopped: (stop) =>
          setImmediate(() => {
            const report = formatStop(stop, host.target.replayOther());
            process.stdout.write(report);
            // A pause is a runaway loop's (CSD019): going on would only loop again, so the program is stopped.
            const stopProgram = (): void => {
              process.stderr.write("cudascript debug: the program is stopped in its runaway loop\n");
              stoppedByUs = true;
              void host.terminate();
            };
            const goOn = (): void => void (stop.reason === "pause" ? stopProgram() : host.target.continue());
            if (interactive) void prompt(host.target, report, goOn, stopProgram);
            else goOn();
          }),
        exited: (code, error) => {
          if (error) process.stderr.write(`cudascript: ${error.message}\n`);
          resolve(stoppedByUs ? 1 : code);
        },
      },
    );
  });
};


/** The terminal prompt at a stop: looks around (nothing it does runs the kernel), `c` goes on. */
function prompt(target: DebugTarget, stop: string, goOn: () => void, quit: () => void): Promise<void> {
  const { formatThread } = require("../debugger/replay-report") as typeof import("../debugger/replay-report");
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout, prompt: "(cudascript debug) " });
  return new Promise((resolve) => {
    let finished = false;
    const done = (then: () => void): void => {
      if (finished) return;
      finished = true;
      rl.close();
      then();
      resolve();
    };
    rl.on("line", (line) => {
      const [cmd, ...rest] = line.trim().split(/\s+/);
      try {
        if (cmd === "c" || cmd === "continue") return done(goOn);
        if (cmd === "q" || cmd === "quit") return done(quit);
        if (cmd === "p" || cmd === "print") console.log(target.evaluate(rest.join(" ")).result);
        else if (cmd === "t" || cmd === "thread") {
          const [x = 0, y = 0, z = 0] = rest.map(Number);
          process.stdout.write(formatThread(target.focus([x, y, z])));
        } else if (cmd === "o" || cmd === "other") {
          const o = target.replayOther();
          console.log(o ? `the other access: thread (${o.thread.join(", ")}) of block (${o.block.join(", ")}) at line ${o.frames[0]?.line}` : "no other access: the fault is not a race");
        } else if (cmd === "l" || cmd === "list") {
          process.stdout.write(stop);
        } else if (cmd) console.log("p <expr> | t <x> [y] [z] | o | l | c");
      } catch (e) {
        console.log(e instanceof CudaScriptError ? e.message : (e as Error).message);
      }
      rl.prompt();
    });
    // End of input (Ctrl-D) goes on too: the program must end.
    rl.on("close", () => done(goOn));
    rl.prompt();
  });
}
