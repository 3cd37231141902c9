/**
 * Exceptions in kernels (issue 31 item 2): `throw new Error("…")` and `console.assert(cond, "…")` become
 * a RaiseStmt. The thread that raises stops; the launch then fails on the host with CSR085 carrying the
 * message, kernel, file:line, block and thread (runtime: simulator/rt.ts raise, gpu/kernel-errors.ts).
 * The message is a string or a template literal whose substitutions are numbers or booleans, formatted
 * as console.log formats them (lower-print.ts), since the device has no strings to build one from.
 */
import ts from "typescript";
import { Codes } from "../diagnostics/codes";
import type * as IR from "../ir/nodes";
import { scalar } from "../ir/types";
import { MAX_RAISE_VALUES } from "../cuda/raise";
import { stripParensAndNonNull } from "./constants";
import type { LoweringContext } from "./lower-context";

/** The error classes a kernel may throw: each only names the message's prefix, as JavaScript prints it. */
const ERROR_CLASSES = new Set(["Error", "RangeError", "TypeError"]);

export class RaiseLowerer {
  constructor(private readonly ctx: LoweringContext) {}

  isConsoleAssert(call: ts.CallExpression): boolean {
    const c = call.expression;
    return ts.isPropertyAccessExpression(c) && ts.isIdentifier(c.expression) && c.expression.text === "console" && c.name.text === "assert" && !this.ctx.lookup("console");
  }

  /** `throw new Error(message)` (or `throw Error(message)`, RangeError, TypeError). */
  lowerThrow(st: ts.ThrowStatement): IR.Stmt | undefined {
    const x = stripParensAndNonNull(st.expression);
    const isErrorCall = (ts.isNewExpression(x) || ts.isCallExpression(x)) && ts.isIdentifier(x.expression) && ERROR_CLASSES.has(x.expression.text) && !this.ctx.lookup(x.expression.text);
    if (!isErrorCall) {
      this.ctx.report(Codes.UnsupportedThrow, st.expression, `a kernel throws an Error with a message: write throw new Error("…") (a string, or a template literal such as \`bad index \${i}\`); the launch then fails on the host with CSR085`);
      return undefined;
    }
    const call = x as ts.NewExpression | ts.CallExpression;
    const args = call.arguments ?? [];
    if (args.length > 1) this.ctx.report(Codes.UnsupportedThrow, args[1]!, "an Error in a kernel takes one argument, its message: drop the options");
    const cls = (call.expression as ts.Identifier).text;
    return this.raise(st, args.slice(0, 1), cls === "Error" ? "" : `${cls}: `);
  }

  /** `console.assert(cond, …message)`: raises "Assertion failed: message" where cond is false, as Node prints it. */
  lowerAssert(call: ts.CallExpression): IR.Stmt | undefined {
    const [condNode, ...message] = call.arguments;
    if (!condNode) {
      this.ctx.report(Codes.UnsupportedThrow, call, `console.assert takes a condition and a message: write console.assert(i < n, "i out of range")`);
      return undefined;
    }
    const cond = this.ctx.conv.lowerCondition(condNode);
    const raise = this.raise(call, message, message.length ? "Assertion failed: " : "Assertion failed");
    if (!raise) return undefined;
    const span = this.ctx.span(call);
    const notCond: IR.Expr = { k: "unary", type: scalar("bool"), op: "!", operand: cond, span: cond.span };
    return { k: "if", span, cond: notCond, then: [raise] };
  }

  private raise(node: ts.Node, message: readonly ts.Expression[], prefix: string): IR.Stmt | undefined {
    for (const m of message) {
      const x = stripParensAndNonNull(m);
      if (!ts.isStringLiteral(x) && !ts.isNoSubstitutionTemplateLiteral(x) && !ts.isTemplateExpression(x)) {
        this.ctx.report(Codes.UnsupportedThrow, m, `the message of an error in a kernel is a string or a template literal: write \`… \${value}\` to include a number or a boolean`);
        return undefined;
      }
    }
    const { format, args, temps } = this.ctx.print.formatOf(message, "an error message in a kernel shows");
    if (args.length > MAX_RAISE_VALUES) {
      this.ctx.report(Codes.UnsupportedThrow, message[0]!, `an error message in a kernel shows at most ${MAX_RAISE_VALUES} values (a complex value counts two), and this one has ${args.length}: leave some out`);
      return undefined;
    }
    const raise: IR.RaiseStmt = { k: "raise", span: this.ctx.span(node), format: prefix.replace(/%/g, "%%") + format, args };
    return temps.length ? { k: "block", span: raise.span, body: [...temps, raise] } : raise;
  }
}
