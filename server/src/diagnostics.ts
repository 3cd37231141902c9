/** Checker diagnostics → LSP diagnostics: codes, ranges, related locations, doc links, severities. */
import type { Diagnostic as CheckerDiagnostic, FixHint } from "@cudascript/compiler";
import { DiagnosticSeverity, DiagnosticTag, type Diagnostic } from "vscode-languageserver";
import type { DocLinks } from "./doc-links";
import type { Positions } from "./positions";

export const SOURCE = "cudascript";

/** What the server stores in `Diagnostic.data` (clients echo it back in code action requests). */
export interface DiagnosticData {
  readonly fix?: FixHint;
  readonly start: number;
  readonly end: number;
}

const SEVERITY = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  hint: DiagnosticSeverity.Hint,
} as const;

/** Codes whose range is code that does nothing (editors fade it). */
const UNNECESSARY = new Set(["CS5003"]);

export function toLspDiagnostic(d: CheckerDiagnostic, positions: Positions, links: DocLinks): Diagnostic {
  const out: Diagnostic = {
    range: positions.rangeOf(d.span),
    severity: SEVERITY[d.severity] ?? DiagnosticSeverity.Error,
    code: d.code,
    source: SOURCE,
    message: d.message,
  };
  const href = links.hrefFor(d.code);
  if (href) out.codeDescription = { href };
  if (UNNECESSARY.has(d.code)) out.tags = [DiagnosticTag.Unnecessary];
  if (d.related.length)
    out.relatedInformation = d.related.map((r) => ({
      location: { uri: positions.uriOf(r.span.file), range: positions.rangeOf(r.span) },
      message: r.message,
    }));
  const data: DiagnosticData = { start: d.span.start, end: d.span.end, ...(d.fix ? { fix: d.fix } : {}) };
  out.data = data;
  return out;
}
