// Finds NVRTC on the user's machine without loading anything.
//
// Discovery is a lazy generator of steps: the loader pulls one candidate at a time and stops at the
// first library that loads, so the expensive last resort (spawning python to ask where its
// site-packages are) only runs when everything cheaper has failed. Places that held nothing are
// yielded too, so that "NVRTC not found" can list every place that was looked at.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/** A library file worth trying, and why discovery picked it. */
export interface NvrtcCandidate {
  kind: "candidate";
  /** Absolute path, or a bare soname that the dynamic loader resolves itself. */
  path: string;
  reason: string;
}

/** A place that was searched and held no NVRTC (or a source that could not be asked). */
export interface NvrtcMiss {
  kind: "miss";
  place: string;
  reason: string;
  why: string;
}

export type NvrtcDiscoveryStep = NvrtcCandidate | NvrtcMiss;

export interface DiscoveryOptions {
  env?: Readonly<Record<string, string | undefined>>;
  platform?: string;
  homeDir?: string;
  /** Prefix for the fixed system locations (/usr/local, /usr/lib): lets tests use a fake tree. */
  systemRoot?: string;
  /** Returns python's site-packages dirs; the default spawns python3 with a short timeout. */
  pythonSitePackages?: () => string[];
  /** Try bare sonames through the dynamic loader (ld.so.cache, LD_LIBRARY_PATH). Default true. */
  includeLoaderSearch?: boolean;
}

const LINUX_NVRTC = /^libnvrtc\.so(\.\d+)*$/;
const WINDOWS_NVRTC = /^nvrtc64_\d+(_\d+)?\.dll$/;
// Names a system package or toolkit installs, best first. Other matches (the fully versioned
// file) follow, but usually resolve to the same file and are dropped as duplicates.
const PREFERRED_SONAMES = ["libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2"];
const PYTHON_TIMEOUT_MS = 3000;
/** The reason of every step that comes from CUDASCRIPT_NVRTC (the loader does not fall back past them). */
export const EXPLICIT_NVRTC_REASON = "environment variable CUDASCRIPT_NVRTC";

