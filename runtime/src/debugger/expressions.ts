/**
 * Debugger expressions (conditions, logpoint `{expr}`s, watches, evaluate) in the kernel language:
 * compiled by the compiler's DebugExpressionCompiler for the variables in scope at a statement, and
 * evaluated over a thread's frame. A compiled expression is cached per (function, variables in scope,
 * text): a condition tried at every pass of a hot line costs one call.
 *
 * An evaluation is synchronous (the adapter answers nothing meanwhile), so it has a time budget, the
 * fast simulator's (`fastBlockTimeoutMs`, 2 s): the loops of the expression's code — its device
 * functions' included — call `rt.watchdog` every 2^20 passes, which here ends an evaluation past its
 * budget with CSD027. An expression that ran out once is not run again in the session (a warp watch
 * or a logpoint would otherwise spend the budget once per thread).
 */
import { DebugExpressionCompiler, type IrModule, type StepModule } from "@cudascript/compiler";
import { CudaScriptError } from "../errors";
import type { Rt } from "../simulator/rt";
import type { Frame } from "./block-scheduler";

export type Dim3 = readonly [number, number, number];

/** An expression compiled for one statement's scope. */
export interface CompiledExpression {
  readonly text: string;
  readonly dtype: string;
  readonly readsVars: boolean;
  readonly readsArrays: boolean;
  readonly ctx: (bx: number, by: number, bz: number, bdx: number, bdy: number, bdz: number, gdx: number, gdy: number, gdz: number) => void;
  readonly eval: (v: readonly unknown[], tx: number, ty: number, tz: number, t: number) => unknown;
  /** The expression as IR over the function's variables (for probes), where it has one. */
  readonly ir?: unknown;
  /** It ran past its time budget once: it is not run again (CSD027 at once). */
  runaway?: boolean;
}

/** Thrown by the expressions' `rt.watchdog` when an evaluation ran past its budget. */
class OverBudget extends Error {}

/** Where an expression is evaluated: a thread (its index in the block), its block, and its frame (none: indices only). */
export interface EvalPlace {
  readonly thread: Dim3;
  readonly t: number;
  readonly block: Dim3;
  readonly frame?: Frame;
}

type CompileResult = ReturnType<DebugExpressionCompiler["compile"]>;

/**
 * The compiler and its results per module (whose IR does not change) and source text: a host program
 * makes a session per launch, and each would otherwise type-check the same conditions again (about
 * 2 ms a launch with one conditional breakpoint, against 0.2 ms for the rest of the session).
 */
const compiledPerModule = new WeakMap<IrModule, Map<string, { compiler: DebugExpressionCompiler; results: Map<string, CompileResult> }>>();

function compiledFor(module: IrModule, source: string | undefined): { compiler: DebugExpressionCompiler; results: Map<string, CompileResult> } {
  let bySource = compiledPerModule.get(module);
  if (!bySource) compiledPerModule.set(module, (bySource = new Map()));
  const key = source ?? "";
  let c = bySource.get(key);
  if (!c) bySource.set(key, (c = { compiler: new DebugExpressionCompiler(module, source), results: new Map() }));
  return c;
}

export class Expressions {
  private readonly cache = new Map<string, CompiledExpression>();
  /** The session's `rt`, with a watchdog that keeps each evaluation within `budgetMs`. */
  private readonly exprRt: Rt;
  /** When the evaluation under way must end (performance.now()); 0 until its first watchdog call. */
  private deadline = 0;

  constructor(
    private readonly module: IrModule,
    private readonly step: StepModule,
    private readonly rt: Rt,
    private readonly blockDim: Dim3,
    private readonly gridDim: Dim3,
    /** The module file's text where it is not on disk (an unsaved buffer). */
    private readonly source?: string,
    /** How long one evaluation may run (ms). */
    private readonly budgetMs = 2000,
  ) {
    this.exprRt = Object.create(rt, { watchdog: { value: () => this.watchdog() } }) as Rt;
  }

  /**
   * Called every 2^20 passes of a loop of an expression's code: the first call starts the clock (no
   * clock read per evaluation of a condition tried at every pass of a hot line), later ones end the
   * evaluation past the budget. Returns the passes until the next call.
   */
  private watchdog(): number {
    const now = performance.now();
    if (this.deadline === 0) this.deadline = now + this.budgetMs;
    else if (now > this.deadline) throw new OverBudget();
    return 1 << 20;
  }

