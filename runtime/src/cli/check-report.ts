/** `cudascript check`'s reports: tsc-like text, JSON, and SARIF (check-sarif.ts). */
import type { Diagnostic } from "@cudascript/compiler";
import type { CheckRound } from "./check-run";
import { relativePath as rel } from "./check-run";

export const FORMATS = ["text", "json", "sarif"] as const;
export type Format = (typeof FORMATS)[number];

/**
 * `file:line:col - error CS1001: message`, the line and column 1-based, as tsc prints them (and as the
 * `$cudascript` problem matcher of the VS Code extension reads them); related locations indented.
 */
export function formatDiagnosticLine(d: Diagnostic): string {
  const head = `${rel(d.span.file)}:${d.span.line}:${d.span.col} - ${d.severity} ${d.code}: ${d.message}`;
  return [head, ...d.related.map((r) => `  ${rel(r.span.file)}:${r.span.line}:${r.span.col}: ${r.message}`)].join("\n");
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

export function textReport(round: CheckRound): string {
  const lines = round.diagnostics.map(formatDiagnosticLine);
  const n = round.skipped.length;
  const skippedNote = n ? `; skipped ${n} that ${n === 1 ? "is not a regular file" : "are not regular files"}` : "";
  const summary = `Checked ${plural(round.files.length, "file")} (${plural(round.kernels, "kernel")}): ${plural(round.errors, "error")}, ${plural(round.warnings, "warning")}${skippedNote}.`;
  return lines.length ? `${lines.join("\n")}\n\n${summary}\n` : `${summary}\n`;
}

export function jsonReport(round: CheckRound): string {
  const out = {
    files: round.files.length,
    skipped: round.skipped.map((s) => ({ file: rel(s.path), reason: s.reason })),
    kernels: round.kernels,
    errors: round.errors,
    warnings: round.warnings,
    diagnostics: round.diagnostics.map((d) => ({
      file: rel(d.span.file),
      line: d.span.line,
      column: d.span.col,
      start: d.span.start,
      end: d.span.end,
      code: d.code,
      severity: d.severity,
      message: d.message,
      related: d.related.map((r) => ({ file: rel(r.span.file), line: r.span.line, column: r.span.col, message: r.message })),
    })),
  };
  return JSON.stringify(out, null, 2) + "\n";
}