/** All candidates in the order the loader should try them; see the module comment. */
export function* discoverNvrtc(options: DiscoveryOptions = {}): Generator<NvrtcDiscoveryStep> {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const home = options.homeDir ?? safeHomeDir();
  const sys = (p: string) => (options.systemRoot ? path.join(options.systemRoot, p) : p);
  const isWindows = platform === "win32";
  const seen = new Set<string>(); // real paths of yielded libraries
  const searchedDirs = new Set<string>(); // real paths of searched directories

  // Yields each new library in `dir`, or one miss when there is none.
  function* inDir(dir: string, reason: string): Generator<NvrtcDiscoveryStep> {
    const realDir = realPathOr(dir);
    if (searchedDirs.has(realDir)) return;
    searchedDirs.add(realDir);
    const names = libraryNamesIn(dir, isWindows);
    if (names === undefined) {
      yield { kind: "miss", place: dir, reason, why: "directory does not exist" };
      return;
    }
    if (names.length === 0) {
      yield { kind: "miss", place: dir, reason, why: "no NVRTC library in this directory" };
      return;
    }
    for (const name of names) {
      const file = path.join(dir, name);
      const key = realPathOr(file);
      if (seen.has(key)) continue;
      seen.add(key);
      yield { kind: "candidate", path: file, reason };
    }
  }

  // 1. Explicit override: a file (tried even if missing, so the user sees why) or a directory;
  // "off" hides NVRTC, to exercise the no-NVRTC paths on a machine that has it.
  const explicit = env.CUDASCRIPT_NVRTC;
  if (explicit === "off") {
    yield { kind: "miss", place: "CUDASCRIPT_NVRTC=off", reason: EXPLICIT_NVRTC_REASON, why: "NVRTC disabled on purpose" };
    return;
  }
  if (explicit) {
    const reason = EXPLICIT_NVRTC_REASON;
    if (isDirectory(explicit)) yield* inDir(explicit, reason);
    else {
      seen.add(realPathOr(explicit));
      yield { kind: "candidate", path: explicit, reason };
    }
  }

  // 2. A toolkit the user pointed at.
  for (const variable of ["CUDA_PATH", "CUDA_HOME"]) {
    const root = env[variable];
    if (!root) continue;
    const subdirs = isWindows ? ["bin", path.join("bin", "x64")] : ["lib64", path.join("targets", "x86_64-linux", "lib")];
    for (const sub of subdirs) {
      const dir = path.join(root, sub);
      if (sub !== subdirs[0] && !isDirectory(dir)) continue; // report only the main dir as a miss
      yield* inDir(dir, `environment variable ${variable} (CUDA toolkit)`);
    }
  }

  if (!isWindows) {
    // 3. Toolkits in the default install location, newest first.
    for (const dir of cudaToolkitDirs(sys("/usr/local"))) {
      yield* inDir(path.join(dir, "lib64"), `CUDA toolkit in ${dir}`);
    }

    // 4. Distribution packages (Debian/Ubuntu multiarch: libnvrtc11.2, libnvrtc12, ...).
    for (const dir of ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64"]) {
      const real = sys(dir);
      if (!isDirectory(real)) continue; // foreign-arch dirs are normal to lack: not worth listing
      yield* inDir(real, "system package (multiarch library directory)");
    }
  }

  // 5. pip wheels in well-known site-packages, then the active conda environment.
  for (const site of commonSitePackages(env, home, sys, isWindows)) {
    yield* nvidiaWheelDirs(site, inDir);
  }
  const conda = env.CONDA_PREFIX;
  if (conda) {
    yield* inDir(path.join(conda, isWindows ? path.join("Library", "bin") : "lib"), "conda environment ($CONDA_PREFIX)");
  }

  // 6. Whatever the dynamic loader finds by itself (ldconfig cache, LD_LIBRARY_PATH).
  if (options.includeLoaderSearch ?? true) {
    const sonames = isWindows ? [] : ["libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so"];
    for (const soname of sonames) {
      if (seen.has(soname)) continue;
      seen.add(soname);
      yield { kind: "candidate", path: soname, reason: "dynamic loader search path (ld.so.cache, LD_LIBRARY_PATH)" };
    }
  }

  // 7. Last resort, slow: ask python where its packages live (venvs, pyenv, user installs).
  let sites: string[];
  try {
    sites = (options.pythonSitePackages ?? askPythonForSitePackages)();
  } catch (e) {
    yield { kind: "miss", place: "python3 site-packages", reason: "pip wheel nvidia-cuda-nvrtc", why: errorText(e) };
    return;
  }
  for (const site of sites) yield* nvidiaWheelDirs(site, inDir);
}

/** The `libnvrtc-builtins` libraries next to `nvrtcPath`, best match for `version` first. */
export function findBuiltinsNextTo(nvrtcPath: string, version?: { major: number; minor?: number }): string[] {
  if (!path.isAbsolute(nvrtcPath)) return []; // the loader resolves bare sonames and their builtins
  const dir = path.dirname(nvrtcPath);
  const windows = nvrtcPath.toLowerCase().endsWith(".dll");
  const pattern = windows ? /^nvrtc-builtins64_\d+\.dll$/ : /^libnvrtc-builtins\.so(\.\d+)+$/;
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => pattern.test(n));
  } catch {
    return [];
  }
  const wanted = version ?? versionFromFileName(realPathOr(nvrtcPath));
  const score = (name: string): number => {
    const v = versionNumbers(name);
    if (!wanted) return 0;
    if (v[0] !== wanted.major) return 2;
    return wanted.minor === undefined || v[1] === wanted.minor ? 0 : 1;
  };
  return names
    // Among equals prefer the newest major.minor, then its soname (libnvrtc-builtins.so.11.8,
    // the name NVRTC asks the loader for) over the fully versioned file it links to.
    .sort(
      (a, b) =>
        score(a) - score(b) ||
        compareVersionsDescending(versionNumbers(a).slice(0, 2), versionNumbers(b).slice(0, 2)) ||
        a.length - b.length,
    )
    .map((n) => path.join(dir, n));
}

/** Parses `libnvrtc.so.11.8.89` → {11, 8}; undefined when the name carries no version. */
export function versionFromFileName(file: string): { major: number; minor?: number } | undefined {
  const v = versionNumbers(path.basename(file));
  if (v.length === 0) return undefined;
  return v.length >= 2 ? { major: v[0]!, minor: v[1]! } : { major: v[0]! };
}

