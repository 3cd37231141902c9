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

export class CudaProject {
  private readonly project: Project;
  private readonly versions = new Map<string, { version: number; sf: ts.SourceFile }>();
  private readonly resolutionCache = new Map<string, string | undefined>();
  private versionCounter = 0;
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

  /** Sets (or replaces) a file's text, as for an unsaved editor buffer. */
  setFileText(filePath: string, text: string): ProjectFile {
    const abs = path.resolve(filePath);
    if (!this.versions.has(abs)) this.resolutionCache.clear(); // a new file may satisfy an import
    const existing = this.versions.get(abs);
    if (existing && existing.sf.text === text) return { path: abs, sourceFile: existing.sf, version: existing.version };
    const sf = this.project.createSourceFile(abs, text, { overwrite: true }).compilerNode;
    const version = ++this.versionCounter;
    this.versions.set(abs, { version, sf });
    return { path: abs, sourceFile: sf, version };
  }

  /** Forgets a file (closed buffer or deleted file); the next read goes to disk. */
  removeFile(filePath: string): void {
    const abs = path.resolve(filePath);
    this.versions.delete(abs);
    const sf = this.project.getSourceFile(abs);
    if (sf) this.project.removeSourceFile(sf);
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

  /** The ts-morph project, for the rare paths that need TypeScript's type checker. */
  get tsMorph(): Project {
    return this.project;
  }
}
