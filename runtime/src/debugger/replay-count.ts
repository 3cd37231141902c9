/**
 * How many times a thread passed over a line before the launch faulted: the launch's sanitizer module
 * (the code `--sanitize` runs) with a breakpoint probe (compiler step/probe.ts) before each statement
 * that starts on the line, whose condition is the thread's block and thread index. The probe prints
 * instead of stopping; this rt counts its prints. The stepping backend runs a block's threads in the
 * fast simulator's order and stops before each statement of a flagged line, so the n-th pass counted
 * here is the n-th stop there (docs/debugging.md, "Replay to a fault").
 *
 * The run writes device memory: the caller keeps a copy and puts it back (replay-launch.ts).
 */
import { emitProbedSimulatorModule, PROBE_FORMAT, scalar, type Expr, type IrModule, type Span, type Stmt } from "@cudascript/compiler";
import type { CudaScriptError } from "../errors";
import { createRt } from "../simulator/rt";
import { faultError, makeArgs, serializeFault, type ArgDesc } from "../simulator/executor";
import type { LaunchData } from "../simulator/module-cache";
import type { Dim3 } from "./expressions";

const PROBE_TEXT = PROBE_FORMAT.slice(0, PROBE_FORMAT.indexOf(" "));

export interface CountedLaunch {
  readonly kernel: string;
  readonly grid: Dim3;
  readonly block: Dim3;
  readonly sharedMem?: number;
  readonly args: readonly ArgDesc[];
}

/** What a counting run saw: the thread's passes over the line, and the fault it ended with (none: it did not fault). */
export interface PassCount {
  readonly hits: number;
  readonly error: CudaScriptError | undefined;
}

/**
 * The line of the statement a fault at (line, col) of `file` is in: the last statement of the module
 * that starts at or before it (a fault in a multi-line statement is on a later line than its start; a
 * fault in a loop's condition is in the loop statement). Loop updates are not statements a debugger
 * stops at. Undefined when no statement of the file starts before it.
 */
export function statementLine(module: IrModule, file: string, line: number, col: number): number | undefined {
  let best: Span | undefined;
  const walk = (list: readonly Stmt[]): void => {
    for (const s of list) {
      const sp = s.span;
      if (sp.file === file && (sp.line < line || (sp.line === line && sp.col <= col)) && (!best || sp.line > best.line || (sp.line === best.line && sp.col >= best.col))) best = sp;
      if (s.k === "if") {
        walk(s.then);
        if (s.else) walk(s.else);
      } else if (s.k === "loop") {
        walk(s.init);
        walk(s.body);
      } else if (s.k === "block") walk(s.body);
    }
  };
  for (const f of [...module.deviceFunctions, ...module.kernels]) walk(f.body);
  return best?.line;
}

/** `blockIdx == block && threadIdx == thread`, component by component, as IR. */
function threadIs(block: Dim3, thread: Dim3, span: Span): Expr {
  const i32 = scalar("i32");
  const bool = scalar("bool");
  const parts: Expr[] = [];
  for (const [reg, v] of [
    ["blockIdx", block],
    ["threadIdx", thread],
  ] as const)
    (["x", "y", "z"] as const).forEach((axis, i) =>
      parts.push({ k: "compare", type: bool, op: "==", operandType: i32, left: { k: "special", type: i32, reg, axis, span }, right: { k: "const", type: i32, value: v[i]!, span }, span }),
    );
  return parts.reduce((a, b) => ({ k: "logical", type: bool, op: "&&", left: a, right: b, span }));
}

/**
 * Runs the launch on the simulator's module (the sanitizer's with `sanitize`, as the run had it) with a counting probe for `thread` of `block` at `line` of
 * `file` (none without `at`: the launch as the simulator runs it), to its end or its first fault.
 * Undefined when the module cannot be probed there.
 */
export function countPasses(
  module: IrModule,
  launch: CountedLaunch,
  at: { file: string; line: number; block: Dim3; thread: Dim3 } | undefined,
  variant: { sanitize: boolean; uninitializedShared: "warn" | "error" },
): PassCount | undefined {
  const probes = at ? [{ file: at.file, line: at.line, condition: () => threadIs(at.block, at.thread, { file: at.file, start: 0, end: 0, line: at.line, col: 1 }) }] : [];
  const sim = emitProbedSimulatorModule(module, probes, { sanitize: variant.sanitize });
  if (!sim) return undefined;
  let hits = 0;
  const rt = createRt({
    concurrent: false,
    deadline: Infinity,
    print: (s) => {
      if (s.startsWith(PROBE_TEXT)) hits++;
    },
    uninitializedShared: variant.uninitializedShared,
    warn: () => {},
  });
  const mod = new Function("rt", sim.source)(rt) as { kernels: Record<string, { run(L: LaunchData, b0: number, b1: number): void }> };
  const k = mod.kernels[launch.kernel];
  if (!k) return undefined;
  const L: LaunchData = { args: makeArgs(launch.args), grid: launch.grid, block: launch.block, dynBuf: new ArrayBuffer(launch.sharedMem ?? 0) };
  try {
    k.run(L, 0, launch.grid[0] * launch.grid[1] * launch.grid[2]);
    return { hits, error: undefined };
  } catch (e) {
    return { hits, error: faultError(serializeFault(e, launch.kernel)) };
  }
}
