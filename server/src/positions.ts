/**
 * Offsets ↔ LSP positions for any file the checker read. Open documents use their TextDocument;
 * other files (related locations in imported files) get a TextDocument built from the checker's text,
 * so line breaks are counted the LSP way (\n, \r\n, \r) everywhere.
 */
import type { Span } from "@cudascript/compiler";
import type { Position, Range } from "vscode-languageserver";
import { TextDocument } from "vscode-languageserver-textdocument";
import type { Workspace } from "./workspace";
import { pathToUri } from "./uri";

const docsOfText = new WeakMap<object, TextDocument>();

export class Positions {
  constructor(private readonly ws: Workspace) {}

  uriOf(file: string): string {
    return this.ws.uriOfPath(file) ?? pathToUri(file);
  }

  private docOf(file: string): TextDocument | undefined {
    const uri = this.ws.uriOfPath(file);
    if (uri) {
      const d = this.ws.document(uri);
      if (d) return d;
    }
    const pf = this.ws.checker.project.getFile(file);
    if (!pf) return undefined;
    let d = docsOfText.get(pf.sourceFile);
    if (!d) {
      d = TextDocument.create(pathToUri(file), "typescript", pf.version, pf.sourceFile.text);
      docsOfText.set(pf.sourceFile, d);
    }
    return d;
  }

  rangeOf(span: Span): Range {
    const doc = this.docOf(span.file);
    if (!doc) {
      const p: Position = { line: Math.max(0, span.line - 1), character: Math.max(0, span.col - 1) };
      return { start: p, end: p };
    }
    const start = doc.positionAt(span.start);
    const end = doc.positionAt(Math.max(span.start, span.end));
    return { start, end };
  }
}
