/**
 * `console.log(…)` in kernels: strings and template literals become a printf format, numbers and
 * booleans its arguments (complex values as Python prints them, each evaluated once).
 */
import ts from "typescript";
import { Codes } from "../diagnostics/codes";
import type * as IR from "../ir/nodes";
import { complexPart, isComplex, isInt, scalar, type ScalarType } from "../ir/types";
import { stripParensAndNonNull } from "./constants";
import { isPure } from "../ir/visit";
import type { LoweringContext } from "./lower-context";

export class PrintLowerer {
  constructor(private readonly ctx: LoweringContext) {}

  isConsoleLog(call: ts.CallExpression): boolean {
    const c = call.expression;
    return ts.isPropertyAccessExpression(c) && ts.isIdentifier(c.expression) && c.expression.text === "console" && c.name.text === "log" && !this.ctx.lookup("console");
  }

  lowerPrint(call: ts.CallExpression): IR.Stmt {
    const { format, args, temps } = this.formatOf(call.arguments, "console.log prints");
    const print: IR.PrintStmt = { k: "print", span: this.ctx.span(call), format: format + "\n", args };
    return temps.length ? { k: "block", span: print.span, body: [...temps, print] } : print;
  }

  /**
   * The printf format and arguments of `nodes` joined by spaces, as console.log joins its arguments:
   * strings and template literals become format text, numbers and booleans conversions. `what` starts
   * the message of a value that cannot be printed ("console.log prints").
   */
  formatOf(nodes: readonly ts.Expression[], what: string): { format: string; args: IR.Expr[]; temps: IR.Stmt[] } {
    const parts: string[] = [];
    const args: IR.Expr[] = [];
    /** Temporaries of complex values printed part by part (so that each is evaluated once). */
    const temps: IR.Stmt[] = [];
    for (const a of nodes) {
      const x = stripParensAndNonNull(a);
      if (ts.isStringLiteral(x) || ts.isNoSubstitutionTemplateLiteral(x)) {
        parts.push(x.text.replace(/%/g, "%%"));
        continue;
      }
      if (ts.isTemplateExpression(x)) {
        let s = x.head.text.replace(/%/g, "%%");
        for (const span of x.templateSpans) {
          const v = this.ctx.expr.lowerExpr(span.expression);
          if (v.type.kind === "scalar") {
            const c = this.printable(this.onceForPrint(v, span.expression, temps));
            s += c.fmt;
            args.push(...c.args);
          } else this.ctx.report(Codes.TypeMismatch, span.expression, `${what} numbers and booleans in kernels`);
          s += span.literal.text.replace(/%/g, "%%");
        }
        parts.push(s);
        continue;
      }
      const v = this.ctx.expr.lowerExpr(a);
      if (v.type.kind !== "scalar") {
        this.ctx.report(Codes.TypeMismatch, a, `${what} numbers and booleans in kernels: print one element, e.g. x[i]`);
        continue;
      }
      const c = this.printable(this.onceForPrint(v, a, temps));
      parts.push(c.fmt);
      args.push(...c.args);
    }
    return { format: parts.join(" "), args, temps };
  }

  /** A complex value printed as two parts, held in a temporary unless reading it twice is harmless. */
  private onceForPrint(v: IR.Expr, node: ts.Node, temps: IR.Stmt[]): IR.Expr {
    if (v.type.kind !== "scalar" || !isComplex(v.type.dtype) || v.k === "var" || isPure(v)) return v;
    this.ctx.pushScope();
    const t = this.ctx.newVar("printed", v.type, false, false, node);
    this.ctx.popScope();
    temps.push({ k: "decl", v: t, init: v, span: v.span });
    return { k: "var", type: v.type, v: t, span: v.span };
  }

  printable(v: IR.Expr): { fmt: string; args: IR.Expr[] } {
    const d = (v.type as ScalarType).dtype;
    if (d === "u32") return { fmt: "%u", args: [v] };
    if (d === "i64") return { fmt: "%lld", args: [v] };
    if (d === "u64") return { fmt: "%llu", args: [v] };
    if (isInt(d)) return { fmt: "%d", args: [this.ctx.conv.convertTo(v, "i32")] };
    // Booleans print as JavaScript prints them: the backends turn a bool argument of %s into "true"/"false".
    if (d === "bool") return { fmt: "%s", args: [v] };
    if (isComplex(d)) {
      // As Python prints a complex number: (1+2j), (1-2j).
      const part = (name: "complexRe" | "complexIm"): IR.Expr => this.ctx.conv.convertTo({ k: "intrinsic", type: scalar(complexPart(d)), name, args: [v], span: v.span }, "f64");
      return { fmt: "(%g%+gj)", args: [part("complexRe"), part("complexIm")] };
    }
    return { fmt: "%g", args: [d === "f32" || d === "f16" ? this.ctx.conv.convertTo(v, "f64") : v] };
  }
}
