// High-level NVRTC: find and load the library once, compile CUDA C++ to PTX (and CUBIN).
// Loading never throws: a missing or broken NVRTC comes back as NvrtcUnavailable (CSN001).
// Compiles run in a child process (isolated.ts): a crash of NVRTC is a result, not the end of ours.
import * as fs from "node:fs";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { koffi, type LibraryHandle } from "../koffi";
import { discoverNvrtc, EXPLICIT_NVRTC_REASON, findBuiltinsNextTo, type DiscoveryOptions } from "./discover";
import { bindNvrtc, type NvrtcFunctions, type Out, type ProgramHandle } from "./ffi";
import { compileInChild, compileInChildSync } from "./isolated";
import type { CompileRequest, CompileResult } from "./compile-types";
export type { CompileRequest, CompileResult, NvrtcCrash } from "./compile-types";
import { NvrtcUnavailable, type NvrtcAttempt } from "./unavailable";

export interface NvrtcVersion {
  major: number;
  minor: number;
}

export interface NvrtcInfo {
  /** The library that was loaded (absolute when known). */
  path: string;
  version: NvrtcVersion;
  /** Compute capabilities NVRTC can target, as integers (80 = sm_80/compute_80), ascending. */
  supportedArchs: number[];
  /** The libnvrtc-builtins loaded by absolute path before any compile, if one was next to it. */
  builtinsPath?: string;
  /** Why discovery picked this library. */
  reason: string;
}

export type NvrtcLoad = { ok: true; nvrtc: Nvrtc } | { ok: false; error: NvrtcUnavailable };

export interface LoadNvrtcOptions {
  /** Load exactly this library instead of discovering one. */
  path?: string;
  /** Overrides for discovery (environment, fake roots); mostly for tests. */
  discovery?: DiscoveryOptions;
}

const NVRTC_SUCCESS = 0;
const NVRTC_ERROR_BUILTIN_OPERATION_FAILURE = 7;

export class Nvrtc {
  constructor(
    readonly info: NvrtcInfo,
    private readonly fns: NvrtcFunctions,
  ) {}

  /** Whether NVRTC can target compute capability `cc` (e.g. 80). */
  supportsArch(cc: number): boolean {
    return this.info.supportedArchs.includes(cc);
  }

  /**
   * Compiles in a one-shot child process and waits for it (~70-150 ms of NVRTC for a small kernel,
   * plus starting the child). A crash of NVRTC comes back as `crashed`.
   */
  compile(req: CompileRequest): CompileResult {
    return compileInChildSync(this.info.path, req);
  }

  /** Compiles in this library's long-lived child process; the event loop stays free. */
  compileAsync(req: CompileRequest): Promise<CompileResult> {
    return compileInChild(this.info.path, req);
  }

  /**
   * Compiles on the calling thread, with nothing between NVRTC and this process: a crash of NVRTC
   * (e.g. a stack overflow on deeply nested code, with koffi's 2 MiB default stack) kills it. Only
   * for the compile child, and tests that check NVRTC's output.
   */
  compileInProcess(req: CompileRequest): CompileResult {
    const start = performance.now();
    const created = this.createProgram(req);
    if ("failure" in created) return { ...created.failure, millis: performance.now() - start };
    try {
      const rc = this.fns.nvrtcCompileProgram(created.handle, req.options.length, optionList(req.options));
      return this.collect(created.handle, rc, req, start);
    } finally {
      this.fns.nvrtcDestroyProgram([created.handle]);
    }
  }

  /** The name NVRTC gives a result code, e.g. "NVRTC_ERROR_COMPILATION". */
  errorName(code: number): string {
    return this.fns.nvrtcGetErrorString(code) ?? `nvrtcResult ${code}`;
  }

