/**
 * File helpers shared by the two on-disk caches of the runtime: compile-from-source's artifacts
 * (host/from-source/disk-cache.ts) and `cudascript run`'s bundles (cli/run-cache.ts).
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";

export function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/**
 * Writes a file atomically (temporary file + rename), makes a folder without looping under /proc, reads
 * a cache file only if it is a regular file (never blocking on a FIFO): the helpers every cache and
 * output path uses.
 */
export { makeDirectory, readCacheFile, writeAtomically } from "@cudascript/compiler/cache";

/**
 * What identifies the build of a package whose output a cache keeps: its version when it is installed
 * (under node_modules its files change only with its version); in a workspace checkout, whose version
 * does not change with its code, the version and the time of its last build — `tsc -b` rewrites
 * tsconfig.tsbuildinfo on every build that emits (one stat), else the newest of its built files.
 */
export function packageStamp(packageJson: string): string {
  try {
    const version = (JSON.parse(fs.readFileSync(packageJson, "utf8")) as { version?: string }).version ?? "?";
    const dir = fs.realpathSync(path.dirname(packageJson));
    return dir.split(path.sep).includes("node_modules") ? version : `${version}+${builtAt(dir)}`;
  } catch {
    return "unknown";
  }
}

function builtAt(dir: string): number {
  try {
    return fs.statSync(path.join(dir, "tsconfig.tsbuildinfo")).mtimeMs;
  } catch {
    return newestMtime(path.join(dir, "dist"));
  }
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const name of fs.readdirSync(dir, { recursive: true }) as string[]) {
    if (!name.endsWith(".js")) continue;
    newest = Math.max(newest, fs.statSync(path.join(dir, name)).mtimeMs);
  }
  return newest;
}

/** What a path that is not a regular file is, for messages ("a FIFO", "a folder"…). */
export function fileKind(stat: fs.Stats): string {
  return stat.isFIFO() ? "a FIFO" : stat.isSocket() ? "a socket" : stat.isCharacterDevice() ? "a character device" : stat.isBlockDevice() ? "a block device" : stat.isDirectory() ? "a folder" : stat.isFile() ? "a file" : "not a file";
}
