/**
 * File helpers shared by the two on-disk caches of the runtime: compile-from-source's artifacts
 * (host/from-source/disk-cache.ts) and `cudascript run`'s bundles (cli/run-cache.ts).
 */
import { createHash, randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";

export function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/**
 * Writes `file` through a uniquely named temporary file renamed over it, so that a reader sees the old
 * content or the new, never half of it. Returns why it could not (an errno code), or undefined.
 */
export function writeAtomically(file: string, data: Uint8Array): string | undefined {
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(tmp, data, { flag: "wx" });
    fs.renameSync(tmp, file);
    return undefined;
  } catch (err) {
    try {
      fs.rmSync(tmp, { force: true });
    } catch {
      // nothing to clean up
    }
    return (err as NodeJS.ErrnoException).code ?? String(err);
  }
}

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
