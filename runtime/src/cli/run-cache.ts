/**
 * The build cache of `cudascript run`: a program whose sources did not change since its last run is
 * run from the bundle that run built, without loading esbuild or the compiler (issue 11).
 *
 * One folder ("slot") per entry file and build options, under `<cache dir>/run-v1/<hash>/`:
 *
 *   manifest.json          what the bundle was built from: the entry, the options, the versions of the
 *                          tools, and the sha256 of every input file (esbuild's inputs, the files the
 *                          kernel checker read, and the tsconfig.json / jsconfig.json / package.json
 *                          files that decide how they resolve and compile, "absent" for those that did
 *                          not exist), and "absent" for each path where a file appearing would change
 *                          what an import resolves to (c.ts beside the c/index.ts that `./c` found)
 *   bundle-<sha256>.mjs    the bundle, named by its content
 *
 * The bundle is reused only when every recorded input still has its recorded hash and the bundle its
 * own; anything else (an edit, a new tsconfig.json, a corrupt or truncated manifest or bundle, another
 * version of a tool) is a miss, and the caller builds again. Writers write a uniquely named temporary
 * file and rename it into place, bundle first and manifest last: a reader sees the old manifest or the
 * new one, each naming a complete bundle, so two runs at once never corrupt each other.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { defaultCacheDir } from "@cudascript/compiler/cache";
import { makeDirectory, packageStamp, readCacheFile, sha256, writeAtomically } from "../host/cache-files";

/** Bumped when the slot's layout or the manifest's meaning changes. */
const LAYOUT = "run-v1";
const FORMAT = 1;
const MANIFEST = "manifest.json";
/** A bundle no manifest names any more is removed only this long after its last use, so that a run that has just chosen it (another process, between reading the manifest and starting the program) still finds it. */
const UNUSED_BUNDLE_GRACE_MS = 60_000;
/** Files beside a source that change how esbuild and the checker resolve and compile it. */
const CONFIG_FILES = ["tsconfig.json", "jsconfig.json", "package.json"];
const ABSENT = "absent";

/** The options that change the bundle: each distinct set has its own slot. */
export interface RunBuildOptions {
  /** GPU architectures whose PTX is embedded (the GPU the program runs on); none on the simulator. */
  readonly cudaArchs?: readonly string[];
  /** CUDASCRIPT_WARNINGS=error: the kernels' warnings fail the build. */
  readonly warnings?: "error";
}

interface Manifest {
  readonly format: number;
  readonly entry: string;
  readonly options: RunBuildOptions;
  readonly tools: Record<string, string>;
  /** Absolute path → sha256 (hex) of its content, or "absent". */
  readonly inputs: Record<string, string>;
  readonly bundle: string;
  readonly bundleSha256: string;
  /** The build's warnings as printed (plain and coloured), printed again when the bundle is reused. */
  readonly warnings: { readonly plain: string; readonly color: string };
}

export type RunCacheLookup = { readonly hit: true; readonly bundle: string; readonly warnings: Manifest["warnings"] } | { readonly hit: false; readonly reason: string };

export interface BuiltBundle {
  readonly contents: Uint8Array;
  /** Every file the bundle was built from (absolute paths). */
  readonly inputs: readonly string[];
  /** Paths that did not exist and would change what an import resolves to if one appeared (recorded as absent). */
  readonly lookups: readonly string[];
  readonly warnings: Manifest["warnings"];
  /** When the build started (ms since epoch). */
  readonly startedAt: number;
}

/** The cache of one entry built with one set of options. Creating it touches nothing on disk. */
export class RunCacheSlot {
  readonly dir: string;

  constructor(
    readonly entry: string,
    readonly options: RunBuildOptions,
    cacheDir: string = defaultCacheDir(),
  ) {
    const key = sha256(JSON.stringify([entry, normalised(options)]));
    this.dir = path.join(cacheDir, LAYOUT, key.slice(0, 32));
  }

  /** Where the build writes its bundle: the slot, so that the source map's relative paths hold there. */
  get outfile(): string {
    return path.join(this.dir, "bundle.mjs");
  }

  /** The cached bundle when nothing it was built from changed. */
  lookup(): RunCacheLookup {
    const miss = (reason: string): RunCacheLookup => ({ hit: false, reason });
    const text = readRegularFile(path.join(this.dir, MANIFEST));
    if (text === undefined) return miss("no previous build");
    let m: Manifest;
    try {
      m = JSON.parse(text.toString("utf8")) as Manifest;
    } catch {
      return miss("unreadable manifest");
    }
    if (!isManifest(m)) return miss("manifest has the wrong shape");
    if (m.format !== FORMAT || m.entry !== this.entry || JSON.stringify(m.options) !== JSON.stringify(normalised(this.options))) return miss("manifest of another build");
    if (JSON.stringify(m.tools) !== JSON.stringify(toolVersions())) return miss("built by another version of the tools");
    for (const [file, hash] of Object.entries(m.inputs)) if (hashOf(file) !== hash) return miss(`${file} changed`);
    const bundle = path.join(this.dir, m.bundle);
    const contents = readRegularFile(bundle);
    if (contents === undefined || sha256(contents) !== m.bundleSha256) return miss("bundle missing or corrupt");
    touch(bundle); // in use: not removed as unused (UNUSED_BUNDLE_GRACE_MS)
    return { hit: true, bundle, warnings: m.warnings };
  }