  /**
   * `text` compiled in function `fn` with the variables `visible` in scope. `what` names it in errors
   * ("the condition of the breakpoint at line 12"). A text that is not an expression is CSD009; a type
   * error is the checker's code and message, with the column in the text.
   */
  compile(fn: number, visible: readonly number[], text: string, what: string): CompiledExpression {
    const key = `${fn}|${visible.join(",")}|${text}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    const shared = compiledFor(this.module, this.source);
    let r = shared.results.get(key);
    if (!r) shared.results.set(key, (r = shared.compiler.compile(fn, visible, text)));
    if (!r.ok) {
      const d = r.diagnostics[0]!;
      if (r.reason === "syntax") throw new CudaScriptError("CSD009", `${what} '${text}' is not an expression (${d.message}): write one expression in the kernel language, e.g. cuda.threadIdx.x === 5 && i > 3`);
      if (r.reason === "check") throw new CudaScriptError(d.code, `${what} '${text}', column ${d.col}: ${d.message}`);
      if (r.reason === "source") throw new CudaScriptError("CSD015", `${what} '${text}' cannot be evaluated by the debugger: ${d.message}; save the file, or give its text as the launch's \`source\``);
      throw new CudaScriptError("CSD015", `${what} '${text}' cannot be evaluated by the debugger: ${d.message}; write an expression that only reads variables and memory, e.g. s[t] + 1`);
    }
    const m = new Function("rt", r.source)(this.exprRt) as Pick<CompiledExpression, "ctx" | "eval">;
    const c: CompiledExpression = { text, dtype: r.dtype, readsVars: r.readsVars, readsArrays: r.readsArrays, ctx: m.ctx, eval: m.eval, ...(r.ir ? { ir: r.ir } : {}) };
    this.cache.set(key, c);
    return c;
  }

  /** The variables in scope where a frame is: at its statement, else its function's parameters. */
  visibleAt(fn: number, site: number): readonly number[] {
    const st = site >= 0 ? this.step.statements[site] : undefined;
    if (st && st.fn === fn) return st.visible;
    return this.step.functions[fn]!.vars.flatMap((v, i) => (v.isParam ? [i] : []));
  }

  /**
   * Evaluates a compiled expression for a thread: over its frame's variables, or its indices alone.
   * Past its time budget it is CSD027, which `what` ("the expression") names.
   */
  evaluate(c: CompiledExpression, at: EvalPlace, what = "the expression"): unknown {
    if (c.runaway) throw this.overBudget(c, what, true);
    const [bx, by, bz] = at.block;
    const [dx, dy, dz] = this.blockDim;
    c.ctx(bx, by, bz, dx, dy, dz, this.gridDim[0], this.gridDim[1], this.gridDim[2]);
    const v = !c.readsVars || !at.frame ? NO_VALUES : c.readsArrays ? at.frame.get() : at.frame.scalars();
    this.deadline = 0;
    try {
      return c.eval(v, at.thread[0], at.thread[1], at.thread[2], at.t);
    } catch (e) {
      if (!(e instanceof OverBudget)) throw e;
      c.runaway = true;
      throw this.overBudget(c, what, false);
    }
  }

  private overBudget(c: CompiledExpression, what: string, before: boolean): CudaScriptError {
    return new CudaScriptError(
      "CSD027",
      `${what} '${c.text}' ran ${(this.budgetMs / 1000).toFixed(1)} s without finishing${before ? " when it was evaluated before in this session (it is not run again)" : ""}: a loop in it, or in a device function it calls, does not end; the debugger stopped it (an expression has the fast simulator's time budget). Write an expression whose loops end for the values in scope`,
    );
  }
}

const NO_VALUES: readonly unknown[] = [];

/** A value as a debugger shows it: i64 as `5n`, complex as `1 + 2i`, f32 as its shortest decimal. */
export function formatValue(v: unknown): string {
  if (typeof v === "number") return Object.is(v, -0) ? "-0" : String(v);
  if (typeof v === "bigint") return `${v}n`;
  if (v && typeof v === "object" && "re" in v) {
    const z = v as { re: number; im: number };
    return `${z.re}${z.im < 0 || Object.is(z.im, -0) ? " - " : " + "}${Math.abs(z.im)}i`;
  }
  return String(v);
}
