/**
 * Line breakpoints of the debugger's controller: a condition (kernel language, or a function), a hit
 * count condition and a logpoint message, parsed once when set (docs/debugging.md, "Breakpoints").
 */
import { CudaScriptError } from "../errors";
import type { CompiledExpression, Dim3 } from "./expressions";

export interface Xyz {
  readonly x: number;
  readonly y: number;
  readonly z: number;
}

export interface ConditionContext {
  readonly cuda: { readonly threadIdx: Xyz; readonly blockIdx: Xyz; readonly blockDim: Xyz; readonly gridDim: Xyz };
  /** The thread's scalar variables in scope, by name. */
  readonly locals: Readonly<Record<string, unknown>>;
}

export interface BreakpointSpec {
  readonly line: number;
  /** Stops only when true for the thread at the line: an expression in the kernel language over the variables in scope, or a function. */
  readonly condition?: string | ((ctx: ConditionContext) => boolean);
  /**
   * Stops only at some hits (a hit: a thread reaches the line and the condition holds), counted across
   * all threads in the order they run: `5` or `>= 5` from the 5th on, `== 5` the 5th only, `> 5`,
   * `< 5`, `<= 5`, `% 5` every 5th.
   */
  readonly hitCondition?: string;
  /** A logpoint: prints this message (each `{expr}` replaced by its value) with the thread's index, and does not stop. */
  readonly logMessage?: string;
}

/** What setBreakpoints says of each breakpoint: whether it can stop, and why not. */
export interface BreakpointResult {
  readonly line: number;
  readonly verified: boolean;
  /** The error that keeps it from being set (a bad condition, hit condition or message), with its code. */
  readonly message?: string;
}

/** A logpoint's output: its message, and the thread that printed it. */
export interface LogEvent {
  readonly text: string;
  readonly file: string;
  readonly line: number;
  readonly block: Dim3;
  readonly thread: Dim3;
}

/** The line a logpoint prints: the thread's block and thread index, then its message. */
export function logpointLine(e: LogEvent): string {
  return `[block (${e.block.join(", ")}) thread (${e.thread.join(", ")})] ${e.text}\n`;
}

export interface Breakpoint {
  readonly file: string;
  readonly line: number;
  /** A condition given as a function. */
  readonly test?: (ctx: ConditionContext) => boolean;
  /** A condition in the kernel language, compiled per statement of its line. */
  readonly text?: string;
  readonly hit?: (n: number) => boolean;
  /** The logpoint's message: text, and expressions in the kernel language. */
  readonly log?: readonly (string | { readonly expr: string })[];
  /** Hits so far in this launch. */
  hits: number;
  /** The condition compiled per statement of the line (by site). */
  readonly bySite: Map<number, CompiledExpression>;
}

/** `N`, `>= N`, `== N`, `> N`, `< N`, `<= N`, `% N` → a test of the hit number (1 for the first hit). */
export function parseHitCondition(text: string, line: number): (n: number) => boolean {
  const m = /^\s*(>=|==|===|=|>|<=|<|%)?\s*(\d+)\s*$/.exec(text);
  const n = m ? Number(m[2]) : NaN;
  if (!m || (m[1] === "%" && n === 0))
    throw new CudaScriptError("CSD016", `the hit count condition '${text}' of the breakpoint at line ${line} is not one the debugger knows: write a number (stop from that hit on), or '== 5', '> 5', '>= 5', '< 5', '<= 5', '% 5' (every 5th hit)`);
  switch (m[1]) {
    case undefined:
    case ">=":
      return (h) => h >= n;
    case "==":
    case "===":
    case "=":
      return (h) => h === n;
    case ">":
      return (h) => h > n;
    case "<":
      return (h) => h < n;
    case "<=":
      return (h) => h <= n;
    default:
      return (h) => h % n === 0;
  }
}

/** `i = {i}, s = {s[t]}` → text and expressions; `{{` and `}}` are braces. */
export function parseLogMessage(text: string, line: number): (string | { expr: string })[] {
  const parts: (string | { expr: string })[] = [];
  let lit = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if ((c === "{" || c === "}") && text[i + 1] === c) {
      lit += c;
      i++;
    } else if (c === "{") {
      // The expression ends at the matching brace (an expression has no braces of its own).
      const end = text.indexOf("}", i + 1);
      const expr = end < 0 ? "" : text.slice(i + 1, end);
      if (end < 0 || expr.includes("{") || expr.trim() === "")
        throw new CudaScriptError("CSD017", `the log message '${text}' of the logpoint at line ${line} has a '{' without an expression and a '}' after it: write 'i = {i}' to print a value, '{{' for a brace`);
      if (lit) parts.push(lit);
      lit = "";
      parts.push({ expr });
      i = end;
    } else if (c === "}") {
      throw new CudaScriptError("CSD017", `the log message '${text}' of the logpoint at line ${line} has a '}' that closes nothing: write '}}' for a brace`);
    } else lit += c;
  }
  if (lit) parts.push(lit);
  return parts;
}
