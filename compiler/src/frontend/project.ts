/**
 * The set of TypeScript files the front end reads. Files come from disk or from in-memory text (the
 * language server's unsaved buffers), each parsed by TypeScript into a syntax tree that the front end
 * walks. Nothing needs TypeScript's type checker (the kernel language's types are read from the syntax),
 * so there is no `ts.Program`: a file is parsed once per version, incrementally after an editor edit.
 */
import * as path from "node:path";
import { Worker } from "node:worker_threads";
import ts from "typescript";
import { isStackOverflow, MAX_NESTING_DEPTH } from "./nesting";

export interface ProjectFile {
  readonly path: string;
  readonly sourceFile: ts.SourceFile;
  /** Increases on every change of the file's text; caches key on it. */
  readonly version: number;
  /**
   * Set when TypeScript's parser ran out of stack on the text (code nested far too deeply): then
   * `sourceFile` is empty, and this is where the nesting first crosses MAX_NESTING_DEPTH.
   */
  readonly unparsable?: { readonly position: number };
}

/** The range an edit replaced: `oldLength` characters at `start` became `newLength` characters. */
export interface TextChange {
  readonly start: number;
  readonly oldLength: number;
  readonly newLength: number;
}

/** A wrong change range would corrupt an incremental parse: check it against the two texts. */
function isConsistent(oldText: string, newText: string, c: TextChange): boolean {
  if (c.start < 0 || c.start + c.oldLength > oldText.length || newText.length - oldText.length !== c.newLength - c.oldLength) return false;
  return oldText.slice(0, c.start) === newText.slice(0, c.start) && oldText.slice(c.start + c.oldLength) === newText.slice(c.start + c.newLength);
}

/** The smallest range replaced between two texts (common prefix and suffix kept). */
function changedRange(oldText: string, newText: string): TextChange {
  let start = 0;
  const max = Math.min(oldText.length, newText.length);
  while (start < max && oldText.charCodeAt(start) === newText.charCodeAt(start)) start++;
  let end = 0;
  while (end < max - start && oldText.charCodeAt(oldText.length - 1 - end) === newText.charCodeAt(newText.length - 1 - end)) end++;
  return { start, oldLength: oldText.length - start - end, newLength: newText.length - start - end };
}

interface FileEntry {
  readonly version: number;
  readonly sf: ts.SourceFile;
  readonly text: string;
  readonly unparsable: ProjectFile["unparsable"];
}

/**
 * Where a text that TypeScript could not parse (out of stack) first nests deeper than
 * MAX_NESTING_DEPTH. Only runs for such files. Bracket nesting is found with TypeScript's scanner (a
 * loop, unlike the parser); other deep constructs (else-if and ?: chains…) by parsing once more in a
 * worker thread with a large stack, waited for synchronously (the check is synchronous), and walking
 * that tree without recursion. 0 when neither finds it.
 */
function tooDeepPosition(text: string): number {
  const scanner = ts.createScanner(ts.ScriptTarget.ES2022, /*skipTrivia*/ true, ts.LanguageVariant.Standard, text);
  let depth = 0;
  for (let t = scanner.scan(); t !== ts.SyntaxKind.EndOfFileToken; t = scanner.scan()) {
    if (t === ts.SyntaxKind.OpenParenToken || t === ts.SyntaxKind.OpenBracketToken || t === ts.SyntaxKind.OpenBraceToken) {
      if (++depth > MAX_NESTING_DEPTH) return scanner.getTokenStart();
    } else if (t === ts.SyntaxKind.CloseParenToken || t === ts.SyntaxKind.CloseBracketToken || t === ts.SyntaxKind.CloseBraceToken) depth = Math.max(0, depth - 1);
  }
  const shared = new Int32Array(new SharedArrayBuffer(8));
  const worker = new Worker(LOCATE_IN_WORKER, {
    eval: true,
    workerData: { text, shared, nesting: nestingModule() },
    resourceLimits: { stackSizeMb: 256 },
  });
  worker.on("error", () => undefined); // a failure leaves position 0 (the worker's finally still wakes us)
  Atomics.wait(shared, 0, 0, 30_000);
  void worker.terminate();
  return shared[0] === 1 ? shared[1]! : 0;
}

/**
 * The module the worker takes firstTooDeepOffset from: nesting.js beside this file, or, where the
 * compiler is bundled into one file (the VS Code extension's dist/compiler.js, whose entry re-exports
 * it), that file.
 */
function nestingModule(): string {
  try {
    return require.resolve("./nesting");
  } catch {
    return __filename;
  }
}

const LOCATE_IN_WORKER = `
const { workerData } = require("node:worker_threads");
try {
  const at = require(workerData.nesting).firstTooDeepOffset(workerData.text);
  if (at >= 0) workerData.shared[1] = at;
} finally {
  Atomics.store(workerData.shared, 0, 1);
  Atomics.notify(workerData.shared, 0);
}
`;

export class CudaProject {
  private readonly versions = new Map<string, FileEntry>();
  private readonly resolutionCache = new Map<string, string | undefined>();
  /** Per resolution (same key): the paths it looked at besides its result (see resolutionLookups). */
  private readonly lookupCache = new Map<string, readonly string[]>();
  private versionCounter = 0;
  private readonly compilerOptions: ts.CompilerOptions = {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    allowImportingTsExtensions: true,
    noEmit: true,
  };

