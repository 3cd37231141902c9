/**
 * Quick fixes from the checker's fix hints:
 *  - hoistToModuleConst (CS3001/CS3002): `const NAME = 64;` after the imports (with a TODO to pick the
 *    real maximum) and the size replaced by NAME; for a size that is a kernel parameter, also "turn it
 *    into a maximum": `const MAX_<PARAM> = 64;` plus `if (param > MAX_<PARAM>) return;`;
 *  - dropReturnValue (CS2001): `return expr;` → `return;` (`expr; return;` when expr calls something);
 *  - wrapIndexInt (CS2002): `x[i / 2]` → `x[(i / 2) | 0]`;
 *  - addBoundsGuard (CS5005): wraps the statement in `if (<index> < <array>.length) { … }`.
 * Edits are computed on the text the diagnostics were computed from (the document's current text).
 */
import type { Diagnostic as CheckerDiagnostic, FixHint } from "@cudascript/compiler";
import { CodeActionKind, type CodeAction, type CodeActionParams, type TextEdit } from "vscode-languageserver";
import type { TextDocument } from "vscode-languageserver-textdocument";
import { enclosingFunction, indentUnit, lineIndent, newlineOf, type FunctionDecl, type ModuleInfo } from "./ast";
import { toLspDiagnostic } from "./diagnostics";
import type { DocLinks } from "./doc-links";
import type { Positions } from "./positions";
import { ts, type TS } from "./tsapi";
import type { Workspace } from "./workspace";

export interface CodeActionContextDeps {
  readonly ws: Workspace;
  readonly positions: Positions;
  readonly links: DocLinks;
}

export function codeActions(ctx: CodeActionContextDeps, params: CodeActionParams): CodeAction[] {
  const only = params.context.only;
  if (only && !only.some((k) => k === CodeActionKind.QuickFix || k === CodeActionKind.Empty || CodeActionKind.QuickFix.startsWith(`${k}.`))) return [];
  const uri = params.textDocument.uri;
  const checked = ctx.ws.ensureChecked(uri);
  const doc = ctx.ws.document(uri);
  if (!checked || !doc) return [];
  const info = ctx.ws.checker.front.moduleInfo(checked.path);
  if (!info) return [];
  const from = doc.offsetAt(params.range.start);
  const to = doc.offsetAt(params.range.end);
  const out: CodeAction[] = [];
  for (const d of checked.result.diagnostics) {
    if (!d.fix || d.span.file !== checked.path) continue;
    if (d.span.start > to || d.span.end < from) continue;
    const lsp = toLspDiagnostic(d, ctx.positions, ctx.links);
    for (const fix of fixesFor(ctx, d, d.fix, doc, info)) {
      out.push({ title: fix.title, kind: CodeActionKind.QuickFix, diagnostics: [lsp], isPreferred: fix.preferred, edit: { changes: { [uri]: fix.edits } } });
    }
  }
  return out;
}

interface Fix {
  readonly title: string;
  readonly edits: TextEdit[];
  readonly preferred?: boolean;
}

/** Text edits for one diagnostic's fix hint, on the document's current text. */
export function fixesFor(ctx: { ws: Workspace }, d: CheckerDiagnostic, fix: FixHint, doc: TextDocument, info: ModuleInfo): Fix[] {
  const text = doc.getText();
  if (text !== info.sourceFile.text) return []; // the checker saw another version
  const edit = (start: number, end: number, newText: string): TextEdit => ({ range: { start: doc.positionAt(start), end: doc.positionAt(end) }, newText });
  const sf = info.sourceFile;
  switch (fix.kind) {
    case "hoistToModuleConst":
      return hoistFixes(ctx, d, fix.suggestedName, text, sf, info, edit);
    case "dropReturnValue": {
      const node = exactNode(sf, d.span.start, d.span.end);
      const ret = node && ts.isReturnStatement(node) ? node : undefined;
      if (!ret?.expression) return [];
      let expr: TS.Expression = ret.expression;
      while (ts.isParenthesizedExpression(expr) || ts.isVoidExpression(expr)) expr = expr.expression;
      if (!hasSideEffects(expr)) return [{ title: "Drop the return value (kernels return nothing)", edits: [edit(ret.getStart(sf), ret.end, "return;")], preferred: true }];
      const stmts = `${expr.getText(sf)}; return;`;
      const parent = ret.parent;
      const inBlock = ts.isBlock(parent) || ts.isSourceFile(parent) || ts.isCaseClause(parent) || ts.isDefaultClause(parent) || ts.isModuleBlock(parent);
      return [{ title: "Keep the call, drop the return value (kernels return nothing)", edits: [edit(ret.getStart(sf), ret.end, inBlock ? stmts : `{ ${stmts} }`)], preferred: true }];
    }
    case "wrapIndexInt": {
      const node = exactNode(sf, d.span.start, d.span.end);
      if (!node) return [];
      const t = node.getText(sf);
      const bare = ts.isIdentifier(node) || ts.isParenthesizedExpression(node) || ts.isCallExpression(node) || ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node) || ts.isNumericLiteral(node);
      return [{ title: "Make the index an integer with `| 0`", edits: [edit(node.getStart(sf), node.end, bare ? `${t} | 0` : `(${t}) | 0`)], preferred: true }];
    }
    case "addBoundsGuard":
      return boundsGuard(d, fix.indexText, fix.arrayText, text, sf, edit);
  }
  return [];
}

