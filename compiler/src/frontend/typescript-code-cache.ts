/**
 * Loads TypeScript (9 MB of JavaScript) with V8's code cache, before the compiler asks for it.
 * Everything that compiles kernels — `cudascript run` after an edit, `check`, the bundler plugins,
 * compile-from-source, the language server — loads it first, and reading and compiling that file is
 * most of their start-up. With the
 * cache (`<cacheDir>/v8-code-cache/`) V8 deserialises the compiled functions instead, and the file is
 * read as Latin-1 (it is ASCII) rather than decoded as UTF-8.
 *
 * Node 22.1+ has a code cache of its own (`module.enableCompileCache`, which `cudascript` turns on);
 * this one also serves Node 20, where the package runs too. It is a no-op where the file cannot be
 * found (a bundle that inlines TypeScript, e.g. the VS Code extension's), when
 * CUDASCRIPT_NO_CODE_CACHE=1 or NODE_DISABLE_COMPILE_CACHE=1 is set, and on any error: TypeScript
 * then loads the ordinary way. V8 checks that cached data matches the source and its own version and
 * flags, and rejects it otherwise (then the cache is written again).
 */
import { isAscii } from "node:buffer";
import * as fs from "node:fs";
import Module from "node:module";
import * as path from "node:path";
import * as vm from "node:vm";
import { defaultCacheDir, readCacheFile, writeAtomically } from "../compile/cache";

/** The module object Node's CommonJS loader keeps in require.cache (its internals are not in the typings). */
interface LoaderModule {
  exports: unknown;
  filename: string;
  paths: string[];
  loaded: boolean;
}
const ModuleClass = Module as unknown as {
  new (id: string, parent?: unknown): LoaderModule;
  _cache: Record<string, LoaderModule>;
  _nodeModulePaths(dir: string): string[];
  wrap(source: string): string;
};

/** TypeScript's main file, as the compiler's `require("typescript")` resolves it; undefined when it cannot be found (a bundle). */
function typescriptFile(): string | undefined {
  try {
    const file = require.resolve("typescript");
    return path.isAbsolute(file) && fs.existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}

function disabled(): boolean {
  const off = (v: string | undefined) => v !== undefined && v !== "" && v !== "0" && v !== "false";
  return off(process.env.CUDASCRIPT_NO_CODE_CACHE) || off(process.env.NODE_DISABLE_COMPILE_CACHE);
}

/** Loads TypeScript into require.cache through the code cache; false when it did not (it then loads the ordinary way). */
export function preloadTypeScript(): boolean {
  const file = typescriptFile();
  if (disabled() || !file) return false;
  return preload(file, path.join(defaultCacheDir(), "v8-code-cache"));
}

/** Runs one CommonJS file as Node's loader would, its compiled code taken from (and later put in) `dir`. */
function preload(file: string, dir: string): boolean {
  if (ModuleClass._cache[file]) return false;
  try {
    const bytes = fs.readFileSync(file);
    // Latin-1 decoding equals UTF-8's for ASCII, and is several times faster on 9 MB.
    const source = isAscii(bytes) ? bytes.toString("latin1") : bytes.toString("utf8");
    const stat = fs.statSync(file);
    const cacheFile = path.join(dir, `${path.basename(file, ".js")}-${process.version}-${process.arch}-${stat.size}-${Math.floor(stat.mtimeMs)}.bin`);
    // Only a regular file: a FIFO in its place would block the start-up for ever.
    const read = readCacheFile(cacheFile);
    const cached = read.status === "read" ? read.data : undefined;
    const script = new vm.Script(ModuleClass.wrap(source), {
      filename: file,
      ...(cached ? { cachedData: cached } : {}),
      importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    });
    const mod = new ModuleClass(file);
    mod.filename = file;
    mod.paths = ModuleClass._nodeModulePaths(path.dirname(file));
    ModuleClass._cache[file] = mod;
    try {
      const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
      wrapper.call(mod.exports, mod.exports, Module.createRequire(file), mod, file, path.dirname(file));
      mod.loaded = true;
    } catch (e) {
      delete ModuleClass._cache[file];
      throw e;
    }
    // Written at exit, when the functions the checker used are compiled too (they are in the data).
    if (!cached || script.cachedDataRejected) process.once("exit", () => writeCodeCache(cacheFile, script));
    return true;
  } catch {
    return false;
  }
}

function writeCodeCache(file: string, script: vm.Script): void {
  // An unwritable cache folder: TypeScript is compiled at each start, as without the cache.
  writeAtomically(file, script.createCachedData());
}
