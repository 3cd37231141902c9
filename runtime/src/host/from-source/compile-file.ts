/**
 * Compiles a kernel file from its TypeScript source (once per process and file: all its kernels share
 * the compile), or takes the artifact from the disk cache without loading the compiler.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { KernelChecker } from "@cudascript/compiler";
import type { KernelArtifact } from "../../backend";
import { CudaScriptError } from "../../errors";
import { SIMULATOR_ABI } from "../../simulator/options";
import { dependenciesUnchanged, dependencyHash, entryKey, sha256, SourceArtifactCache, type CheckerWarning, type KernelCall, type SourceCacheEntry } from "./disk-cache";
import { packageStamp, readCacheFile } from "../cache-files";
import { warningsSetting } from "../warnings-setting";

export interface CompiledSource {
  readonly file: string;
  /** The text the artifact was compiled from (call positions are offsets into it). */
  readonly text: string;
  readonly calls: readonly KernelCall[];
  /** Absent when the file declares no kernel the front end recognises. */
  readonly artifact?: KernelArtifact;
  /** The checker's warnings about the kernels (and the device functions they call). */
  readonly warnings: readonly CheckerWarning[];
}

const compiled = new Map<string, CompiledSource | CudaScriptError>();
let checker: KernelChecker | undefined;
let cache: SourceArtifactCache | undefined;
let cacheNoted = false;
let stamp: string | undefined;

/**
 * The kernels of `file`, compiled (or cached); throws CSR052 with the checker's errors. Their warnings
 * are printed on stderr once (CUDASCRIPT_WARNINGS=error makes them CSR052 too).
 */
export function compiledSource(file: string): CompiledSource {
  let result = compiled.get(file);
  if (!result) {
    try {
      result = compileOrReuse(file);
      reportWarnings(file, result.warnings);
    } catch (err) {
      if (!(err instanceof CudaScriptError)) throw err;
      result = err;
    }
    compiled.set(file, result);
  }
  if (result instanceof CudaScriptError) throw result;
  return result;
}

function compileOrReuse(file: string): CompiledSource {
  const text = readText(file);
  if (text === undefined) throw new CudaScriptError("CSR051", `the kernel source ${file} cannot be read: run the program where its TypeScript sources are, or build it with the CudaScript bundler plugin`);
  const key = entryKey({ layout: 2, compiler: compilerStamp(), runtime: runtimeVersion(), simulatorAbi: SIMULATOR_ABI, file, sha256: sha256(text) });
  const store = sourceCache();
  const cached = store.read(key);
  if (cached && cached.file === file && dependenciesUnchanged(cached, readText)) return { file, text, calls: cached.calls, artifact: cached.artifact, warnings: cached.warnings };

  // Loaded here, not at import: this is what loads TypeScript and the compiler's front end.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const build = require("../../build/kernel-file") as typeof import("../../build/kernel-file");
  checker ??= new (build.loadCompiler().KernelChecker)();
  const built = build.buildKernelFile(checker, file, text);
  if (built.errors.length) {
    const lines = built.errors.map((d) => diagnosticLine({ ...d.span, code: d.code, message: d.message }, "error"));
    throw new CudaScriptError(
      "CSR052",
      `the kernels of ${file} do not compile (${built.errors.length} error${built.errors.length === 1 ? "" : "s"}); fix ${built.errors.length === 1 ? "it" : "them"} (the editor extension and 'npx cudascript check' show them as you type):\n${lines.join("\n")}`,
    );
  }
  const info = checker.front.moduleInfo(file);
  const calls: KernelCall[] = [];
  for (const decl of info?.functions.values() ?? []) {
    if (decl.kind === "kernel" && built.artifact?.kernels[decl.name]) calls.push({ name: decl.name, start: decl.call.pos, end: decl.call.end });
  }
  for (const u of info?.ufuncs.values() ?? []) {
    const name = `${u.name}_${u.kind}`;
    if (built.artifact?.kernels[name]) calls.push({ name, start: u.call.pos, end: u.call.end });
  }
  const warnings: CheckerWarning[] = built.warnings.map((d) => ({ file: d.span.file, line: d.span.line, col: d.span.col, code: d.code, message: d.message }));
  if (!built.artifact) return { file, text, calls, warnings };
  // A dependency that could not be read counts as absent: the entry is reused only while it still is.
  const dependencies = [...built.dependencies, ...built.resolutionLookups].map((dep) => ({ file: dep, sha256: dependencyHash(readText(dep)) }));
  const entry: SourceCacheEntry = { file, dependencies, calls, artifact: built.artifact, warnings };
  const failed = store.write(key, entry);
  if (failed && !cacheNoted) {
    cacheNoted = true;
    process.stderr.write(`cudascript: note: cannot write the kernel cache in ${store.dir} (${failed}); kernels are compiled again at each run (set CUDASCRIPT_CACHE_DIR to a writable folder)\n`);
  }
  return { file, text, calls, artifact: built.artifact, warnings };
}

