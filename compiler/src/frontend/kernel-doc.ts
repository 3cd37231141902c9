/**
 * A kernel's JSDoc comment and its `@run` tag, read from the source: the language server lists them
 * (`cudascript/kernels`, the Run / Debug CodeLens) and the debug adapter launches a kernel from the
 * tag, so both read it here the same way.
 */
import ts from "typescript";

/** The `/** … *\/` comment right above the statement (the last comment before it), with its body. */
export function jsDocAbove(sourceFile: ts.SourceFile, statement: ts.Node): { start: number; end: number; body: string } | undefined {
  const text = sourceFile.text;
  const last = ts.getLeadingCommentRanges(text, statement.getFullStart())?.at(-1);
  if (!last || last.kind !== ts.SyntaxKind.MultiLineCommentTrivia || !text.startsWith("/**", last.pos) || text.startsWith("/**/", last.pos)) return undefined;
  return { start: last.pos, end: last.end, body: text.slice(last.pos + 3, last.end - 2) };
}

/** The `@run` block tag's text in a JSDoc comment body, whitespace folded; "@run" inside a sentence is not one. */
export function runTagText(doc: string | undefined): string | undefined {
  if (!doc) return undefined;
  const text = doc
    .split(/\r?\n/)
    .map((l) => l.replace(/^\s*\*?\s?/, ""))
    .join("\n");
  const m = /(?:^|\n)[ \t]*@run\b([\s\S]*?)(?=\n[ \t]*@[A-Za-z]|$)/.exec(text);
  return m ? m[1]!.replace(/\s+/g, " ").trim() : undefined;
}
