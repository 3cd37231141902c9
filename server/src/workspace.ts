/**
 * The document store and the checking loop. Open TypeScript buffers are pushed into one incremental
 * `KernelChecker` (unsaved text wins over the disk); each change schedules a debounced re-check of the
 * document and of the open documents that import it. Requests that need fresh results (hover, code
 * actions, CodeLens) call `ensureChecked`, which checks synchronously when the last result is stale —
 * the checker re-lowers only the functions an edit touched, so that costs milliseconds.
 */
import { KernelChecker, type FileCheck } from "@cudascript/compiler";
import type { TextDocument } from "vscode-languageserver-textdocument";
import { DependencyGraph } from "./dependencies";
import { isTypeScriptDocument, uriToPath } from "./uri";

export interface CheckedDocument {
  readonly uri: string;
  readonly path: string;
  /** The document version the result belongs to. */
  readonly version: number;
  readonly result: FileCheck;
  readonly millis: number;
}

export interface WorkspaceHooks {
  /** A document was (re-)checked: publish its diagnostics. */
  checked(doc: CheckedDocument, textDocument: TextDocument): void;
  /** Logs an internal failure; never throws. */
  error(message: string, err: unknown): void;
}

export class Workspace {
  readonly checker = new KernelChecker();
  private readonly open = new Map<string, { doc: TextDocument; path: string; seenVersion: number }>();
  private readonly byPath = new Map<string, string>();
  /** Open documents whose current text the checker has not been given yet. */
  private readonly dirty = new Set<string>();
  private readonly results = new Map<string, CheckedDocument>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly deps = new DependencyGraph();
  /** Results for files that are not open (kernels launched from another file), by path. */
  private readonly others = new Map<string, { version: number; result: FileCheck }>();
  debounceMs = 150;

  constructor(private readonly hooks: WorkspaceHooks) {}

  // ───────────────────────── document events ─────────────────────────

  opened(doc: TextDocument): void {
    if (!isTypeScriptDocument(doc.uri, doc.languageId)) return;
    const path = uriToPath(doc.uri);
    this.open.set(doc.uri, { doc, path, seenVersion: doc.version });
    this.byPath.set(path, doc.uri);
    this.dirty.add(doc.uri);
    this.others.delete(path);
    this.schedule(doc.uri, 0);
    this.scheduleDependents(path);
  }

  changed(doc: TextDocument): void {
    const entry = this.open.get(doc.uri);
    if (!entry) return this.opened(doc);
    if (entry.seenVersion === doc.version && entry.doc === doc) return; // the open event, seen already
    entry.doc = doc;
    entry.seenVersion = doc.version;
    this.dirty.add(doc.uri);
    this.schedule(doc.uri, this.debounceMs);
    this.scheduleDependents(entry.path);
  }

  closed(uri: string): void {
    const entry = this.open.get(uri);
    if (!entry) return;
    this.cancel(uri);
    this.open.delete(uri);
    this.dirty.delete(uri);
    this.results.delete(uri);
    this.byPath.delete(entry.path);
    this.deps.forget(entry.path);
    // The disk copy is the truth again for files that import this one.
    this.checker.removeFile(entry.path);
    this.scheduleDependents(entry.path);
  }

  /** A file changed on disk (watched files). Open buffers keep their text. */
  fileChangedOnDisk(path: string, createdOrDeleted: boolean): void {
    if (createdOrDeleted) this.checker.project.clearResolutionCache();
    this.others.delete(path);
    if (!this.byPath.has(path)) this.checker.removeFile(path);
    if (createdOrDeleted) this.recheckAll();
    else this.scheduleDependents(path);
  }

  /** Settings changed (arch, debounce…) or imports may resolve differently: re-check everything open. */
  recheckAll(): void {
    this.others.clear();
    for (const uri of this.open.keys()) this.schedule(uri, 0);
  }

  // ───────────────────────── queries ─────────────────────────

  isOpen(uri: string): boolean {
    return this.open.has(uri);
  }

  document(uri: string): TextDocument | undefined {
    return this.open.get(uri)?.doc;
  }

  uriOfPath(path: string): string | undefined {
    return this.byPath.get(path);
  }

  /** The result for the document's current text, checking now if needed. */
  ensureChecked(uri: string): CheckedDocument | undefined {
    const entry = this.open.get(uri);
    if (!entry) return undefined;
    const last = this.results.get(uri);
    if (last && last.version === entry.doc.version && !this.dirty.has(uri) && !this.timers.has(uri)) return last;
    return this.checkNow(uri);
  }

  /** The check result of any project file (open or not), e.g. the file declaring an imported kernel. */
  resultForPath(path: string): FileCheck | undefined {
    const uri = this.byPath.get(path);
    if (uri) return this.ensureChecked(uri)?.result;
    this.syncDirty();
    const pf = this.checker.project.getFile(path);
    if (!pf) return undefined;
    const cached = this.others.get(path);
    if (cached && cached.version === pf.version) return cached.result;
    const result = this.checker.checkFile(path);
    if (this.others.size > 64) this.others.clear();
    this.others.set(path, { version: pf.version, result });
    return result;
  }

  // ───────────────────────── checking ─────────────────────────

  private schedule(uri: string, delayMs: number): void {
    this.cancel(uri);
    const timer = setTimeout(() => {
      this.timers.delete(uri);
      this.checkNow(uri);
    }, delayMs);
    this.timers.set(uri, timer);
  }

  private scheduleDependents(path: string): void {
    for (const dep of this.deps.dependentsOf(path)) {
      const uri = this.byPath.get(dep);
      if (uri) this.schedule(uri, this.debounceMs);
    }
  }

  private cancel(uri: string): void {
    const t = this.timers.get(uri);
    if (t) clearTimeout(t);
    this.timers.delete(uri);
  }

  /** Gives the checker the current text of every edited buffer. */
  private syncDirty(): void {
    for (const uri of this.dirty) {
      const entry = this.open.get(uri);
      if (entry) this.checker.setFileText(entry.path, entry.doc.getText());
    }
    this.dirty.clear();
  }

  private checkNow(uri: string): CheckedDocument | undefined {
    this.cancel(uri);
    const entry = this.open.get(uri);
    if (!entry) return undefined;
    try {
      this.dirty.add(uri); // the document's own text, always (a no-op when the checker has it)
      this.syncDirty();
      const start = performance.now();
      const result = this.checker.checkFile(entry.path);
      const millis = performance.now() - start;
      this.deps.update(this.checker, entry.path);
      const checked: CheckedDocument = { uri, path: entry.path, version: entry.doc.version, result, millis };
      this.results.set(uri, checked);
      this.hooks.checked(checked, entry.doc);
      return checked;
    } catch (err) {
      this.hooks.error(`checking ${uri} failed`, err);
      return undefined;
    }
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }
}