/** `file:line:col - warning CS5001: message`, as `npx cudascript check` and `cudascript run` print it. */
function diagnosticLine(d: CheckerWarning, severity: "error" | "warning"): string {
  return `${d.file}:${d.line}:${d.col} - ${severity} ${d.code}: ${d.message}`;
}

const printedWarnings = new Set<string>();

/**
 * Prints each warning once per process (a device function's warning reaches every file whose kernels
 * call it), or with CUDASCRIPT_WARNINGS=error throws CSR052 for them, so a test run fails on them.
 */
function reportWarnings(file: string, warnings: readonly CheckerWarning[]): void {
  const setting = warningsSetting();
  if (!warnings.length) return;
  if (setting === "error") {
    const lines = warnings.map((w) => diagnosticLine(w, "error"));
    throw new CudaScriptError(
      "CSR052",
      `the kernels of ${file} have ${warnings.length} checker warning${warnings.length === 1 ? "" : "s"}, errors under CUDASCRIPT_WARNINGS=error; fix ${warnings.length === 1 ? "it" : "them"} (the editor extension and 'npx cudascript check' show them as you type):\n${lines.join("\n")}`,
    );
  }
  for (const w of warnings) {
    const relative = path.relative(process.cwd(), w.file);
    const line = diagnosticLine({ ...w, file: relative && !relative.startsWith("..") && !path.isAbsolute(relative) ? relative : w.file }, "warning");
    if (printedWarnings.has(line)) continue;
    printedWarnings.add(line);
    process.stderr.write(`${line}\n`);
  }
}

/** A source's text; undefined when it is missing or not a regular file (a FIFO where an import resolution looked must not block). */
function readText(file: string): string | undefined {
  const read = readCacheFile(file);
  return read.status === "read" ? read.data.toString("utf8") : undefined;
}

function runtimeVersion(): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require("../../../package.json") as { version: string }).version;
}

function sourceCache(): SourceArtifactCache {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { defaultCacheDir } = require("@cudascript/compiler/cache") as typeof import("@cudascript/compiler/cache");
  return (cache ??= new SourceArtifactCache(defaultCacheDir()));
}

/**
 * Which compiler makes the artifacts (host/cache-files.ts packageStamp): the artifact format and what
 * the front end makes of a file both belong to it. Read from disk, without loading the compiler.
 */
function compilerStamp(): string {
  if (stamp) return stamp;
  let packageJson: string | undefined;
  try {
    packageJson = require.resolve("@cudascript/compiler/package.json");
  } catch {
    // Bundled (the VS Code extension's runtime): the compiler came with this bundle, built with it.
    packageJson = undefined;
  }
  return (stamp = packageJson ? packageStamp(packageJson) : `${runtimeVersion()}+bundle-${fs.statSync(__filename).mtimeMs}`);
}
