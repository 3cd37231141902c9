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

/**
 * The threads per block of an `@run` tag whose `block=` is a whole number or a list of 1 to 3 of them
 * (`block=64`, `block=[16, 16]`, `block=(8, 8, 4)`); undefined for an expression, which only running
 * the program can read. The occupancy CodeLens shows the block the tag launches with.
 */
export function runTagBlockThreads(tag: string | undefined): number | undefined {
  const m = tag ? /(?:^|\s)block\s*=\s*(\[[^\]]*\]|\([^)]*\)|\d+)(?=\s|$)/i.exec(tag) : null;
  if (!m) return undefined;
  const parts = m[1]!.replace(/^[[(]|[\])]$/g, "").split(",").map((p) => p.trim());
  if (parts.length < 1 || parts.length > 3 || !parts.every((p) => /^\d+$/.test(p))) return undefined;
  const threads = parts.reduce((a, p) => a * Number(p), 1);
  return threads > 0 ? threads : undefined;
}
