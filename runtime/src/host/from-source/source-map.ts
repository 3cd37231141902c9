/**
 * From a call site to the TypeScript file (and position in it) that declares the kernel.
 *
 * A stack position in a .ts file is already the source's own (tsx, Vitest, `--enable-source-maps`,
 * bun, strip-types). A position in JavaScript (tsc's output, a kernel library in node_modules, a bundle
 * built without the plugin) is mapped through the file's `//# sourceMappingURL` with Node's own
 * `SourceMap` class; without a map, a .ts twin beside the .js is the source (the position then says
 * nothing about it).
 */
import * as fs from "node:fs";
import { SourceMap, type SourceMapPayload } from "node:module";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import type { CallSite } from "./call-site";

const TS_SOURCE = /\.(?:[cm]?ts|tsx)$/;

/** Where a kernel's TypeScript source is: the file, and the call's position in it when known. */
export interface SourcePosition {
  readonly file: string;
  readonly line?: number;
  readonly col?: number;
  /** The JavaScript the call was in, when its position could not be mapped to `file`. */
  readonly unmappedFrom?: string;
}

export type Located =
  | { readonly ok: true; readonly source: SourcePosition }
  | { readonly ok: false; readonly found: string; readonly why: string; readonly generatedText?: string; readonly evaluated?: boolean };

export function locateSource(site: CallSite | undefined): Located {
  if (!site) return { ok: false, found: "no caller on the stack", why: "the call of cuda.jit could not be seen" };
  if (site.evaluated) return { ok: false, found: site.frame, why: "the kernel is in code made by eval or new Function, which no file holds", evaluated: true };
  if (!site.file || site.line === undefined || site.col === undefined) return { ok: false, found: site.frame, why: "that is not a file on disk" };
  const at = `${site.file}:${site.line}:${site.col}`;
  if (TS_SOURCE.test(site.file)) return { ok: true, source: { file: site.file, line: site.line, col: site.col } };
  let text: string;
  try {
    text = fs.readFileSync(site.file, "utf8");
  } catch {
    return { ok: false, found: at, why: "that file cannot be read" };
  }
  const map = readSourceMap(site.file, text);
  if (map) {
    const mapped = mapPosition(map, site.line, site.col);
    if (!mapped) return { ok: false, found: at, why: "its source map has no entry for that position", generatedText: text };
    if (!TS_SOURCE.test(mapped.file)) return { ok: false, found: `${at} (mapped to ${mapped.file}:${mapped.line}:${mapped.col})`, why: "the source map points at JavaScript, not TypeScript", generatedText: text };
    if (!fs.existsSync(mapped.file)) return { ok: false, found: `${at} (mapped to ${mapped.file}:${mapped.line}:${mapped.col})`, why: "that source file is not on disk (ship the .ts sources beside the source maps)", generatedText: text };
    return { ok: true, source: mapped };
  }
  const twin = tsTwin(site.file);
  if (twin) return { ok: true, source: { file: twin, unmappedFrom: site.file } };
  return { ok: false, found: at, why: "that JavaScript has no source map (//# sourceMappingURL) and no .ts file beside it", generatedText: text };
}

interface LoadedMap {
  readonly map: SourceMap;
  /** Folder that relative `sources` are resolved against (the map's own, plus `sourceRoot`). */
  readonly base: string;
}

/** The file's source map (inline `data:` URL or a file beside it), or undefined. */
export function readSourceMap(file: string, text: string): LoadedMap | undefined {
  const urls = [...text.matchAll(/\/[/*][#@]\s*sourceMappingURL=(\S+?)\s*(?:\*\/)?\s*$/gm)];
  const url = urls[urls.length - 1]?.[1];
  if (!url) return undefined;
  let json: string;
  let mapFile = file;
  try {
    if (url.startsWith("data:")) {
      const comma = url.indexOf(",");
      const meta = url.slice(0, comma);
      const data = url.slice(comma + 1);
      json = meta.endsWith(";base64") ? Buffer.from(data, "base64").toString("utf8") : decodeURIComponent(data);
    } else {
      mapFile = url.startsWith("file://") ? fileURLToPath(url) : path.resolve(path.dirname(file), decodeURIComponent(url));
      json = fs.readFileSync(mapFile, "utf8");
    }
    const payload = JSON.parse(json) as SourceMapPayload;
    if (!payload || typeof payload !== "object" || !Array.isArray(payload.sources)) return undefined;
    const root = typeof payload.sourceRoot === "string" ? payload.sourceRoot : "";
    return { map: new SourceMap(payload), base: path.resolve(path.dirname(mapFile), root.startsWith("file://") ? fileURLToPath(root) : root) };
  } catch {
    return undefined; // an unreadable or malformed map is no map
  }
}

/** Maps a 1-based position of the generated file to the original file's, or undefined. */
export function mapPosition(loaded: LoadedMap, line: number, col: number): SourcePosition | undefined {
  const entry = loaded.map.findEntry(line - 1, col - 1) as Partial<{ originalSource: string; originalLine: number; originalColumn: number }>;
  if (typeof entry.originalSource !== "string" || entry.originalLine === undefined || entry.originalColumn === undefined) return undefined;
  const src = entry.originalSource;
  const file = src.startsWith("file://") ? fileURLToPath(src) : path.resolve(loaded.base, src);
  return { file, line: entry.originalLine + 1, col: entry.originalColumn + 1 };
}

/** `x.js` → `x.ts` (`.mjs` → `.mts`, `.cjs` → `.cts`), when that file exists. */
function tsTwin(file: string): string | undefined {
  const m = /\.([cm]?)js$/.exec(file);
  if (!m) return undefined;
  const twin = `${file.slice(0, -m[0].length)}.${m[1]}ts`;
  return fs.existsSync(twin) ? twin : undefined;
}

/**
 * The TypeScript a whole JavaScript file was compiled from (tsc's one-to-one output: a kernel library's
 * `dist/x.js` → `src/x.ts`): the single TypeScript source its map names, or the `.ts` beside it.
 * Undefined for a bundle of several sources or when no such file is on disk.
 */
export function typeScriptSourceOf(file: string, text: string): string | undefined {
  const loaded = readSourceMap(file, text);
  if (loaded) {
    const sources = (loaded.map.payload.sources as readonly string[])
      .map((src) => (src.startsWith("file://") ? fileURLToPath(src) : path.resolve(loaded.base, src)))
      .filter((src) => /\.[cm]?tsx?$/.test(src) && !src.endsWith(".d.ts"));
    if (sources.length === 1 && fs.existsSync(sources[0]!)) return sources[0];
    if (sources.length > 1) return undefined;
  }
  return tsTwin(file);
}