type MakeEdit = (start: number, end: number, newText: string) => TextEdit;

function hoistFixes(ctx: { ws: Workspace }, d: CheckerDiagnostic, suggested: string, text: string, sf: TS.SourceFile, info: ModuleInfo, edit: MakeEdit): Fix[] {
  const node = exactNode(sf, d.span.start, d.span.end);
  if (!node) return [];
  const nl = newlineOf(text);
  const fn = enclosingFunction(info, d.span.start);
  let inner: TS.Node = node;
  while (ts.isParenthesizedExpression(inner)) inner = inner.expression;
  const param = ts.isIdentifier(inner) && fn?.fn?.parameters.some((p) => ts.isIdentifier(p.name) && p.name.text === (inner as TS.Identifier).text) ? inner.text : undefined;
  const upper = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, "$1_$2").replace(/[^A-Za-z0-9_]/g, "_").toUpperCase();
  const fixes: Fix[] = [];

  const declare = (wanted: string, todo: string): { name: string; edits: TextEdit[] } => {
    const { name, exists } = moduleConstName(ctx, info, fn, wanted);
    const edits: TextEdit[] = [];
    if (!exists) {
      const at = afterImports(sf);
      const lead = at === 0 ? "" : nl + nl;
      const tail = at === 0 ? nl + nl : "";
      edits.push(edit(at, at, `${lead}// TODO: ${todo.replace("NAME", name)}${nl}const ${name} = 64;${tail}`));
    }
    edits.push(edit(node.getStart(sf), node.end, name));
    return { name, edits };
  };

  const plainName = param ? upper(param) : suggested;
  const hoisted = declare(plainName, `64 is a placeholder: set NAME to the largest size this array can need.`);
  fixes.push({ title: `Hoist the array size into a module constant \`${hoisted.name}\``, edits: hoisted.edits, preferred: !param });

  if (param && fn?.kind === "kernel" && fn.fn && ts.isBlock(fn.fn.body)) {
    const max = declare(`MAX_${upper(param)}`, `set NAME to the largest value '${param}' can take; the kernel returns early above it.`);
    const guard = `if (${param} > ${max.name}) return;`;
    const body = fn.fn.body;
    const first = body.statements[0];
    if (first && !body.getText(sf).includes(guard)) {
      const at = first.getStart(sf);
      max.edits.push(edit(at, at, `${guard}${nl}${lineIndent(text, at)}`));
    }
    fixes.push({ title: `Turn '${param}' into a maximum: allocate \`${max.name}\` elements`, edits: max.edits, preferred: true });
  } else if (param) {
    fixes[0] = { ...fixes[0]!, preferred: true };
  }
  return fixes;
}

/** A module-level name for the constant: an existing numeric module constant is reused. */
function moduleConstName(ctx: { ws: Workspace }, info: ModuleInfo, fn: FunctionDecl | undefined, wanted: string): { name: string; exists: boolean } {
  const taken = (n: string) =>
    info.consts.has(n) || info.functions.has(n) || info.mutables.has(n) || info.plainFunctions.has(n) || info.classes.has(n) || info.typeAliases.has(n) || info.imports.has(n) || info.cudascript.has(n) || (fn ? new RegExp(`\\b${n}\\b`).test(fn.call.getText(info.sourceFile)) : false);
  for (let i = 1; i < 100; i++) {
    const name = i === 1 ? wanted : `${wanted}_${i}`;
    if (info.consts.has(name)) {
      const v = ctx.ws.checker.front.constOf(info, name);
      if (v && typeof v.value === "number" && Number.isInteger(v.value) && v.value > 0) return { name, exists: true };
    }
    if (!taken(name)) return { name, exists: false };
  }
  return { name: `${wanted}_${Date.now()}`, exists: false };
}

/** Offset just after the last top-level import (0 when there is none). */
function afterImports(sf: TS.SourceFile): number {
  let at = 0;
  for (const st of sf.statements) if (ts.isImportDeclaration(st) || ts.isImportEqualsDeclaration(st)) at = st.end;
  return at;
}