  private createProgram(req: CompileRequest): { handle: ProgramHandle } | { failure: Omit<CompileResult, "millis"> } {
    const out: Out<ProgramHandle> = [null];
    const headers = req.headers ?? [];
    const rc = this.fns.nvrtcCreateProgram(
      out,
      req.source,
      req.name,
      headers.length,
      headers.length ? headers.map((h) => h.source) : null,
      headers.length ? headers.map((h) => h.name) : null,
    );
    if (rc !== NVRTC_SUCCESS) {
      const errorCode = this.errorName(rc);
      return { failure: { ok: false, log: `nvrtcCreateProgram failed: ${errorCode}`, errorCode } };
    }
    for (const expr of req.nameExpressions ?? []) {
      const addRc = this.fns.nvrtcAddNameExpression?.(out[0], expr) ?? NVRTC_SUCCESS;
      if (addRc !== NVRTC_SUCCESS) {
        this.fns.nvrtcDestroyProgram(out);
        const errorCode = this.errorName(addRc);
        return { failure: { ok: false, log: `nvrtcAddNameExpression(${expr}) failed: ${errorCode}`, errorCode } };
      }
    }
    return { handle: out[0] };
  }

  // Reads log and outputs of a compiled program (the caller destroys it).
  private collect(prog: ProgramHandle, rc: number, req: CompileRequest, start: number): CompileResult {
    let log = this.readText(prog, this.fns.nvrtcGetProgramLogSize, this.fns.nvrtcGetProgramLog) ?? "";
    if (rc !== NVRTC_SUCCESS) {
      if (rc === NVRTC_ERROR_BUILTIN_OPERATION_FAILURE) log += builtinsHint(this.info);
      return { ok: false, log, errorCode: this.errorName(rc), millis: performance.now() - start };
    }
    const result: CompileResult = { ok: true, log, millis: 0 };
    const ptx = this.readText(prog, this.fns.nvrtcGetPTXSize, this.fns.nvrtcGetPTX);
    if (ptx) result.ptx = ptx;
    if (req.wantCubin && this.fns.nvrtcGetCUBINSize && this.fns.nvrtcGetCUBIN) {
      const cubin = this.readBytes(prog, this.fns.nvrtcGetCUBINSize, this.fns.nvrtcGetCUBIN);
      if (cubin && cubin.length > 0) result.cubin = cubin;
    }
    if (req.nameExpressions?.length && this.fns.nvrtcGetLoweredName) {
      result.loweredNames = {};
      for (const expr of req.nameExpressions) {
        const lowered: Out<string | null> = [null];
        if (this.fns.nvrtcGetLoweredName(prog, expr, lowered) === NVRTC_SUCCESS && lowered[0]) {
          result.loweredNames[expr] = lowered[0];
        }
      }
    }
    result.millis = performance.now() - start;
    return result;
  }

  private readBytes(
    prog: ProgramHandle,
    getSize: (p: ProgramHandle, s: Out<number>) => number,
    get: (p: ProgramHandle, b: Uint8Array) => number,
  ): Uint8Array | undefined {
    const size: Out<number> = [0];
    if (getSize(prog, size) !== NVRTC_SUCCESS || size[0] <= 0) return undefined;
    const buffer = Buffer.alloc(size[0]);
    return get(prog, buffer) === NVRTC_SUCCESS ? buffer : undefined;
  }

  // NVRTC's text sizes count the trailing NUL (the log even has two): strip them.
  private readText(
    prog: ProgramHandle,
    getSize: (p: ProgramHandle, s: Out<number>) => number,
    get: (p: ProgramHandle, b: Uint8Array) => number,
  ): string | undefined {
    const bytes = this.readBytes(prog, getSize, get);
    return bytes === undefined ? undefined : Buffer.from(bytes).toString("utf8").replace(/\0+$/, "");
  }
}

const loaded = new Map<string, NvrtcLoad>(); // by requested path, or "" for discovery
const byLibrary = new Map<string, Nvrtc>(); // by real path of the loaded library

