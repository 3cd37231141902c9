/**
 * Lowering of statements: blocks and their scopes, `if`, loops, `return` (a device function's result
 * values, a kernel's refused value), unreachable code, unsupported statements, and expression
 * statements (assignments are lower-assignments.ts, declarations lower-declarations.ts).
 */
import ts from "typescript";
import { Codes } from "../diagnostics/codes";
import type * as IR from "../ir/nodes";
import { isInt64, type ScalarType } from "../ir/types";
import { stripParensAndNonNull } from "./constants";
import { ASSIGNMENT_OPS, WEAK } from "./lower-base";
import type { LoweringContext } from "./lower-context";

export class StatementLowerer {
  constructor(private readonly ctx: LoweringContext) {}

  lowerStatements(list: readonly ts.Statement[]): IR.Stmt[] {
    const out: IR.Stmt[] = [];
    let terminated = false;
    for (const st of list) {
      if (terminated && !ts.isEmptyStatement(st) && !ts.isFunctionDeclaration(st)) {
        this.ctx.report(Codes.UnreachableCode, st, "this code never runs: it follows a return, break or continue in the same block");
        terminated = false; // report once per block
      }
      const s = this.lowerStatement(st);
      if (Array.isArray(s)) out.push(...s);
      else if (s) out.push(s);
      if (ts.isReturnStatement(st) || ts.isBreakStatement(st) || ts.isContinueStatement(st)) terminated = true;
    }
    return out;
  }

  lowerBlockBody(st: ts.Statement): IR.Stmt[] {
    this.ctx.pushScope();
    const body = ts.isBlock(st) ? this.lowerStatements(st.statements) : this.lowerStatements([st]);
    this.ctx.popScope();
    return body;
  }

  lowerStatement(st: ts.Statement): IR.Stmt | IR.Stmt[] | undefined {
    switch (st.kind) {
      case ts.SyntaxKind.VariableStatement:
        return this.ctx.decls.lowerVariableList((st as ts.VariableStatement).declarationList, st);
      case ts.SyntaxKind.ExpressionStatement:
        return this.lowerExpressionStatement((st as ts.ExpressionStatement).expression);
      case ts.SyntaxKind.IfStatement: {
        const s = st as ts.IfStatement;
        const cond = this.ctx.conv.lowerCondition(s.expression);
        const then = this.lowerBlockBody(s.thenStatement);
        const els = s.elseStatement ? this.lowerBlockBody(s.elseStatement) : undefined;
        return { k: "if", span: this.ctx.span(st), cond, then, else: els };
      }
      case ts.SyntaxKind.ForStatement:
        return this.lowerFor(st as ts.ForStatement);
      case ts.SyntaxKind.WhileStatement: {
        const s = st as ts.WhileStatement;
        const cond = this.ctx.conv.lowerCondition(s.expression);
        this.ctx.loopDepth++;
        const body = this.lowerBlockBody(s.statement);
        this.ctx.loopDepth--;
        return { k: "loop", span: this.ctx.span(st), init: [], cond: isTrueConst(cond) ? undefined : cond, update: [], body, testFirst: true };
      }
      case ts.SyntaxKind.DoStatement: {
        const s = st as ts.DoStatement;
        this.ctx.loopDepth++;
        const body = this.lowerBlockBody(s.statement);
        this.ctx.loopDepth--;
        const cond = this.ctx.conv.lowerCondition(s.expression);
        return { k: "loop", span: this.ctx.span(st), init: [], cond: isTrueConst(cond) ? undefined : cond, update: [], body, testFirst: false };
      }
      case ts.SyntaxKind.BreakStatement:
      case ts.SyntaxKind.ContinueStatement: {
        const s = st as ts.BreakStatement;
        if (s.label) {
          this.ctx.report(Codes.UnsupportedStatement, st, "labelled break/continue is not supported in kernels: use a flag variable, or move the inner loop into a device function");
          return undefined;
        }
        return { k: st.kind === ts.SyntaxKind.BreakStatement ? "break" : "continue", span: this.ctx.span(st) };
      }
      case ts.SyntaxKind.ReturnStatement: {
        const s = st as ts.ReturnStatement;
        return this.lowerReturn(s.expression, st);
      }
      case ts.SyntaxKind.Block: {
        const body = this.lowerBlockBody(st);
        return { k: "block", span: this.ctx.span(st), body };
      }
      case ts.SyntaxKind.EmptyStatement:
        return undefined;
      case ts.SyntaxKind.TryStatement:
        this.ctx.report(Codes.UnsupportedException, st, "try/catch is not supported in kernels: nothing on the device can catch; a kernel may throw new Error(\"…\"), which fails the launch, and the host catches that (CSR085)");
        return undefined;
      case ts.SyntaxKind.ThrowStatement:
        return this.ctx.raise.lowerThrow(st as ts.ThrowStatement);
      case ts.SyntaxKind.FunctionDeclaration:
        this.ctx.report(Codes.NestedFunction, st, "functions cannot be declared inside kernels: declare it at module level as const f = cuda.device((…) => …)");
        return undefined;
      case ts.SyntaxKind.ClassDeclaration:
        this.ctx.report(Codes.UnsupportedClass, st, "classes are not supported in kernels: use scalars and typed arrays");
        return undefined;
      case ts.SyntaxKind.SwitchStatement:
        this.ctx.report(Codes.UnsupportedStatement, st, "switch is not supported in kernels yet: write if / else if chains");
        return undefined;
      case ts.SyntaxKind.ForInStatement:
      case ts.SyntaxKind.ForOfStatement:
        this.ctx.report(Codes.UnsupportedStatement, st, `${st.kind === ts.SyntaxKind.ForOfStatement ? "for…of" : "for…in"} is not supported in kernels: write for (let i = 0; i < a.length; i++)`);
        return undefined;
      case ts.SyntaxKind.LabeledStatement:
        this.ctx.report(Codes.UnsupportedStatement, st, "labelled statements are not supported in kernels: use a flag variable to leave nested loops");
        return undefined;
      case ts.SyntaxKind.WithStatement:
      case ts.SyntaxKind.DebuggerStatement:
        this.ctx.report(Codes.UnsupportedStatement, st, `'${st.getText(this.ctx.sf).split(/[\s(]/)[0]}' is not supported in kernels`);
        return undefined;
      case ts.SyntaxKind.InterfaceDeclaration:
      case ts.SyntaxKind.TypeAliasDeclaration:
        return undefined; // types only: nothing to run
      default:
        this.ctx.report(Codes.UnsupportedStatement, st, `this statement is not supported in kernels`);
        return undefined;
    }
  }

