/**
 * Show CUDA C++ / Show PTX: read-only virtual documents (`cudascript-generated:` scheme) filled from the
 * language server's `cudascript/generatedCode` request, opened beside the source. Moving the cursor in
 * the source highlights and reveals the generated lines of that source line, and the other way round,
 * through the server's lineMap. Refreshed when the source changes.
 */
import * as path from "node:path";
import * as vscode from "vscode";

export const GENERATED_SCHEME = "cudascript-generated";
export const GENERATED_CODE_REQUEST = "cudascript/generatedCode";

export interface GeneratedCodeParams {
  uri: string;
  kind: "cuda" | "ptx";
  kernel?: string;
}
export interface GeneratedCodeResult {
  text: string;
  languageId?: string;
  /** 1-based lines. */
  lineMap?: { generatedLine: number; sourceLine: number }[];
  error?: string;
}

export type Requester = (params: GeneratedCodeParams) => Promise<GeneratedCodeResult>;

interface Entry {
  source: vscode.Uri;
  kind: "cuda" | "ptx";
  kernel?: string;
  result?: GeneratedCodeResult;
  /** source line (1-based) → generated lines (1-based), and back. */
  toGenerated: Map<number, number[]>;
  toSource: Map<number, number>;
}

export function generatedUri(source: vscode.Uri, kind: "cuda" | "ptx", kernel?: string): vscode.Uri {
  const base = path.posix.basename(source.path);
  const name = `${base}${kernel ? `.${kernel}` : ""}.${kind === "ptx" ? "ptx" : "cu"}`;
  const query = new URLSearchParams({ source: source.toString(), kind, ...(kernel ? { kernel } : {}) }).toString();
  return vscode.Uri.from({ scheme: GENERATED_SCHEME, path: `/${name}`, query });
}

