/**
 * Moves cached IR and diagnostics to a new position in the file. When an edit above a kernel shifts
 * it without changing its text, its lowering is reused with every span shifted — much cheaper than
 * lowering it again, and the reason an edit re-checks in milliseconds.
 */
import type { Span } from "../ir/nodes";

export interface Shift {
  readonly offset: number;
  readonly line: number;
}

function isSpan(x: unknown): x is Span {
  return typeof x === "object" && x !== null && "file" in x && "start" in x && "end" in x && "line" in x && "col" in x;
}

/** A deep copy of `value` with every span moved by `shift`; shared objects (variables) stay shared. */
export function relocate<T>(value: T, shift: Shift): T {
  if (shift.offset === 0 && shift.line === 0) return value;
  const memo = new Map<object, unknown>();
  const visit = (x: unknown): unknown => {
    if (typeof x !== "object" || x === null) return x;
    const seen = memo.get(x);
    if (seen !== undefined) return seen;
    if (isSpan(x)) {
      const s: Span = { file: x.file, start: x.start + shift.offset, end: x.end + shift.offset, line: x.line + shift.line, col: x.col };
      memo.set(x, s);
      return s;
    }
    if (Array.isArray(x)) {
      const out: unknown[] = [];
      memo.set(x, out);
      for (const el of x) out.push(visit(el));
      return out;
    }
    if (Object.getPrototypeOf(x) !== Object.prototype) return x; // ts nodes, maps: not part of IR data
    const out: Record<string, unknown> = {};
    memo.set(x, out);
    for (const [k, v] of Object.entries(x)) out[k] = visit(v);
    return out;
  };
  return visit(value) as T;
}