  /**
   * Sets (or replaces) a file's text, as for an unsaved editor buffer. With `change` (the range an
   * editor edit replaced), the previous syntax tree is updated incrementally instead of re-parsed.
   */
  setFileText(filePath: string, text: string, change?: TextChange): ProjectFile {
    const abs = path.resolve(filePath);
    if (!this.versions.has(abs)) this.clearResolutionCache(); // a new file may satisfy an import
    const existing = this.versions.get(abs);
    if (existing && existing.text === text) return this.entryFile(abs, existing);
    // Without a range from the editor, the edited range is where the old and new texts differ.
    if (existing && !existing.unparsable && !change) change = changedRange(existing.sf.text, text);
    let sf: ts.SourceFile;
    let unparsable: ProjectFile["unparsable"];
    try {
      sf =
        existing && !existing.unparsable && change && isConsistent(existing.sf.text, text, change)
          ? ts.updateSourceFile(existing.sf, text, { span: { start: change.start, length: change.oldLength }, newLength: change.newLength })
          : ts.createSourceFile(abs, text, ts.ScriptTarget.ES2022, /*setParentNodes*/ true, ts.ScriptKind.TS);
    } catch (err) {
      if (!isStackOverflow(err)) throw err;
      // TypeScript's parser recurses per level of nesting: the file stays, empty, and the checker reports CS1021.
      sf = ts.createSourceFile(abs, "", ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
      unparsable = { position: tooDeepPosition(text) };
    }
    const entry: FileEntry = { version: ++this.versionCounter, sf, text, unparsable };
    this.versions.set(abs, entry);
    return this.entryFile(abs, entry);
  }

  private entryFile(abs: string, e: FileEntry): ProjectFile {
    return { path: abs, sourceFile: e.sf, version: e.version, ...(e.unparsable ? { unparsable: e.unparsable } : {}) };
  }

  /** Forgets a file (closed buffer or deleted file); the next read goes to disk. */
  removeFile(filePath: string): void {
    const abs = path.resolve(filePath);
    this.versions.delete(abs);
    this.versionCounter++;
  }

  /** Increases whenever any file changes: caches spanning files key on it. */
  get generation(): number {
    return this.versionCounter;
  }

  /** The file's current text: the in-memory one if set, else read from disk. Undefined when unreadable. */
  getFile(filePath: string): ProjectFile | undefined {
    const abs = path.resolve(filePath);
    const existing = this.versions.get(abs);
    if (existing) return this.entryFile(abs, existing);
    let text: string;
    try {
      text = ts.sys.readFile(abs) ?? "";
      if (!ts.sys.fileExists(abs)) return undefined;
    } catch {
      return undefined;
    }
    return this.setFileText(abs, text);
  }

  /** The text of a file already read (also of one TypeScript could not parse). */
  getText(filePath: string): string | undefined {
    return this.versions.get(path.resolve(filePath))?.text;
  }

  /** Resolves a relative or package import to a TypeScript source file path, or undefined. */
  resolveImport(specifier: string, fromFile: string): string | undefined {
    const key = `${fromFile}\0${specifier}`;
    if (this.resolutionCache.has(key)) return this.resolutionCache.get(key);
    let resolved: string | undefined;
    const result = ts.resolveModuleName(specifier, fromFile, this.compilerOptions, this.resolutionHost);
    // TypeScript's own list of what the resolution looked at (what its watch mode watches), including
    // files under folders that do not exist. Not in its public typings: project.test.ts fails if it goes.
    const looked = result as { failedLookupLocations?: readonly string[]; affectingLocations?: readonly string[] };
    const lookups = [...(looked.failedLookupLocations ?? []), ...(looked.affectingLocations ?? [])];
    const r = result.resolvedModule?.resolvedFileName;
    if (r && !r.endsWith(".d.ts")) resolved = path.resolve(r);
    else if (!r && (specifier.startsWith("./") || specifier.startsWith("../"))) {
      // `import "./x.js"` of a .ts source in a project not set up for Node16 resolution: try the .ts twin.
      const base = path.resolve(path.dirname(fromFile), specifier).replace(/\.(m|c)?js$/, "");
      for (const ext of [".ts", ".mts", ".cts", "/index.ts"]) {
        if (this.resolutionHost.fileExists(base + ext)) { resolved = base + ext; break; }
        lookups.push(base + ext);
      }
    }
    this.resolutionCache.set(key, resolved);
    this.lookupCache.set(key, lookups.map((f) => path.resolve(f)));
    return resolved;
  }

  /**
   * The paths resolving `specifier` from `fromFile` looked at besides its result: files that were not
   * there (a `c.ts` appearing beside `c/index.ts` takes `./c`; a nearer node_modules package takes a
   * bare import) and the package.json files that steered it. A cache of what the import resolved to is
   * valid while each of these is as it was (TypeScript's watch mode watches the same list).
   */
  resolutionLookups(specifier: string, fromFile: string): readonly string[] {
    this.resolveImport(specifier, fromFile);
    return this.lookupCache.get(`${fromFile}\0${specifier}`) ?? [];
  }

  /** Module resolution sees in-memory files (unsaved buffers) as well as the disk. */
  private readonly resolutionHost: ts.ModuleResolutionHost = {
    fileExists: (p) => this.versions.has(path.resolve(p)) || ts.sys.fileExists(p),
    readFile: (p) => this.versions.get(path.resolve(p))?.text ?? ts.sys.readFile(p),
    directoryExists: (d) => ts.sys.directoryExists(d) || [...this.versions.keys()].some((k) => k.startsWith(path.resolve(d) + path.sep)),
    realpath: ts.sys.realpath,
    getCurrentDirectory: () => process.cwd(),
  };

  /**
   * Every file on disk whose text the checks so far may have used (read or set here). A build that is
   * reused while these are unchanged (`cudascript run`'s cache, watch mode) needs them all.
   */
  filesRead(): string[] {
    return [...this.versions.keys()].filter((f) => ts.sys.fileExists(f));
  }

  /** Files whose import resolution may have changed (a file appeared or disappeared). */
  clearResolutionCache(): void {
    this.resolutionCache.clear();
    this.lookupCache.clear();
  }
}