export class GeneratedCodeProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly entries = new Map<string, Entry>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly highlight = vscode.window.createTextEditorDecorationType({
    backgroundColor: new vscode.ThemeColor("editor.rangeHighlightBackground"),
    isWholeLine: true,
    overviewRulerColor: new vscode.ThemeColor("editorOverviewRuler.rangeHighlightForeground"),
    overviewRulerLane: vscode.OverviewRulerLane.Center,
  });
  private refreshTimer: NodeJS.Timeout | undefined;

  constructor(private readonly request: () => Requester | undefined) {
    this.disposables.push(
      vscode.workspace.registerTextDocumentContentProvider(GENERATED_SCHEME, this),
      vscode.window.onDidChangeTextEditorSelection((e) => this.onSelection(e)),
      vscode.workspace.onDidChangeTextDocument((e) => this.onSourceChanged(e.document)),
      vscode.workspace.onDidCloseTextDocument((d) => d.uri.scheme === GENERATED_SCHEME && this.entries.delete(d.uri.toString())),
      this.highlight,
      this.changed,
    );
  }

  dispose(): void {
    clearTimeout(this.refreshTimer);
    for (const d of this.disposables.splice(0)) d.dispose();
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const q = new URLSearchParams(uri.query);
    const source = vscode.Uri.parse(q.get("source") ?? "");
    const kind = q.get("kind") === "ptx" ? "ptx" : "cuda";
    const kernel = q.get("kernel") ?? undefined;
    const entry: Entry = this.entries.get(uri.toString()) ?? { source, kind, kernel, toGenerated: new Map(), toSource: new Map() };
    this.entries.set(uri.toString(), entry);
    const req = this.request();
    const what = kind === "ptx" ? "PTX" : "CUDA C++";
    const comment = "//"; // a line comment in both CUDA C++ and PTX
    if (!req) return `${comment} ${what} is not available: the CudaScript language server is not running (see the "CudaScript" output).\n`;
    let result: GeneratedCodeResult;
    try {
      result = await req({ uri: source.toString(), kind, kernel });
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      result = { text: "", error: /unhandled method|method not found/i.test(msg) ? `the language server does not provide generated code yet (${msg})` : msg };
    }
    entry.result = result;
    entry.toGenerated.clear();
    entry.toSource.clear();
    for (const m of result.lineMap ?? []) {
      if (typeof m.generatedLine !== "number" || typeof m.sourceLine !== "number") continue;
      const list = entry.toGenerated.get(m.sourceLine) ?? [];
      list.push(m.generatedLine);
      entry.toGenerated.set(m.sourceLine, list);
      if (!entry.toSource.has(m.generatedLine)) entry.toSource.set(m.generatedLine, m.sourceLine);
    }
    if (result.error && !result.text) return `${comment} ${what} for ${path.posix.basename(source.path)}${kernel ? ` (${kernel})` : ""} is not available:\n${comment} ${result.error.split("\n").join(`\n${comment} `)}\n`;
    if (result.error) return `${comment} ${result.error.split("\n").join(`\n${comment} `)}\n${result.text}`;
    return result.text;
  }

  /** Opens the generated code of `source` beside it. */
  async show(source: vscode.Uri, kind: "cuda" | "ptx", kernel?: string): Promise<vscode.TextEditor> {
    const uri = generatedUri(source, kind, kernel);
    let doc = await vscode.workspace.openTextDocument(uri);
    const entry = this.entries.get(uri.toString());
    const lang = entry?.result?.languageId || (kind === "ptx" ? "ptx" : "cuda-cpp");
    if (doc.languageId !== lang) {
      try {
        doc = await vscode.languages.setTextDocumentLanguage(doc, lang);
      } catch {
        if (kind === "cuda" && doc.languageId !== "cpp") doc = await vscode.languages.setTextDocumentLanguage(doc, "cpp").then(undefined, () => doc);
      }
    }
    const editor = await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true, preview: false });
    if (entry?.result?.error) void vscode.window.showWarningMessage(`CudaScript: ${entry.result.error.split("\n")[0]}`);
    const src = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === source.toString());
    if (src) this.syncFromSource(src);
    return editor;
  }

  /** For tests: the generated lines shown for a source line (1-based), from the last request. */
  mappedLines(uri: vscode.Uri, sourceLine: number): number[] {
    return this.entries.get(uri.toString())?.toGenerated.get(sourceLine) ?? [];
  }

  private onSourceChanged(doc: vscode.TextDocument): void {
    if (doc.uri.scheme !== "file") return;
    const key = doc.uri.toString();
    if (![...this.entries.values()].some((e) => e.source.toString() === key)) return;
    clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => {
      for (const [uri, e] of this.entries) if (e.source.toString() === key) this.changed.fire(vscode.Uri.parse(uri));
    }, 600);
  }

  private onSelection(e: vscode.TextEditorSelectionChangeEvent): void {
    // Only the user's own cursor moves: ours set decorations and scroll, never the selection.
    if (e.kind === undefined) return;
    if (e.textEditor.document.uri.scheme === GENERATED_SCHEME) this.syncFromGenerated(e.textEditor);
    else if (e.textEditor.document.uri.scheme === "file") this.syncFromSource(e.textEditor);
  }

  private syncFromSource(editor: vscode.TextEditor): void {
    const key = editor.document.uri.toString();
    const line = editor.selection.active.line + 1;
    for (const gen of vscode.window.visibleTextEditors) {
      const entry = gen.document.uri.scheme === GENERATED_SCHEME ? this.entries.get(gen.document.uri.toString()) : undefined;
      if (!entry || entry.source.toString() !== key) continue;
      const lines = entry.toGenerated.get(line) ?? [];
      const ranges = lines.filter((l) => l <= gen.document.lineCount).map((l) => gen.document.lineAt(l - 1).range);
      gen.setDecorations(this.highlight, ranges);
      if (ranges.length) gen.revealRange(ranges[0]!.union(ranges[ranges.length - 1]!), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
      editor.setDecorations(this.highlight, ranges.length ? [editor.document.lineAt(line - 1).range] : []);
    }
  }

  private syncFromGenerated(editor: vscode.TextEditor): void {
    const entry = this.entries.get(editor.document.uri.toString());
    if (!entry) return;
    const line = editor.selection.active.line + 1;
    const src = entry.toSource.get(line);
    const others = [...entry.toGenerated.entries()].filter(([s]) => s === src).flatMap(([, g]) => g);
    editor.setDecorations(this.highlight, src ? others.filter((l) => l <= editor.document.lineCount).map((l) => editor.document.lineAt(l - 1).range) : []);
    const srcEditor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === entry.source.toString());
    if (!srcEditor) return;
    if (!src || src > srcEditor.document.lineCount) {
      srcEditor.setDecorations(this.highlight, []);
      return;
    }
    const range = srcEditor.document.lineAt(src - 1).range;
    srcEditor.setDecorations(this.highlight, [range]);
    srcEditor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    // the other generated views of the same source follow too
    for (const gen of vscode.window.visibleTextEditors) {
      if (gen === editor || gen.document.uri.scheme !== GENERATED_SCHEME) continue;
      const other = this.entries.get(gen.document.uri.toString());
      if (!other || other.source.toString() !== entry.source.toString()) continue;
      const ranges = (other.toGenerated.get(src) ?? []).filter((l) => l <= gen.document.lineCount).map((l) => gen.document.lineAt(l - 1).range);
      gen.setDecorations(this.highlight, ranges);
      if (ranges.length) gen.revealRange(ranges[0]!, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    }
  }
}
