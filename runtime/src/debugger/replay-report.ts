/**
 * The text `cudascript debug` prints at a stop (docs/debugging.md, "Replay to a fault"): the fault, the
 * thread and its line with the source around it, its locals (arrays with the fault's element and its
 * neighbours; shared arrays in full when small), its call stack, and a race's other thread with its
 * line and locals as they were at its access. Plain data in, text out.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { FocusView, FrameView, StopEvent, VariableView } from "./session-types";
import { formatValue } from "./expressions";
import { element } from "./values";

/** Elements shown of an array: all up to this many, else a window around the element of interest. */
const SMALL_ARRAY = 16;
const WINDOW = 4;

function sourceExcerpt(file: string, line: number, read: (file: string) => string | undefined, context = 2): string[] {
  const text = read(file);
  if (text === undefined) return [];
  const lines = text.split("\n");
  const from = Math.max(1, line - context);
  const to = Math.min(lines.length, line + context);
  const width = String(to).length;
  const out: string[] = [];
  for (let n = from; n <= to; n++) out.push(`${n === line ? "  >" : "   "} ${String(n).padStart(width)} | ${lines[n - 1]!.trimEnd()}`);
  return out;
}

/** The elements shown of an array: around `focus` (the fault's index) if given, else from the start. */
function arrayText(v: VariableView, focus: number | undefined): string {
  const { shape } = v.value as { shape: number[] };
  const n = shape.reduce((a, b) => a * b, 1);
  const kind = `${v.record?.name ?? v.dtype}[${shape.join("][")}]${v.space && v.space !== "global" ? ` ${v.space}` : ""}`;
  if (v.record) return kind;
  const show = (i: number) => formatValue(element(v, i));
  if (n <= SMALL_ARRAY) return `${kind} = [${Array.from({ length: n }, (_, i) => (i === focus ? `*${show(i)}*` : show(i))).join(", ")}]`;
  if (focus === undefined || focus < 0 || focus >= n) return `${kind} = [${Array.from({ length: WINDOW * 2 }, (_, i) => show(i)).join(", ")}, …]`;
  const from = Math.max(0, focus - WINDOW);
  const to = Math.min(n, focus + WINDOW + 1);
  const items = [];
  for (let i = from; i < to; i++) items.push(`[${i}] ${i === focus ? `*${show(i)}*` : show(i)}`);
  return `${kind}: ${from > 0 ? "…, " : ""}${items.join(", ")}${to < n ? ", …" : ""}`;
}

function frameLines(f: FrameView, fault: { array?: string; index?: number } | undefined): string[] {
  const out: string[] = [];
  for (const v of f.variables) {
    if (v.kind === "scalar") out.push(`    ${v.name} = ${formatValue(v.value)}`);
    // Only the arrays worth reading here: the fault's, and shared memory (the block's own, small).
    else if (v.name === fault?.array) {
      const n = (v.value as { shape: number[] }).shape.reduce((a, b) => a * b, 1);
      const i = fault.index;
      out.push(`    ${v.name}: ${arrayText(v, i)}${i === undefined ? "" : i >= 0 && i < n ? `   (element ${i} is the fault's)` : `   (the fault's index ${i} is outside it)`}`);
    }
    else if (v.space === "shared") out.push(`    ${v.name}: ${arrayText(v, undefined)}`);
    else {
      const { shape } = v.value as { shape: number[] };
      out.push(`    ${v.name}: ${v.record?.name ?? v.dtype}[${shape.join("][")}]${v.space && v.space !== "global" ? ` ${v.space}` : ""}`);
    }
  }
  return out;
}

function threadBlock(frames: readonly FrameView[], read: (file: string) => string | undefined, fault: { array?: string; index?: number } | undefined, none = "(no variables: this block ran on the fast simulator)"): string[] {
  const top = frames[0];
  const out: string[] = [];
  if (!top) return [`  ${none}`];
  out.push(`  in ${top.function} at ${path.basename(top.file)}:${top.line}`);
  out.push(...sourceExcerpt(top.file, top.line, read));
  out.push("  locals:");
  out.push(...frameLines(top, fault));
  if (frames.length > 1) out.push(`  call stack: ${frames.map((f) => `${f.function} (${path.basename(f.file)}:${f.line})`).join(" ← ")}`);
  return out;
}

/** The report of a stop: for a replayed fault (reason "exception"), what the fault is and where each thread of it stands. */
export function formatStop(stop: StopEvent, other: FocusView | undefined, read: (file: string) => string | undefined = readSource): string {
  const d = stop.error?.details;
  const fault = d ? { ...(d.array !== undefined ? { array: d.array } : {}), ...(d.index !== undefined ? { index: d.index } : {}) } : undefined;
  const lines: string[] = [];
  lines.push(stop.error ? `cudascript debug: stopped at the fault ${stop.error.message}` : `cudascript debug: stopped (${stop.reason})`);
  if (stop.description?.startsWith("replayed")) lines.push("  (replayed: stopped before the statement that faults runs; going on ends the launch with the fault, as the run did)");
  else if (stop.description) lines.push(`  (${stop.description})`);
  lines.push("");
  lines.push(`Thread (${stop.thread.join(", ")}) of block (${stop.block.join(", ")}):`);
  lines.push(...threadBlock(stop.frames, read, fault));
  if (other) {
    lines.push("");
    lines.push(`The other access of the race — thread (${other.thread.join(", ")}) of block (${other.block.join(", ")}), its locals as they were at that access (arrays as they are now):`);
    // The other access is to the same element: show it there too.
    lines.push(...threadBlock(other.frames, read, fault));
  }
  return `${lines.join("\n")}\n`;
}

/** Another thread of the stopped block (the prompt's `t`), where it is and its locals. */
export function formatThread(view: FocusView, read: (file: string) => string | undefined = readSource): string {
  const status = view.status === "running" ? "paused" : view.status;
  const lines = [`Thread (${view.thread.join(", ")}) of block (${view.block.join(", ")}) — ${status}:`];
  const why = status === "not started" ? "it has not started yet" : status === "exited" ? "it has exited" : `it is ${status}`;
  lines.push(...threadBlock(view.frames, read, undefined, `(no frames: ${why})`));
  return `${lines.join("\n")}\n`;
}

function readSource(file: string): string | undefined {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}
