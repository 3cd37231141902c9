/**
 * Where `cuda.jit(fn)` was called. A kernel without a build-time artifact compiles from its source at
 * its first launch, and its call site is how it finds that source: one stack capture when `cuda.jit`
 * runs (cheap: V8 records the frames; the text is formatted only when read, at the first launch).
 *
 * The positions are the ones the stack shows: already those of the TypeScript source under tsx,
 * Vitest, `--enable-source-maps`, bun and `node --experimental-strip-types`; those of the emitted
 * JavaScript otherwise (source-map.ts maps them).
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";

/** One stack frame, as found in the stack text. */
export interface CallSite {
  /** The frame as V8 printed it (for messages). */
  readonly frame: string;
  /** Absolute path of the file, when the frame is in a file on disk. */
  readonly file?: string;
  /** 1-based line and column, when the frame is in a file on disk. */
  readonly line?: number;
  readonly col?: number;
  /** The call is in code made by `eval` / `new Function` (no file holds it). */
  readonly evaluated: boolean;
}

/** A call site whose stack text is read when first needed. */
export interface PendingCallSite {
  resolve(): CallSite | undefined;
}

/** This package's files (the dist folder): frames there are not the user's call. */
const RUNTIME_DIST = path.resolve(__dirname, "..", "..") + path.sep;

/**
 * Captures the stack at a call of `api` (the frames of `api` and below are left out, so the first frame
 * is its caller). The text is formatted (and source-mapped by the loader, if it maps) on `resolve()`.
 */
export function captureCallSite(api: Function): PendingCallSite {
  const holder: { stack?: string } = {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 8;
  try {
    Error.captureStackTrace(holder, api);
  } finally {
    Error.stackTraceLimit = limit;
  }
  let site: CallSite | undefined | null = null;
  return {
    resolve: () => {
      if (site === null) site = firstUserFrame(holder.stack ?? "");
      return site;
    },
  };
}

/** The first frame of `stack` that is not in this package nor in Node's own code. */
export function firstUserFrame(stack: string): CallSite | undefined {
  for (const line of stack.split("\n")) {
    const frame = parseFrame(line);
    if (!frame) continue;
    if (frame.file?.startsWith(RUNTIME_DIST)) continue;
    return frame;
  }
  return undefined;
}

/**
 * One line of a V8 stack: `    at name (location)` or `    at location`, where the location is
 * `file:line:col`, `file:///…:line:col`, `node:…`, `native`, or for eval'd code
 * `eval at outer (…), <anonymous>:line:col`.
 */
export function parseFrame(line: string): CallSite | undefined {
  const m = /^\s*at (?:async )?(.*)$/.exec(line);
  if (!m) return undefined;
  const body = m[1]!.trim();
  let location = body.endsWith(")") && body.includes("(") ? body.slice(body.indexOf("(") + 1, -1) : body;
  if (/^node:|^native$|^<anonymous>$/.test(location)) return undefined;
  // `eval` and `new Function` code: "eval (eval at outer (file:1:1), <anonymous>:3:5)".
  if (/\beval at\b/.test(body) || location.startsWith("<anonymous>")) return { frame: body, evaluated: true };
  const pos = /^(.*):(\d+):(\d+)$/.exec(location);
  if (!pos) return { frame: body, evaluated: false };
  location = pos[1]!;
  let file: string | undefined;
  if (location.startsWith("file://")) {
    try {
      file = fileURLToPath(location);
    } catch {
      file = undefined;
    }
  } else if (path.isAbsolute(location)) file = location;
  if (!file) return { frame: body, evaluated: false };
  return { frame: body, file, line: Number(pos[2]), col: Number(pos[3]), evaluated: false };
}