/** Finds and loads NVRTC; cached per path. Never throws. */
export function loadNvrtc(options: LoadNvrtcOptions = {}): NvrtcLoad {
  const key = options.path ?? "";
  const cached = options.discovery ? undefined : loaded.get(key);
  if (cached) return cached;
  let result: NvrtcLoad;
  try {
    result = options.path !== undefined ? loadExactly(options.path) : loadDiscovered(options.discovery);
  } catch (e) {
    // Defensive: discovery and loading catch their own errors, but a crash here must not escape.
    result = { ok: false, error: new NvrtcUnavailable([{ place: key || "discovery", reason: "loader", failure: errorText(e) }]) };
  }
  if (!options.discovery) loaded.set(key, result);
  return result;
}

/** Forget cached failures, so the next loadNvrtc looks again (e.g. after the user installed it). */
export function forgetNvrtcLoadFailures(): void {
  for (const [key, value] of loaded) if (!value.ok) loaded.delete(key);
}

function loadExactly(libraryPath: string): NvrtcLoad {
  const attempt = tryLoad(libraryPath, "path given to loadNvrtc");
  if ("nvrtc" in attempt) return { ok: true, nvrtc: attempt.nvrtc };
  const summary =
    `The NVRTC library ${libraryPath} that was asked for (--nvrtc, the cudascript.nvrtcPath setting, or the nvrtcPath option) ` +
    `could not be used (${attempt.failure}), so CUDA C++ cannot be compiled to PTX. Give the path of a libnvrtc.so, or leave it out to let CudaScript find NVRTC itself.`;
  return { ok: false, error: new NvrtcUnavailable([attempt], summary) };
}

function loadDiscovered(discovery?: DiscoveryOptions): NvrtcLoad {
  const attempts: NvrtcAttempt[] = [];
  // A CUDASCRIPT_NVRTC that does not load is an error, not a hint: using another NVRTC instead would
  // hide the mistake (and compile with a version the user did not ask for).
  const explicit = (discovery?.env ?? process.env).CUDASCRIPT_NVRTC;
  const explicitFailed = () => ({ ok: false as const, error: new NvrtcUnavailable(attempts, explicitFailureSummary(explicit!)) });
  for (const step of discoverNvrtc(discovery)) {
    const fromExplicit = step.reason === EXPLICIT_NVRTC_REASON && explicit !== "off";
    if (!fromExplicit && attempts.length > 0 && attempts.every((a) => a.reason === EXPLICIT_NVRTC_REASON)) return explicitFailed();
    if (step.kind === "miss") {
      attempts.push({ place: step.place, reason: step.reason, failure: step.why });
      continue;
    }
    const attempt = tryLoad(step.path, step.reason);
    if ("nvrtc" in attempt) return { ok: true, nvrtc: attempt.nvrtc };
    attempts.push(attempt);
  }
  if (explicit && explicit !== "off" && attempts.every((a) => a.reason === EXPLICIT_NVRTC_REASON)) return explicitFailed();
  return { ok: false, error: new NvrtcUnavailable(attempts) };
}

function explicitFailureSummary(value: string): string {
  return (
    `CUDASCRIPT_NVRTC is set to ${value}, which is not a working NVRTC library, so CUDA C++ cannot be compiled to PTX. ` +
    `Point it at a libnvrtc.so (or the folder that holds one), or unset it to let CudaScript find NVRTC itself.`
  );
}

