/**
 * Checker diagnostics as bundler errors and warnings. Every bundler shows the same text,
 * `file:line:col CSxxxx: message` (plus the related locations, e.g. the device function in another
 * file), except esbuild, which prints the location itself from the message's `loc`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Diagnostic } from "@cudascript/compiler";

/** The bundler message unplugin hands on (rollup's RollupError shape, which unplugin maps for each bundler). */
export interface BundlerMessage {
  message: string;
  id?: string;
  loc?: { file: string; line: number; column: number };
  frame?: string;
  plugin?: string;
}

/** `file:line:col`, relative to the working directory when the file is under it (as bundlers print paths). */
export function where(file: string, line: number, col: number): string {
  const rel = path.relative(process.cwd(), file);
  const shown = rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : file;
  return `${shown}:${line}:${col}`;
}

function relatedLines(d: Diagnostic): string {
  return d.related.map((r) => `\n  ${where(r.span.file, r.span.line, r.span.col)} note: ${r.message}`).join("");
}

/** One line (plus related notes) for `d`, with its location in front unless the bundler prints `loc`. */
export function describe(d: Diagnostic, withLocation: boolean): string {
  const head = withLocation ? `${where(d.span.file, d.span.line, d.span.col)} ` : "";
  return `${head}${d.code}: ${d.message}${relatedLines(d)}`;
}

/** The source line of `d` with a caret under its column (rollup/Vite show `frame` under the message). */
function frame(d: Diagnostic, text: string): string {
  const lineText = text.split(/\r?\n/)[d.span.line - 1];
  if (lineText === undefined) return "";
  const width = Math.max(1, Math.min(d.span.end - d.span.start, lineText.length - (d.span.col - 1)));
  return `${d.span.line} | ${lineText}\n${" ".repeat(String(d.span.line).length)} | ${" ".repeat(Math.max(0, d.span.col - 1))}${"^".repeat(width)}`;
}

/** `text` is the current text of `file`, the file being transformed. */
export function toMessage(d: Diagnostic, file: string, text: string, withLocation: boolean): BundlerMessage {
  return {
    message: describe(d, withLocation),
    id: d.code,
    // esbuild's and rollup's columns are 0-based (esbuild also prints them 0-based: `cudascript run`
    // prints its build messages itself, 1-based, in cli/build-messages.ts).
    loc: { file: d.span.file, line: d.span.line, column: Math.max(0, d.span.col - 1) },
    ...(d.span.file === file ? { frame: frame(d, text) } : {}),
  };
}

/** All of `errors` as one message: rollup, Vite and rolldown stop at the first `this.error`. */
export function combined(errors: readonly Diagnostic[], file: string, text: string): BundlerMessage {
  const first = errors[0]!;
  const count = errors.length === 1 ? "" : `${errors.length} kernel errors:\n`;
  return { ...toMessage(first, file, text, true), message: count + errors.map((d) => describe(d, true)).join("\n") };
}

/** Fills in the source line of one of this plugin's esbuild messages (esbuild prints it under the message). */
export function addLineText(message: { pluginName: string; location: { file: string; line: number; lineText: string } | null }): void {
  const location = message.location;
  if (message.pluginName !== "cudascript" || !location || location.lineText) return;
  try {
    location.lineText = fs.readFileSync(location.file, "utf8").split(/\r?\n/)[location.line - 1] ?? "";
  } catch {
    // The file is gone (a temp file): the message keeps its location without the line.
  }
}
