/**
 * On-disk cache of NVRTC results. Also the `@cudascript/compiler/cache` entry point (the cache folder
 * for the runtime's compile-from-source cache): imports nothing but Node built-ins, so loading it never
 * loads the compiler's front end.
 *
 * One file per key under `<dir>/nvrtc-v1/<first two hex>/<key>`:
 *
 *   CUDASCRIPT-CACHE 1\n
 *   {"key":"…","bytes":N,"sha256":"…"}\n
 *   <N bytes of JSON payload: ptx, cubin (base64), log>
 *
 * The header's checksum covers the payload, so a truncated or corrupt file is detected (and then
 * rebuilt by the caller). Writers write a uniquely named temporary file in the same folder and
 * rename it over the entry: rename is atomic, so readers see the old entry or the new one, never a
 * mix, and two processes writing the same key concurrently leave one complete entry.
 */
import { createHash, randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const MAGIC = "CUDASCRIPT-CACHE 1";
const LAYOUT = "nvrtc-v1";

export interface CacheEntry {
  ptx?: string;
  cubin?: Uint8Array;
  /** NVRTC's program log (holds the ptxas -v resource report). */
  log: string;
}

export type CacheRead =
  | { status: "hit"; entry: CacheEntry; file: string }
  | { status: "miss"; file: string }
  | { status: "corrupt"; file: string; reason: string };

/**
 * The cache folder: `CUDASCRIPT_CACHE_DIR`, else `$XDG_CACHE_HOME/cudascript`, else
 * `~/.cache/cudascript`.
 */
export function defaultCacheDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  if (env.CUDASCRIPT_CACHE_DIR) return path.resolve(env.CUDASCRIPT_CACHE_DIR);
  if (env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME)) return path.join(env.XDG_CACHE_HOME, "cudascript");
  return path.join(os.homedir(), ".cache", "cudascript");
}

/**
 * Makes the folder `dir` and the missing folders above it, one `mkdir` each, for every cache and output
 * folder. Node's `mkdirSync(dir, { recursive: true })` loops for ever where `mkdir` fails with ENOENT
 * below a folder that exists (under /proc); here that is an error at once. Returns why it could not (an
 * errno code: ENOTDIR for a path under a file), or undefined when the folder exists.
 */
export function makeDirectory(dir: string): string | undefined {
  const missing: string[] = [];
  for (let p = path.resolve(dir); ; p = path.dirname(p)) {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(p);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" || path.dirname(p) === p) return code ?? String(err);
      missing.push(p);
      continue;
    }
    if (!stat.isDirectory()) return "ENOTDIR";
    break;
  }
  for (const p of missing.reverse()) {
    try {
      fs.mkdirSync(p);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // Made meanwhile by another process: fine if it is a folder.
      if (code === "EEXIST" && isDirectory(p)) continue;
      return code ?? String(err);
    }
  }
  return undefined;
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

export type CacheFileRead =
  | { readonly status: "read"; readonly data: Buffer }
  | { readonly status: "missing" }
  | { readonly status: "not a regular file" }
  | { readonly status: "unreadable file" };

/**
 * A cache file's bytes, read only if it is a regular file: opened non-blocking (opening a FIFO put in
 * place of an entry must not wait for a writer) and checked on the open descriptor (a FIFO never ends a
 * read, /dev/zero never stops giving bytes), so no swap between a check and the read can block. Every
 * cache reads its entries through this.
 */
export function readCacheFile(file: string): CacheFileRead {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR" ? { status: "missing" } : { status: "unreadable file" };
  }
  try {
    if (!fs.fstatSync(fd).isFile()) return { status: "not a regular file" };
    return { status: "read", data: fs.readFileSync(fd) };
  } catch {
    return { status: "unreadable file" };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Writes `file` through a uniquely named temporary file renamed over it, so that a reader sees the old
 * content or the new, never half of it (the caches of the compiler and of the runtime all write so), and
 * a FIFO in its place is replaced, not opened. Returns why it could not (an errno code), or undefined.
 */
export function writeAtomically(file: string, data: Uint8Array): string | undefined {
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    const unmade = makeDirectory(path.dirname(file));
    if (unmade) return unmade;
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

/** sha256 (hex) of a canonical JSON rendering of `parts`. */
export function cacheKey(parts: Record<string, unknown>): string {
  const canonical = JSON.stringify(Object.keys(parts).sort().map((k) => [k, parts[k]]));
  return createHash("sha256").update(canonical).digest("hex");
}

export class CompileCache {
  readonly dir: string;

  constructor(dir: string = defaultCacheDir()) {
    this.dir = path.resolve(dir);
  }

  fileFor(key: string): string {
    if (!/^[0-9a-f]{64}$/.test(key)) throw new Error(`not a cache key: ${key}`);
    return path.join(this.dir, LAYOUT, key.slice(0, 2), key);
  }

  read(key: string): CacheRead {
    const file = this.fileFor(key);
    const reason = (r: string): CacheRead => ({ status: "corrupt", file, reason: r });
    const read = readCacheFile(file);
    if (read.status === "missing") return { status: "miss", file };
    if (read.status !== "read") return reason(read.status);
    const data = read.data;
    const nl1 = data.indexOf(10);
    if (nl1 < 0 || data.toString("latin1", 0, nl1) !== MAGIC) return reason("bad magic line");
    const nl2 = data.indexOf(10, nl1 + 1);
    if (nl2 < 0) return reason("truncated header");
    let header: { key?: unknown; bytes?: unknown; sha256?: unknown };
    try {
      header = JSON.parse(data.toString("utf8", nl1 + 1, nl2)) as typeof header;
    } catch {
      return reason("unreadable header");
    }
    if (header.key !== key) return reason("header names another key");
    const payload = data.subarray(nl2 + 1);
    if (payload.length !== header.bytes) return reason(`payload has ${payload.length} bytes, header says ${String(header.bytes)}`);
    if (createHash("sha256").update(payload).digest("hex") !== header.sha256) return reason("payload checksum mismatch");
    try {
      const p = JSON.parse(payload.toString("utf8")) as { ptx?: unknown; cubin?: unknown; log?: unknown };
      if (typeof p.log !== "string" || (p.ptx !== undefined && typeof p.ptx !== "string") || (p.cubin !== undefined && typeof p.cubin !== "string")) {
        return reason("payload has the wrong shape");
      }
      const entry: CacheEntry = { log: p.log };
      if (typeof p.ptx === "string") entry.ptx = p.ptx;
      if (typeof p.cubin === "string") entry.cubin = new Uint8Array(Buffer.from(p.cubin, "base64"));
      return { status: "hit", entry, file };
    } catch {
      return reason("unreadable payload");
    }
  }

  /** Writes atomically; returns the entry's path, or undefined if the folder is not writable. */
  write(key: string, entry: CacheEntry): string | undefined {
    const file = this.fileFor(key);
    const payload = Buffer.from(
      JSON.stringify({ ptx: entry.ptx, cubin: entry.cubin ? Buffer.from(entry.cubin).toString("base64") : undefined, log: entry.log }),
      "utf8",
    );
    const header = JSON.stringify({ key, bytes: payload.length, sha256: createHash("sha256").update(payload).digest("hex") });
    const data = Buffer.concat([Buffer.from(`${MAGIC}\n${header}\n`, "utf8"), payload]);
    return writeAtomically(file, data) === undefined ? file : undefined;
  }
}