  /** Whether the slot's folder exists (or can be made) and can be written. */
  writable(): boolean {
    if (makeDirectory(this.dir) !== undefined) return false;
    try {
      fs.accessSync(this.dir, fs.constants.W_OK);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Writes the bundle into the slot and records it in the manifest for the next run. Returns the
   * bundle's path (and whether the next run can reuse it), or undefined when the slot cannot be written.
   */
  store(built: BuiltBundle): { readonly bundle: string; readonly stored: boolean } | undefined {
    const bundleSha256 = sha256(built.contents);
    const name = `bundle-${bundleSha256}.mjs`;
    const bundle = path.join(this.dir, name);
    if (writeAtomically(bundle, built.contents) !== undefined) return undefined;
    // A file saved while the build ran may have been read before or after the change: the hash taken
    // now could describe text the bundle was not built from. Such a build is used once, not recorded.
    // So may a file that appeared where a resolution looked.
    if (built.inputs.some((file) => modifiedSince(file, built.startedAt)) || built.lookups.some((file) => fs.existsSync(file))) return { bundle, stored: false };
    const inputs: Record<string, string> = {};
    for (const file of [...new Set([...built.inputs, ...configFilesFor(built.inputs), ...built.lookups])].sort()) inputs[file] = hashOf(file);
    const manifest: Manifest = { format: FORMAT, entry: this.entry, options: normalised(this.options), tools: toolVersions(), inputs, bundle: name, bundleSha256, warnings: built.warnings };
    const stored = writeAtomically(path.join(this.dir, MANIFEST), Buffer.from(JSON.stringify(manifest, null, 1))) === undefined;
    this.removeUnused(name);
    return { bundle, stored };
  }

  /** Bundles and temporary files of earlier builds that no run has used for a while. */
  private removeUnused(current: string): void {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch {
      return;
    }
    const before = Date.now() - UNUSED_BUNDLE_GRACE_MS;
    for (const name of names) {
      if (name === current || name === MANIFEST || !/^bundle-.*\.mjs$|\.tmp$/.test(name)) continue;
      const file = path.join(this.dir, name);
      try {
        if (fs.statSync(file).mtimeMs < before) fs.rmSync(file, { force: true });
      } catch {
        // another run removed it first, or we may not: harmless
      }
    }
  }
}

/** The cache of every `cudascript run` build (for the docs and tests): `<cache dir>/run-v1`. */
export function runCacheRoot(cacheDir: string = defaultCacheDir()): string {
  return path.join(cacheDir, LAYOUT);
}

function normalised(options: RunBuildOptions): RunBuildOptions {
  return { ...(options.cudaArchs?.length ? { cudaArchs: [...options.cudaArchs].sort() } : {}), ...(options.warnings ? { warnings: options.warnings } : {}) };
}

function isManifest(m: unknown): m is Manifest {
  const o = m as Partial<Manifest> | null;
  return (
    typeof o === "object" &&
    o !== null &&
    typeof o.entry === "string" &&
    typeof o.bundle === "string" &&
    /^bundle-[0-9a-f]{64}\.mjs$/.test(o.bundle) &&
    typeof o.bundleSha256 === "string" &&
    typeof o.options === "object" &&
    o.options !== null &&
    typeof o.tools === "object" &&
    o.tools !== null &&
    typeof o.inputs === "object" &&
    o.inputs !== null &&
    Object.values(o.inputs).every((h) => typeof h === "string") &&
    typeof o.warnings?.plain === "string" &&
    typeof o.warnings?.color === "string"
  );
}

/** The versions of what turns sources into the bundle (host/cache-files.ts packageStamp). */
let tools: Record<string, string> | undefined;
function toolVersions(): Record<string, string> {
  if (tools) return tools;
  const runtimeDir = path.join(__dirname, "..", "..");
  const resolved = (request: string): string => {
    try {
      return require.resolve(request);
    } catch {
      return "";
    }
  };
  tools = {
    cudascript: packageStamp(path.join(runtimeDir, "package.json")),
    "@cudascript/compiler": packageStamp(resolved("@cudascript/compiler/package.json")),
    esbuild: packageStamp(resolved("esbuild/package.json")),
    node: process.version,
    // This module's own file: where the CLI is one bundle (the VS Code extension's), the packages'
    // versions cannot be read, and that file changes whenever anything in it does.
    cli: fileStamp(__filename),
  };
  return tools;
}

function fileStamp(file: string): string {
  try {
    const st = fs.statSync(file);
    return `${st.size}@${st.mtimeMs}`;
  } catch {
    return "unknown";
  }
}


/** tsconfig.json, jsconfig.json and package.json in every folder above each input: where a new one appears, resolution may change. */
function configFilesFor(inputs: readonly string[]): string[] {
  const dirs = new Set<string>();
  for (const input of inputs) {
    for (let dir = path.dirname(input); !dirs.has(dir); dir = path.dirname(dir)) {
      dirs.add(dir);
      if (path.dirname(dir) === dir) break;
    }
  }
  return [...dirs].flatMap((dir) => CONFIG_FILES.map((name) => path.join(dir, name)));
}

function modifiedSince(file: string, time: number): boolean {
  try {
    return fs.statSync(file).mtimeMs >= time;
  } catch {
    return true; // gone since the build read it
  }
}

function hashOf(file: string): string {
  const data = readRegularFile(file);
  return data === undefined ? ABSENT : sha256(data);
}


/** The file's bytes, or undefined when it is missing or not a regular file (a FIFO must not block the run). */
function readRegularFile(file: string): Buffer | undefined {
  const read = readCacheFile(file);
  return read.status === "read" ? read.data : undefined;
}


function touch(file: string): void {
  try {
    const now = new Date();
    fs.utimesSync(file, now, now);
  } catch {
    // a read-only cache: the bundle is still used, only its last-use time is not recorded
  }
}