function* nvidiaWheelDirs(
  sitePackages: string,
  inDir: (dir: string, reason: string) => Generator<NvrtcDiscoveryStep>,
): Generator<NvrtcDiscoveryStep> {
  const nvidia = path.join(sitePackages, "nvidia");
  if (!isDirectory(nvidia)) return; // most site-packages have no NVIDIA wheels: not worth listing
  const reason = `pip wheel nvidia-cuda-nvrtc in ${sitePackages}`;
  // CUDA 12 wheels: nvidia/cuda_nvrtc/lib; CUDA 13 wheels: nvidia/cu13/lib.
  const dirs = [path.join(nvidia, "cuda_nvrtc", "lib"), path.join(nvidia, "cuda_nvrtc", "bin")];
  for (const name of safeReaddir(nvidia).filter((n) => /^cu\d+$/.test(n)).sort().reverse()) {
    dirs.push(path.join(nvidia, name, "lib"), path.join(nvidia, name, "bin"));
  }
  for (const dir of dirs) if (isDirectory(dir)) yield* inDir(dir, reason);
}

function commonSitePackages(env: Readonly<Record<string, string | undefined>>, home: string | undefined, sys: (p: string) => string, isWindows: boolean): string[] {
  if (isWindows) return [];
  const roots: string[] = [];
  if (env.VIRTUAL_ENV) roots.push(path.join(env.VIRTUAL_ENV, "lib"));
  if (env.CONDA_PREFIX) roots.push(path.join(env.CONDA_PREFIX, "lib"));
  if (home) roots.push(path.join(home, ".local", "lib"));
  roots.push(sys("/usr/local/lib"), sys("/usr/lib"));
  const sites: string[] = [];
  for (const root of roots) {
    const pythons = safeReaddir(root).filter((n) => /^python3(\.\d+)?$/.test(n));
    pythons.sort((a, b) => compareVersionsDescending(versionNumbers(a), versionNumbers(b)));
    for (const py of pythons) sites.push(path.join(root, py, "site-packages"), path.join(root, py, "dist-packages"));
  }
  return sites;
}

/** `/usr/local/cuda*` directories, newest version first; `cuda` is ranked by what it links to. */
function cudaToolkitDirs(usrLocal: string): string[] {
  const dirs = safeReaddir(usrLocal)
    .filter((n) => /^cuda(-\d+(\.\d+)*)?$/.test(n))
    .map((n) => path.join(usrLocal, n))
    .filter(isDirectory);
  const version = (dir: string) => versionNumbers(path.basename(realPathOr(dir)));
  return dirs.sort((a, b) => compareVersionsDescending(version(a), version(b)) || a.length - b.length);
}

function libraryNamesIn(dir: string, isWindows: boolean): string[] | undefined {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return undefined;
  }
  const pattern = isWindows ? WINDOWS_NVRTC : LINUX_NVRTC;
  const rank = (n: string) => {
    const i = PREFERRED_SONAMES.indexOf(n);
    return i < 0 ? PREFERRED_SONAMES.length : i;
  };
  return names
    .filter((n) => pattern.test(n))
    .sort((a, b) => rank(a) - rank(b) || compareVersionsDescending(versionNumbers(a), versionNumbers(b)));
}

function askPythonForSitePackages(): string[] {
  const script = "import json, site\nprint(json.dumps(list(site.getsitepackages()) + [site.getusersitepackages()]))";
  const found: string[] = [];
  const failures: string[] = [];
  for (const python of ["python3", "python"]) {
    const r = spawnSync(python, ["-c", script], { encoding: "utf8", timeout: PYTHON_TIMEOUT_MS, windowsHide: true });
    if (r.error || r.status !== 0) {
      failures.push(`${python}: ${r.error ? r.error.message : `exit ${r.status}`}`);
      continue;
    }
    const parsed: unknown = JSON.parse(r.stdout.trim().split("\n").pop() ?? "[]");
    if (Array.isArray(parsed)) for (const p of parsed) if (typeof p === "string") found.push(p);
    return found;
  }
  throw new Error(`could not run python (${failures.join("; ")})`);
}

function versionNumbers(name: string): number[] {
  const m = /(\d+(?:[._]\d+)*)(?:\.dll)?$/.exec(name);
  return m ? m[1]!.split(/[._]/).map(Number) : [];
}

function compareVersionsDescending(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (b[i] ?? -1) - (a[i] ?? -1);
    if (d !== 0) return d;
  }
  return 0;
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

function realPathOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

function safeHomeDir(): string | undefined {
  try {
    return os.homedir();
  } catch {
    return undefined;
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
