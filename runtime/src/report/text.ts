/**
 * The arrays a program reported (`report(name, array)`, protocol.ts) as text, for where there is no
 * results panel: the debugger's console shows them at the end of a debugged program ("Run Kernel"'s
 * program reports every array of the launch).
 */
import type { ArrayRecord, ResultRecord } from "./protocol";

/** How many values of an array the text shows. */
const SHOWN_VALUES = 16;

export function formatArrayRecord(r: ArrayRecord): string {
  const values = r.data.slice(0, SHOWN_VALUES).map((v: number | null) => (v === null ? "NaN" : String(v)));
  const more = r.data.length > SHOWN_VALUES || r.truncated ? ", …" : "";
  const s = r.stats;
  const stats = `min ${s.min ?? "NaN"}, max ${s.max ?? "NaN"}, mean ${s.mean ?? "NaN"}${s.nanCount ? `, ${s.nanCount} NaN` : ""}${s.infCount ? `, ${s.infCount} ±Infinity` : ""}`;
  return `${r.name}: ${r.dtype}[${r.shape.join("][")}] [${values.join(", ")}${more}] (${stats})`;
}

/** The report of every array record, one line each; "" when there is none. */
export function formatReport(records: readonly ResultRecord[]): string {
  const arrays = records.filter((r): r is ArrayRecord => r.type === "array");
  return arrays.length ? `report:\n${arrays.map((r) => `  ${formatArrayRecord(r)}\n`).join("")}` : "";
}
