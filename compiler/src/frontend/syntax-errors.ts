/**
 * TypeScript's own syntax errors, reported as CS1020 with tsc's code and message ("TS1005: ')'
 * expected."). The parser recovers from a syntax error by inventing the missing tokens (an empty
 * identifier for `x * ;`, a closing `)` …), so the lowering of the broken code would report mistakes
 * the user never wrote: the checker keeps only the syntax error for the top-level statement it is in.
 */
import ts from "typescript";
import { Codes } from "../diagnostics/codes";
import { makeDiagnostic, type Diagnostic } from "../diagnostics/diagnostic";

/**
 * The parser's diagnostics of a source file: what `tsc` and `program.getSyntacticDiagnostics` report
 * for a .ts file. They are kept on the node by `createSourceFile` and `updateSourceFile` (internal
 * field, stable since TypeScript 1.x); reading it avoids building a whole Program for one file.
 */
function parseDiagnosticsOf(sf: ts.SourceFile): readonly ts.DiagnosticWithLocation[] {
  return (sf as ts.SourceFile & { parseDiagnostics?: readonly ts.DiagnosticWithLocation[] }).parseDiagnostics ?? [];
}

export interface SyntaxErrors {
  readonly diagnostics: readonly Diagnostic[];
  /** The top-level statements that contain a syntax error: their other diagnostics are cascades. */
  readonly brokenStatements: readonly ts.Statement[];
}

export function syntaxErrors(file: string, sf: ts.SourceFile): SyntaxErrors {
  const diagnostics: Diagnostic[] = [];
  const broken = new Set<ts.Statement>();
  for (const d of parseDiagnosticsOf(sf)) {
    const start = Math.min(d.start, sf.text.length);
    const lc = sf.getLineAndCharacterOfPosition(start);
    const message = `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
    diagnostics.push(makeDiagnostic(Codes.SyntaxError, { file, start, end: start + d.length, line: lc.line + 1, col: lc.character + 1 }, message));
    const st = statementAt(sf, start);
    if (st) broken.add(st);
  }
  return { diagnostics, brokenStatements: [...broken] };
}

/** The last top-level statement starting at or before `pos` (an error at the end of a file belongs to the statement it ends). */
function statementAt(sf: ts.SourceFile, pos: number): ts.Statement | undefined {
  let found: ts.Statement | undefined;
  for (const st of sf.statements) {
    if (st.pos > pos) break;
    found = st;
  }
  return found;
}

/** Whether a diagnostic lies in one of the statements broken by a syntax error. */
export function inBrokenStatement(d: Diagnostic, broken: readonly ts.Statement[]): boolean {
  return broken.some((st) => d.span.start >= st.pos && d.span.start <= st.end);
}
