import type { Span } from "../ir/nodes";
import type { DiagnosticDefinition, Severity } from "./codes";

export interface RelatedLocation {
  readonly span: Span;
  readonly message: string;
}

/**
 * A machine-readable hint for an editor quick fix. The language server turns it into a text edit; the
 * checker only says what would fix the problem and where.
 */
export type FixHint =
  | { readonly kind: "hoistToModuleConst"; readonly suggestedName: string; readonly valueText?: string }
  | { readonly kind: "dropReturnValue" }
  | { readonly kind: "wrapIndexInt" }
  | { readonly kind: "addBoundsGuard"; readonly indexText: string; readonly arrayText: string };

/** A diagnostic is data: a stable code, a severity, an exact range, a message, related locations. */
export interface Diagnostic {
  readonly code: string;
  readonly severity: Severity;
  readonly message: string;
  readonly span: Span;
  readonly related: readonly RelatedLocation[];
  readonly fix?: FixHint;
}

export function makeDiagnostic(
  def: DiagnosticDefinition,
  span: Span,
  message: string,
  extra?: { related?: RelatedLocation[]; fix?: FixHint },
): Diagnostic {
  return { code: def.code, severity: def.severity, message, span, related: extra?.related ?? [], fix: extra?.fix };
}

/** `file:line:col - error CS1001: message`, like tsc. */
export function formatDiagnostic(d: Diagnostic, displayPath = d.span.file): string {
  return `${displayPath}:${d.span.line}:${d.span.col} - ${d.severity} ${d.code}: ${d.message}`;
}

export function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
  return a.span.file < b.span.file ? -1 : a.span.file > b.span.file ? 1 : a.span.start - b.span.start || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0);
}