  lowerReturn(expr: ts.Expression | undefined, node: ts.Node): IR.Stmt {
    const span = this.ctx.span(node);
    // A device function's record result is stored into its result arrays (lower-records.ts).
    if (this.ctx.records.returnsRecord) return this.ctx.records.lowerRecordReturn(expr, node);
    if (!expr) {
      if (this.ctx.decl.kind === "device" && (this.ctx.returnHint || this.ctx.decl.fn?.type && this.ctx.decl.fn.type.kind !== ts.SyntaxKind.VoidKeyword))
        this.ctx.report(Codes.MissingReturn, node, "this device function returns a value: write return <value>");
      return { k: "return", span };
    }
    if (this.ctx.decl.kind === "kernel") {
      const e = stripParensAndNonNull(expr);
      // `return void x` / `return undefined` are still returns of nothing, but say what to write.
      this.ctx.report(Codes.KernelReturnsValue, node, "a kernel cannot return a value: write the result into an output array (out[i] = value) and use a plain `return;`", { fix: { kind: "dropReturnValue" } });
      if (ts.isCallExpression(e)) {
        const s = this.lowerExpressionStatement(e);
        return s ? { k: "block", span, body: [s, { k: "return", span }] } : { k: "return", span };
      }
      return { k: "return", span };
    }
    const value = this.ctx.expr.lowerExpr(expr);
    if (value.type.kind !== "scalar") {
      if (value.type.kind !== "void") this.ctx.report(Codes.TypeMismatch, expr, "device functions return scalars (f32, i32, …); to produce an array, write into an array parameter");
      return { k: "return", span };
    }
    let v = value;
    // Weak constants keep their path (typed by the hint, then convertReturns): only values are checked here.
    if (this.ctx.declaredReturn && !WEAK.has(v)) v = this.ctx.conv.convertImplicitly(v, this.ctx.declaredReturn.dtype, `the ${this.ctx.declaredReturn.dtype} result of '${this.ctx.decl.name}'`, expr, undefined);
    if (WEAK.has(v)) v = this.ctx.conv.convertTo(v, this.ctx.returnHint ?? this.ctx.weakDefault(v));
    this.ctx.returnTypes.push(v.type as ScalarType);
    return { k: "return", span, value: v };
  }