function boundsGuard(d: CheckerDiagnostic, indexText: string, arrayText: string, text: string, sf: TS.SourceFile, edit: MakeEdit): Fix[] {
  const node = innermostCovering(sf, d.span.start, d.span.end);
  if (!node) return [];
  // The statement to guard: the nearest ancestor that is a statement of a block.
  let stmt: TS.Node | undefined = node;
  while (stmt && !(isStatement(stmt) && stmt.parent && (ts.isBlock(stmt.parent) || isStatementBody(stmt)))) stmt = stmt.parent;
  if (!stmt || ts.isSourceFile(stmt)) return [];
  const nl = newlineOf(text);
  const unit = indentUnit(text);
  // Guard the index as written (`base + t`), which the hint may have reduced to its thread variable.
  const access = exactNode(sf, d.span.start, d.span.end);
  const written = access && ts.isElementAccessExpression(access) && access.expression.getText(sf) === arrayText ? access.argumentExpression.getText(sf) : undefined;
  const index = written && !/[?:,=]|\|\||&&/.test(written) ? (/[|^&]/.test(written) ? `(${written})` : written) : indexText;
  const cond = `${index} < ${arrayText}.length`;
  let last = stmt;
  // A declaration's names are used by the statements after it: guard them too, so scoping stays valid.
  if (ts.isVariableStatement(stmt) && ts.isBlock(stmt.parent)) last = stmt.parent.statements[stmt.parent.statements.length - 1]!;
  const start = stmt.getStart(sf);
  const end = last.end;
  const lineStart = text.lastIndexOf("\n", start - 1) + 1;
  const ownLine = /^[ \t]*$/.test(text.slice(lineStart, start));
  if (ownLine && ts.isBlock(stmt.parent)) {
    const indent = text.slice(lineStart, start);
    const lineEndIdx = text.indexOf("\n", end);
    const lineEnd = lineEndIdx < 0 ? text.length : text[lineEndIdx - 1] === "\r" ? lineEndIdx - 1 : lineEndIdx;
    const rest = text.slice(end, lineEnd);
    const tailOk = /^[ \t]*(\/\/.*)?$/.test(rest);
    const blockEnd = tailOk ? lineEnd : end;
    const body = text
      .slice(lineStart, blockEnd)
      .split(/\r?\n/)
      .map((l) => (l.trim() ? unit + l : l))
      .join(nl);
    const newText = `${indent}if (${cond}) {${nl}${body}${nl}${indent}}`;
    return [{ title: `Guard with \`if (${cond})\``, edits: [edit(lineStart, blockEnd, newText)], preferred: true }];
  }
  return [{ title: `Guard with \`if (${cond})\``, edits: [edit(start, end, `if (${cond}) { ${text.slice(start, end)} }`)], preferred: true }];
}

function isStatementBody(n: TS.Node): boolean {
  const p = n.parent;
  return !!p && (ts.isIfStatement(p) || ts.isForStatement(p) || ts.isWhileStatement(p) || ts.isDoStatement(p)) && !ts.isExpression(n);
}

function isStatement(n: TS.Node): boolean {
  return (
    ts.isExpressionStatement(n) ||
    ts.isVariableStatement(n) ||
    ts.isIfStatement(n) ||
    ts.isForStatement(n) ||
    ts.isWhileStatement(n) ||
    ts.isDoStatement(n) ||
    ts.isReturnStatement(n) ||
    ts.isBlock(n)
  );
}

function hasSideEffects(e: TS.Node): boolean {
  let found = false;
  const visit = (n: TS.Node): void => {
    if (found) return;
    if (ts.isCallExpression(n) || ts.isNewExpression(n) || ts.isDeleteExpression(n) || ts.isPrefixUnaryExpression(n) && (n.operator === ts.SyntaxKind.PlusPlusToken || n.operator === ts.SyntaxKind.MinusMinusToken) || ts.isPostfixUnaryExpression(n)) found = true;
    else if (ts.isBinaryExpression(n) && n.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && n.operatorToken.kind <= ts.SyntaxKind.LastAssignment) found = true;
    else n.forEachChild(visit);
  };
  visit(e);
  return found;
}

/** The outermost node spanning exactly [start, end). */
export function exactNode(sf: TS.SourceFile, start: number, end: number): TS.Node | undefined {
  let found: TS.Node | undefined;
  const visit = (n: TS.Node): void => {
    if (found) return;
    const s = n.getStart(sf);
    if (s > start || n.end < end) return;
    if (s === start && n.end === end) {
      found = n;
      return;
    }
    n.forEachChild(visit);
  };
  sf.forEachChild(visit);
  return found;
}

/** The innermost node covering [start, end). */
function innermostCovering(sf: TS.SourceFile, start: number, end: number): TS.Node | undefined {
  let best: TS.Node | undefined;
  const visit = (n: TS.Node): void => {
    const s = n.getStart(sf);
    if (s > start || n.end < end) return;
    best = n;
    n.forEachChild(visit);
  };
  sf.forEachChild(visit);
  return best;
}
