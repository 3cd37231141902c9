/**
 * A profile in the editor: each profiled line of a source file gets a heat mark (a bar at the line's
 * left edge, a tinted background, a mark in the overview ruler, and the cost after the line), and a
 * hover with its counters. The hover is the client's own (vscode.languages.registerHoverProvider), not
 * the language server's: only the client has the profile, and the server never runs user code. Both
 * hovers show together. Everything is cleared from a file as soon as it is edited (the line numbers no
 * longer match) and replaced by the next profile.
 */
import * as vscode from "vscode";
import { costSummary, heatLevel, HEAT_LEVELS, lineCost, lineScore, type LineProfile } from "./profile-model";
import { lineHoverMarkdown } from "./profile-view";

/** The same ramp as the panel's heat column (webview/profile.css), as RGB triples. */
const RAMP = ["255, 200, 0", "255, 160, 0", "255, 110, 0", "240, 60, 0", "220, 20, 20"] as const;

export class ProfileEditorView implements vscode.Disposable {
  /** Profiled lines by file system path, then 1-based line. */
  private readonly files = new Map<string, Map<number, LineProfile>>();
  private readonly levels: vscode.TextEditorDecorationType[];
  /** Profiled lines with no cost: a thin bar only, so the profile's coverage shows. */
  private readonly counted: vscode.TextEditorDecorationType;
  private readonly disposables: vscode.Disposable[] = [];

  constructor() {
    this.levels = RAMP.map((rgb, i) =>
      vscode.window.createTextEditorDecorationType({
        isWholeLine: true,
        backgroundColor: `rgba(${rgb}, ${0.08 + 0.05 * i})`,
        borderStyle: "solid",
        borderWidth: "0 0 0 4px",
        borderColor: `rgba(${rgb}, 0.95)`,
        overviewRulerColor: `rgba(${rgb}, 0.9)`,
        overviewRulerLane: vscode.OverviewRulerLane.Right,
        after: { color: new vscode.ThemeColor("editorCodeLens.foreground"), margin: "0 0 0 2em", fontStyle: "italic" },
      }),
    );
    this.counted = vscode.window.createTextEditorDecorationType({ isWholeLine: true, borderStyle: "solid", borderWidth: "0 0 0 4px", borderColor: "rgba(128, 128, 128, 0.45)" });
    const selector: vscode.DocumentSelector = [
      { scheme: "file", language: "typescript" },
      { scheme: "file", language: "typescriptreact" },
    ];
    this.disposables.push(
      ...this.levels,
      this.counted,
      vscode.languages.registerHoverProvider(selector, { provideHover: (doc, pos) => this.hover(doc, pos) }),
      vscode.window.onDidChangeVisibleTextEditors((editors) => editors.forEach((e) => this.decorate(e))),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length && this.files.has(e.document.uri.fsPath)) this.clear(e.document.uri.fsPath);
      }),
    );
  }

  /** Shows a new profile: replaces every file's marks. */
  show(files: Map<string, Map<number, LineProfile>>): void {
    const touched = new Set([...this.files.keys(), ...files.keys()]);
    this.files.clear();
    for (const [p, lines] of files) this.files.set(p, lines);
    for (const e of vscode.window.visibleTextEditors) if (touched.has(e.document.uri.fsPath)) this.decorate(e);
  }

  /** Removes the marks and hovers of one file, or of all. */
  clear(fsPath?: string): void {
    const paths = fsPath ? [fsPath] : [...this.files.keys()];
    for (const p of paths) this.files.delete(p);
    for (const e of vscode.window.visibleTextEditors) if (paths.includes(e.document.uri.fsPath)) this.decorate(e);
  }

  /** The profiled lines (1-based) of a file, with their heat level: for tests and the API. */
  lines(fsPath: string): { line: number; level: number }[] {
    const lines = this.files.get(fsPath);
    if (!lines) return [];
    const max = Math.max(0, ...[...lines.values()].map(lineScore));
    return [...lines.values()].map((l) => ({ line: l.line, level: heatLevel(lineScore(l), max) })).sort((a, b) => a.line - b.line);
  }

  private decorate(editor: vscode.TextEditor): void {
    const lines = this.files.get(editor.document.uri.fsPath);
    const byLevel: vscode.DecorationOptions[][] = this.levels.map(() => []);
    const counted: vscode.DecorationOptions[] = [];
    if (lines) {
      const max = Math.max(0, ...[...lines.values()].map(lineScore));
      for (const lp of lines.values()) {
        if (lp.line > editor.document.lineCount) continue;
        const range = editor.document.lineAt(lp.line - 1).range;
        const cost = lineCost(lp.counters);
        const level = heatLevel(lineScore(lp), max);
        if (level === 0) counted.push({ range });
        else byLevel[Math.min(HEAT_LEVELS, level) - 1]!.push({ range, renderOptions: { after: { contentText: `◀ ${costSummary(cost)}` } } });
      }
    }
    this.levels.forEach((t, i) => editor.setDecorations(t, byLevel[i]!));
    editor.setDecorations(this.counted, counted);
  }

  private hover(doc: vscode.TextDocument, pos: vscode.Position): vscode.Hover | undefined {
    const lp = this.files.get(doc.uri.fsPath)?.get(pos.line + 1);
    if (!lp) return undefined;
    const md = new vscode.MarkdownString(lineHoverMarkdown(lp));
    return new vscode.Hover(md, doc.lineAt(pos.line).range);
  }

  dispose(): void {
    this.files.clear();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
