/**
 * Disk cache of the artifacts compile-from-source makes, so a second run does not load the compiler.
 *
 * An entry is found by a key over what the artifact is made from: the source file's path and text,
 * the compiler (its version and build) and the simulator ABI this runtime runs. The texts of the files
 * the kernels depend on (imported device functions and constants) are checked after the lookup: the
 * entry lists them with their hashes, and any change makes it a miss. So are the paths the resolution
 * of their imports looked at (kernel-file.ts resolutionLookups), most of them recorded as absent: a file
 * that appears there can change what an import resolves to. Entries live beside the PTX cache
 * (`@cudascript/compiler/cache`'s `defaultCacheDir`) under `from-source-v1/`:
 *
 *   {"key":"…","bytes":N,"sha256":"…"}\n<N bytes of JSON payload>
 *
 * The checksum covers the payload: a truncated or corrupt entry (or any unreadable one) is a miss and
 * is compiled again. Writes are atomic (a unique temporary file renamed over the entry).
 */
import * as path from "node:path";
import type { KernelArtifact } from "../../backend";
import { readCacheFile, sha256, writeAtomically } from "../cache-files";

export { sha256 };

const LAYOUT = "from-source-v1";

/** Where each kernel's `cuda.jit(...)` call is in the source text (UTF-16 offsets). */
export interface KernelCall {
  readonly name: string;
  readonly start: number;
  readonly end: number;
}

/** A checker warning, kept with the entry so that a run from the cache prints it too. */
export interface CheckerWarning {
  readonly file: string;
  readonly line: number;
  readonly col: number;
  readonly code: string;
  readonly message: string;
}

export interface SourceCacheEntry {
  readonly file: string;
  /** Other files the kernels depend on, with the sha256 of the text they were compiled against, or ABSENT. */
  readonly dependencies: readonly { readonly file: string; readonly sha256: string }[];
  readonly calls: readonly KernelCall[];
  readonly artifact: KernelArtifact;
  readonly warnings: readonly CheckerWarning[];
}


export function entryKey(parts: Record<string, unknown>): string {
  return sha256(JSON.stringify(Object.keys(parts).sort().map((k) => [k, parts[k]])));
}

/** A dependency's hash when there was no file to read (a path import resolution looked at in vain). */
export const ABSENT = "absent";

/** The sha256 of a dependency's text, or ABSENT. */
export function dependencyHash(text: string | undefined): string {
  return text === undefined ? ABSENT : sha256(text);
}

/** The texts the entry's dependencies now have (or their absence) match those it was compiled against. */
export function dependenciesUnchanged(entry: SourceCacheEntry, readText: (file: string) => string | undefined): boolean {
  return entry.dependencies.every((d) => dependencyHash(readText(d.file)) === d.sha256);
}

export class SourceArtifactCache {
  constructor(readonly dir: string) {}

  fileFor(key: string): string {
    return path.join(this.dir, LAYOUT, key.slice(0, 2), `${key}.json`);
  }

  /** The entry, or undefined when there is none or it cannot be used (then it is compiled again). */
  read(key: string): SourceCacheEntry | undefined {
    const read = readCacheFile(this.fileFor(key));
    if (read.status !== "read") return undefined;
    const data = read.data;
    try {
      const nl = data.indexOf(10);
      if (nl < 0) return undefined;
      const header = JSON.parse(data.toString("utf8", 0, nl)) as { key?: unknown; bytes?: unknown; sha256?: unknown };
      const payload = data.subarray(nl + 1);
      if (header.key !== key || header.bytes !== payload.length) return undefined;
      if (sha256(payload) !== header.sha256) return undefined;
      const entry = JSON.parse(payload.toString("utf8")) as SourceCacheEntry;
      if (typeof entry?.file !== "string" || !Array.isArray(entry.dependencies) || !Array.isArray(entry.calls) || !Array.isArray(entry.warnings)) return undefined;
      if (typeof entry.artifact?.kernels !== "object" || typeof entry.artifact.simulator?.js !== "string") return undefined;
      return entry;
    } catch {
      return undefined;
    }
  }

  /** Writes atomically; returns why it could not, or undefined when written. */
  write(key: string, entry: SourceCacheEntry): string | undefined {
    const payload = Buffer.from(JSON.stringify(entry), "utf8");
    const header = JSON.stringify({ key, bytes: payload.length, sha256: sha256(payload) });
    return writeAtomically(this.fileFor(key), Buffer.concat([Buffer.from(`${header}\n`, "utf8"), payload]));
  }
}
