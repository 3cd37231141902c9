/**
 * Replay to a fault (docs/debugging.md, "Replay to a fault"): what a fault tells the replay, read from
 * any kernel fault generically — its code, kernel, site (file, line, col), block and thread, and for a
 * race the other access — so that a new finding (a new code) needs nothing here.
 *
 * The simulator is deterministic: a launch run again from the same device memory takes the same path.
 * The replay runs the launch's sanitizer module once more with a counting probe at the fault's line
 * (replay-count.ts) to learn on which of its passes over that line the faulting thread faulted, then
 * debugs the launch on the stepping backend and stops the thread at that pass, before the statement
 * runs (replay-stops.ts).
 */
import { CudaScriptError } from "../errors";
import type { Dim3 } from "./expressions";

/** A thread's pass over a line: the `hits`-th time thread `thread` of block `block` reached a statement starting on `line`. */
export interface ReplayPoint {
  readonly file: string;
  readonly line: number;
  readonly block: Dim3;
  readonly thread: Dim3;
  readonly hits: number;
}

/** Where a replayed launch stops (the fault) and which other thread it shows (a race's other access). */
export interface ReplayTarget {
  readonly fault: ReplayPoint;
  /** The fault the launch ends with: reported at the stop, thrown to the program at the next command. */
  readonly error: CudaScriptError;
  readonly other?: ReplayPoint;
}

/** The other access of a race: a thread of a block at a line (its file: the fault's unless said). */
export interface OtherAccess {
  readonly block: Dim3;
  readonly thread: Dim3;
  readonly file?: string;
  readonly line: number;
  readonly col?: number;
}

/**
 * Which fault a replay is for, as the launch configuration's `onFault` names it (all optional): the
 * first fault of the run that matches is replayed. `true` is any fault.
 */
export interface FaultDescriptor {
  readonly code?: string;
  readonly kernel?: string;
  readonly file?: string;
  readonly line?: number;
  readonly block?: readonly number[];
  readonly thread?: readonly number[];
}


function dim3(v: unknown): Dim3 | undefined {
  return Array.isArray(v) && v.length === 3 && v.every((x) => Number.isInteger(x) && x >= 0) ? (v as unknown as Dim3) : undefined;
}

/**
 * The other access of a race fault: its structured `details.other` ({ block, thread, file?, line,
 * col? }), which every race finding with a single other thread gives (CSR021, CSR066, CSR067).
 */
export function otherAccessOf(error: CudaScriptError): OtherAccess | undefined {
  const d = error.details as (CudaScriptError["details"] & { other?: { block?: unknown; thread?: unknown; file?: unknown; line?: unknown; col?: unknown } }) | undefined;
  if (!d?.block || !d.thread) return undefined;
  const o = d.other;
  if (!o || !dim3(o.thread) || typeof o.line !== "number") return undefined;
  return { block: dim3(o.block) ?? (d.block as Dim3), thread: dim3(o.thread)!, line: o.line, ...(typeof o.file === "string" ? { file: o.file } : {}), ...(typeof o.col === "number" ? { col: o.col } : {}) };
}

/** Whether a fault is the one `descriptor` names (every field it gives matches). */
export function faultMatches(error: CudaScriptError, descriptor: FaultDescriptor | true): boolean {
  if (descriptor === true) return true;
  const d = error.details;
  const same = (a: readonly number[] | undefined, b: readonly number[] | undefined) => a === undefined || (b !== undefined && a.join(",") === b.join(","));
  return (
    (descriptor.code === undefined || descriptor.code === error.code) &&
    (descriptor.kernel === undefined || descriptor.kernel === d?.kernel) &&
    (descriptor.line === undefined || descriptor.line === d?.line) &&
    (descriptor.file === undefined || d?.file === undefined || sameFile(descriptor.file, d.file)) &&
    same(descriptor.block, d?.block) &&
    same(descriptor.thread, d?.thread)
  );
}

function sameFile(a: string, b: string): boolean {
  const norm = (p: string) => p.replace(/\\/g, "/");
  return norm(a) === norm(b) || norm(a).endsWith(`/${norm(b)}`) || norm(b).endsWith(`/${norm(a)}`);
}

/** A fault descriptor from untrusted JSON (the launch configuration): CSD014 for anything else than `true` or the fields above. */
export function checkFaultDescriptor(v: unknown): FaultDescriptor | true | undefined {
  if (v === undefined || v === false) return undefined;
  if (v === true) return true;
  const bad = (why: string) => new CudaScriptError("CSD014", `launch configuration: "onFault" ${why}; write true (the run's first fault) or { "code": "CSR021", "kernel": "k", "line": 12, "block": [0, 0, 0], "thread": [3, 0, 0] }`);
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw bad(`is ${Array.isArray(v) ? "a list" : typeof v}`);
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!["code", "kernel", "file", "line", "block", "thread", "message"].includes(k)) throw bad(`has an unknown field '${k}'`);
  for (const k of ["code", "kernel", "file"]) if (o[k] !== undefined && typeof o[k] !== "string") throw bad(`field '${k}' must be a string`);
  if (o.line !== undefined && !(Number.isInteger(o.line) && (o.line as number) > 0)) throw bad(`field 'line' must be a line number`);
  for (const k of ["block", "thread"]) if (o[k] !== undefined && !dim3(o[k])) throw bad(`field '${k}' must be [x, y, z]`);
  return o as FaultDescriptor;
}

/** CSR089: the replay did not meet the fault the run reported (the simulator should be deterministic: a bug, please report it). */
export function didNotRecur(what: string): CudaScriptError {
  return new CudaScriptError(
    "CSR089",
    `the fault did not recur on replay: ${what}. The simulator is deterministic: unless the program itself is not (its inputs, a random seed or the time changed since the run), this is a bug of CudaScript — please report it with the program`,
  );
}
