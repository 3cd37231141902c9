/**
 * `cudascript run`'s build errors and warnings (esbuild's, and the kernel checker's through the
 * plugin), printed as `check` prints a diagnostic: `file:line:col - error CS1001: message` with a
 * 1-based line and column, then the source line with the range underlined, as tsc does. esbuild's own
 * printer shows 0-based columns, which disagree with `check`, tsc and editors.
 */
import * as path from "node:path";
import type { Location, Message } from "esbuild";
import { paint } from "./color";

export function formatBuildMessages(messages: readonly Message[], kind: "error" | "warning", color: boolean): string {
  return messages.map((m) => formatBuildMessage(m, kind, color)).join("");
}

function formatBuildMessage(m: Message, kind: "error" | "warning", color: boolean): string {
  const severity = paint(color, kind === "error" ? "red" : "yellow", kind);
  // The plugin's messages start with their code (CS1001: …); esbuild's own have none.
  const plugin = m.pluginName && m.pluginName !== "cudascript" ? ` [plugin ${m.pluginName}]` : "";
  const head = `${m.location ? `${where(m.location, color)} - ` : ""}${severity} ${m.text}${plugin}`;
  const notes = m.notes.map((n) => `  ${n.location ? `${where(n.location, color)}: ` : ""}${n.text}`);
  const frame = m.location ? codeFrame(m.location, kind, color) : "";
  return `${head}\n${frame}${notes.length ? `${notes.join("\n")}\n` : ""}\n`;
}

/** `file:line:col`, 1-based (esbuild's columns are 0-based), the file relative to the working folder. */
function where(loc: Location, color: boolean): string {
  const file = path.isAbsolute(loc.file) ? path.relative(process.cwd(), loc.file) || loc.file : loc.file;
  return `${paint(color, "cyan", file)}:${paint(color, "yellow", String(loc.line))}:${paint(color, "yellow", String(loc.column + 1))}`;
}

function codeFrame(loc: Location, kind: "error" | "warning", color: boolean): string {
  if (!loc.lineText) return "";
  const number = String(loc.line);
  const width = Math.max(1, Math.min(loc.length || 1, loc.lineText.length - loc.column));
  const marker = paint(color, kind === "error" ? "red" : "yellow", "~".repeat(width));
  return `\n${paint(color, "gray", number)} ${loc.lineText}\n${" ".repeat(number.length)} ${" ".repeat(loc.column)}${marker}\n`;
}
