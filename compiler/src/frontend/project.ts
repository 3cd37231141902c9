/**
 * The set of TypeScript files the front end reads. Files come from disk or from in-memory text (the
 * language server's unsaved buffers); ts-morph holds them, and the front end walks the raw TypeScript
 * nodes (`compilerNode`) on its hot paths because creating ts-morph wrappers for every node costs more
 * than the whole check (see docs/architecture.md).
 */
import * as path from "node:path";
import { Project, ts } from "ts-morph";

export interface ProjectFile {
  readonly path: string;
  readonly sourceFile: ts.SourceFile;
  /** Increases on every change of the file's text; caches key on it. */
  readonly version: number;
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

export class CudaProject {
  private readonly project: Project;
  private readonly versions = new Map<string, { version: number; sf: ts.SourceFile }>();
  private readonly resolutionCache = new Map<string, string | undefined>();
  private versionCounter = 0;
  private readonly staleInTsMorph = new Set<string>();
  private readonly compilerOptions: ts.CompilerOptions = {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    allowImportingTsExtensions: true,
    noEmit: true,
  };

  constructor() {
    this.project = new Project({
      compilerOptions: this.compilerOptions,
      skipAddingFilesFromTsConfig: true,
      skipFileDependencyResolution: true,
    });
  }

  /**
   * Sets (or replaces) a file's text, as for an unsaved editor buffer. With `change` (the range an
   * editor edit replaced), the previous syntax tree is updated incrementally instead of re-parsed.
   */
  setFileText(filePath: string, text: string, change?: TextChange): ProjectFile {
    const abs = path.resolve(filePath);
    if (!this.versions.has(abs)) this.resolutionCache.clear(); // a new file may satisfy an import
    const existing = this.versions.get(abs);
    if (existing && existing.sf.text === text) return { path: abs, sourceFile: existing.sf, version: existing.version };
    // Without a range from the editor, the edited range is where the old and new texts differ.
    if (existing && !change) change = changedRange(existing.sf.text, text);
    const sf =
      existing && change && isConsistent(existing.sf.text, text, change)
        ? ts.updateSourceFile(existing.sf, text, { span: { start: change.start, length: change.oldLength }, newLength: change.newLength })
        : ts.createSourceFile(abs, text, ts.ScriptTarget.ES2022, /*setParentNodes*/ true, ts.ScriptKind.TS);
    const version = ++this.versionCounter;
    this.versions.set(abs, { version, sf });
    this.staleInTsMorph.add(abs);
    return { path: abs, sourceFile: sf, version };
  }

  /** Forgets a file (closed buffer or deleted file); the next read goes to disk. */
  removeFile(filePath: string): void {
    const abs = path.resolve(filePath);
    this.versions.delete(abs);
    this.staleInTsMorph.delete(abs);
    this.versionCounter++;
    const sf = this.project.getSourceFile(abs);
    if (sf) this.project.removeSourceFile(sf);
  }

  /** Increases whenever any file changes: caches spanning files key on it. */
  get generation(): number {
    return this.versionCounter;
  }

  /** The file's current text: the in-memory one if set, else read from disk. Undefined when unreadable. */
  getFile(filePath: string): ProjectFile | undefined {
    const abs = path.resolve(filePath);
    const existing = this.versions.get(abs);
    if (existing) return { path: abs, sourceFile: existing.sf, version: existing.version };
    let text: string;
    try {
      text = ts.sys.readFile(abs) ?? "";
      if (!ts.sys.fileExists(abs)) return undefined;
    } catch {
      return undefined;
    }
    return this.setFileText(abs, text);
  }

  /** Resolves a relative or package import to a TypeScript source file path, or undefined. */
  resolveImport(specifier: string, fromFile: string): string | undefined {
    const key = `${fromFile}\0${specifier}`;
    if (this.resolutionCache.has(key)) return this.resolutionCache.get(key);
    let resolved: string | undefined;
    const result = ts.resolveModuleName(specifier, fromFile, this.compilerOptions, this.resolutionHost);
    const r = result.resolvedModule?.resolvedFileName;
    if (r && !r.endsWith(".d.ts")) resolved = path.resolve(r);
    else if (!r && (specifier.startsWith("./") || specifier.startsWith("../"))) {
      // `import "./x.js"` of a .ts source in a project not set up for Node16 resolution: try the .ts twin.
      const base = path.resolve(path.dirname(fromFile), specifier).replace(/\.(m|c)?js$/, "");
      for (const ext of [".ts", ".mts", ".cts", "/index.ts"]) if (this.resolutionHost.fileExists(base + ext)) { resolved = base + ext; break; }
    }
    this.resolutionCache.set(key, resolved);
    return resolved;
  }

  /** Module resolution sees in-memory files (unsaved buffers) as well as the disk. */
  private readonly resolutionHost: ts.ModuleResolutionHost = {
    fileExists: (p) => this.versions.has(path.resolve(p)) || ts.sys.fileExists(p),
    readFile: (p) => this.versions.get(path.resolve(p))?.sf.text ?? ts.sys.readFile(p),
    directoryExists: (d) => ts.sys.directoryExists(d) || [...this.versions.keys()].some((k) => k.startsWith(path.resolve(d) + path.sep)),
    realpath: ts.sys.realpath,
    getCurrentDirectory: () => process.cwd(),
  };

  /** Files whose import resolution may have changed (a file appeared or disappeared). */
  clearResolutionCache(): void {
    this.resolutionCache.clear();
  }

  /**
   * The ts-morph project, for the rare paths that need TypeScript's type checker. Files changed
   * since the last call are brought in first (the hot paths never need this).
   */
  get tsMorph(): Project {
    for (const abs of this.staleInTsMorph) {
      const v = this.versions.get(abs);
      if (v) this.project.createSourceFile(abs, v.sf.text, { overwrite: true });
    }
    this.staleInTsMorph.clear();
    return this.project;
  }
}