function tryLoad(libraryPath: string, reason: string): { nvrtc: Nvrtc } | NvrtcAttempt {
  const fail = (failure: string): NvrtcAttempt => ({ place: libraryPath, reason, failure });
  const isBareName = !libraryPath.includes("/") && !libraryPath.includes("\\");
  if (!isBareName && !fs.existsSync(libraryPath)) return fail("file does not exist");
  const alreadyLoaded = byLibrary.get(realPathOr(libraryPath));
  if (alreadyLoaded) return { nvrtc: alreadyLoaded };

  // NVRTC dlopens its builtins by soname at the first compile: when they are not on the loader
  // path (an unpacked wheel or .deb), having them already loaded by absolute path satisfies it.
  const builtinsCandidates = isBareName ? [] : findBuiltinsNextTo(libraryPath);
  let builtinsPath = loadFirst(builtinsCandidates);

  let lib: LibraryHandle;
  try {
    lib = koffi.load(libraryPath);
  } catch (e) {
    return fail(`could not be loaded: ${errorText(e)}`);
  }
  let fns: NvrtcFunctions;
  try {
    fns = bindNvrtc(lib);
  } catch (e) {
    lib.unload();
    return fail(`not an NVRTC library: ${errorText(e)}`);
  }
  const major: Out<number> = [0];
  const minor: Out<number> = [0];
  const rc = fns.nvrtcVersion(major, minor);
  if (rc !== NVRTC_SUCCESS) return fail(`nvrtcVersion failed with code ${rc}`);
  const version = { major: major[0], minor: minor[0] };

  // The file name may not have told the exact version (libnvrtc.so.12): load the exact builtins.
  const exact = isBareName ? [] : findBuiltinsNextTo(libraryPath, version);
  if (exact[0] && exact[0] !== builtinsPath && versionMatches(exact[0], version)) {
    builtinsPath = loadFirst([exact[0]]) ?? builtinsPath;
  }

  const shownPath = isBareName ? (loadedPathOf() ?? libraryPath) : libraryPath;
  const info: NvrtcInfo = { path: shownPath, version, supportedArchs: supportedArchs(fns, version), reason };
  if (builtinsPath) info.builtinsPath = builtinsPath;
  const nvrtc = new Nvrtc(info, fns);
  byLibrary.set(realPathOr(shownPath), nvrtc);
  return { nvrtc };
}

function loadFirst(paths: string[]): string | undefined {
  for (const p of paths) {
    try {
      koffi.load(p);
      return p;
    } catch {
      // try the next one; a missing builtins library shows up as a compile error with a hint
    }
  }
  return undefined;
}

function supportedArchs(fns: NvrtcFunctions, version: NvrtcVersion): number[] {
  if (fns.nvrtcGetNumSupportedArchs && fns.nvrtcGetSupportedArchs) {
    const count: Out<number> = [0];
    if (fns.nvrtcGetNumSupportedArchs(count) === NVRTC_SUCCESS && count[0] > 0) {
      const archs = new Int32Array(count[0]);
      if (fns.nvrtcGetSupportedArchs(archs) === NVRTC_SUCCESS) return [...archs].sort((a, b) => a - b);
    }
  }
  return knownArchsBefore11_2(version);
}

// NVRTC before 11.2 cannot list its targets; these are the ones its CUDA release documented.
function knownArchsBefore11_2({ major, minor }: NvrtcVersion): number[] {
  const base = [35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75];
  if (major === 11) return minor >= 1 ? [...base, 80, 86] : [...base, 80];
  if (major === 10) return [30, 32, ...base];
  if (major === 9) return [30, 32, ...base.filter((a) => a < 75)];
  return [];
}

function versionMatches(builtins: string, version: NvrtcVersion): boolean {
  const name = path.basename(builtins);
  return name.includes(`${version.major}.${version.minor}`) || name.includes(`_${version.major}${version.minor}`);
}

// For a library loaded by soname, the file the dynamic loader picked (Linux only; undefined when
// several NVRTC files are mapped and it is unclear which one answered).
function loadedPathOf(): string | undefined {
  try {
    const maps = fs.readFileSync("/proc/self/maps", "utf8");
    const files = new Set(maps.split("\n").flatMap((l) => /\s(\/\S*\/libnvrtc\.so[.\d]*)$/.exec(l)?.[1] ?? []));
    return files.size === 1 ? [...files][0] : undefined;
  } catch {
    return undefined;
  }
}

function builtinsHint(info: NvrtcInfo): string {
  const { major, minor } = info.version;
  return (
    `\nNVRTC could not load its builtins library (libnvrtc-builtins.so.${major}.${minor}). ` +
    `Put it next to ${info.path}, or on the dynamic loader path (LD_LIBRARY_PATH).`
  );
}

function optionList(options: string[]): string[] | null {
  return options.length ? options : null;
}

function realPathOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