  lowerFor(s: ts.ForStatement): IR.Stmt {
    this.ctx.pushScope();
    const init: IR.Stmt[] = [];
    if (s.initializer) {
      if (ts.isVariableDeclarationList(s.initializer)) {
        const r = this.ctx.decls.lowerVariableList(s.initializer, s.initializer);
        if (Array.isArray(r)) init.push(...r);
        else if (r) init.push(r);
      } else {
        const r = this.lowerExpressionStatement(s.initializer, true);
        if (r) init.push(...(r.k === "block" ? r.body : [r]));
      }
    }
    const cond = s.condition ? this.ctx.conv.lowerCondition(s.condition) : undefined;
    const update: IR.Stmt[] = [];
    if (s.incrementor) {
      const r = this.lowerExpressionStatement(s.incrementor, true);
      if (r) update.push(...(r.k === "block" ? r.body : [r]));
    }
    this.ctx.loopDepth++;
    const body = this.lowerBlockBody(s.statement);
    this.ctx.loopDepth--;
    this.ctx.popScope();
    return { k: "loop", span: this.ctx.span(s), init, cond: cond && isTrueConst(cond) ? undefined : cond, update, body, testFirst: true };
  }

  /** `inHeader`: inside a for header, where a comma list of updates is allowed. */
  lowerExpressionStatement(e: ts.Expression, inHeader = false): IR.Stmt | undefined {
    const x = stripParensAndNonNull(e);
    const span = this.ctx.span(e);
    if (ts.isBinaryExpression(x)) {
      const op = x.operatorToken.kind;
      if (ASSIGNMENT_OPS.has(op)) return this.ctx.assign.lowerAssignment(x.left, ASSIGNMENT_OPS.get(op)!, x.right, x);
      if (op === ts.SyntaxKind.CommaToken && inHeader) {
        const a = this.lowerExpressionStatement(x.left, true), b = this.lowerExpressionStatement(x.right, true);
        const body = [a, b].flatMap((s) => (s ? (s.k === "block" ? s.body : [s]) : []));
        return { k: "block", span, body };
      }
      if (op === ts.SyntaxKind.AmpersandAmpersandEqualsToken || op === ts.SyntaxKind.BarBarEqualsToken || op === ts.SyntaxKind.QuestionQuestionEqualsToken) {
        this.ctx.report(Codes.UnsupportedOperator, x.operatorToken, `'${x.operatorToken.getText(this.ctx.sf)}' is not supported in kernels: write an if statement`);
        return undefined;
      }
    }
    if ((ts.isPrefixUnaryExpression(x) || ts.isPostfixUnaryExpression(x)) && (x.operator === ts.SyntaxKind.PlusPlusToken || x.operator === ts.SyntaxKind.MinusMinusToken)) {
      // The 1 of an i64/u64 is a bigint (1n), as JavaScript's ++ of a bigint.
      const one = (target?: IR.Expr) => this.ctx.weakConst(target?.type.kind === "scalar" && isInt64(target.type.dtype) ? 1n : 1, x);
      return this.ctx.assign.lowerAssignmentValue(x.operand, x.operator === ts.SyntaxKind.PlusPlusToken ? "+" : "-", one, x);
    }
    if (ts.isCallExpression(x) && this.ctx.print.isConsoleLog(x)) return this.ctx.print.lowerPrint(x);
    if (ts.isCallExpression(x) && this.ctx.raise.isConsoleAssert(x)) return this.ctx.raise.lowerAssert(x);
    const value = this.ctx.expr.lowerExpr(x);
    return { k: "expr", span, expr: value };
  }
}

function isTrueConst(e: IR.Expr): boolean {
  return e.k === "const" && e.value === true;
}
