/** Small helpers over the raw TypeScript AST the checker parsed. */
import type { FrontEnd } from "@cudascript/compiler";
import { ts, type TS } from "./tsapi";

export type ModuleInfo = NonNullable<ReturnType<FrontEnd["moduleInfo"]>>;
export type FunctionDecl = ModuleInfo["functions"] extends ReadonlyMap<string, infer F> ? F : never;

/** The innermost node whose token range contains `offset` (an identifier touching `offset` from the left counts). */
export function nodeAt(sf: TS.SourceFile, offset: number): TS.Node | undefined {
  let best: TS.Node | undefined;
  // Pre-order with an explicit stack, not recursion: code nested too deeply (CS1021) must not overflow it.
  const stack: TS.Node[] = [];
  const pushChildren = (n: TS.Node): void => {
    const children: TS.Node[] = [];
    n.forEachChild((c) => {
      children.push(c);
    });
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  };
  pushChildren(sf);
  while (stack.length) {
    const n = stack.pop()!;
    const start = n.getStart(sf);
    if (offset < start || offset > n.end) continue;
    // Only identifiers are found from their right edge (cursor just after a name).
    if (!(offset === n.end && !(ts.isIdentifier(n) || ts.isPrivateIdentifier(n)))) best = n;
    pushChildren(n);
  }
  return best;
}

/** The kernel or device function whose `cuda.jit(...)`/`cuda.device(...)` call contains `offset`. */
export function enclosingFunction(info: ModuleInfo, offset: number): FunctionDecl | undefined {
  for (const f of info.functions.values()) if (offset >= f.call.getStart(info.sourceFile) && offset <= f.call.end) return f;
  return undefined;
}

/** Whether `id` names the `cuda` namespace of this file (`cuda` imported from "cudascript", or `ns.cuda`). */
export function isCudaRoot(e: TS.Expression, info: ModuleInfo): boolean {
  if (ts.isIdentifier(e)) return info.cudascript.get(e.text)?.kind === "cuda";
  if (ts.isPropertyAccessExpression(e) && ts.isIdentifier(e.expression) && e.name.text === "cuda") return info.cudascript.get(e.expression.text)?.kind === "namespace";
  return false;
}

/**
 * For a name inside a `cuda.a.b.c` chain: the path below `cuda` up to and including that name
 * (`"atomic"` when hovering `atomic` in `cuda.atomic.add`), `""` on `cuda` itself.
 */
export function cudaPathAt(id: TS.Identifier, info: ModuleInfo): string | undefined {
  // Climb to the outermost property access whose name chain contains `id`.
  let node: TS.Node = id;
  if (ts.isPropertyAccessExpression(node.parent) && node.parent.name === node) node = node.parent;
  // `node` is now the access ending at `id` (or `id` itself when it is the chain's root).
  const parts: string[] = [];
  let e: TS.Node = node;
  while (ts.isPropertyAccessExpression(e)) {
    if (isCudaRoot(e, info)) return parts.reverse().join(".");
    parts.push(e.name.text);
    e = e.expression;
  }
  if (ts.isIdentifier(e) && isCudaRoot(e, info)) return parts.reverse().join(".");
  return undefined;
}

/** `Math.name` where `Math` is the global one: the name. */
export function mathMemberAt(id: TS.Identifier): string | undefined {
  const p = id.parent;
  if (ts.isPropertyAccessExpression(p) && p.name === id && ts.isIdentifier(p.expression) && p.expression.text === "Math") return id.text;
  return undefined;
}

export function lineIndent(text: string, offset: number): string {
  const lineStart = text.lastIndexOf("\n", offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
}

export function newlineOf(text: string): string {
  return text.includes("\r\n") ? "\r\n" : "\n";
}

/** The indentation unit the file uses (two spaces by default). */
export function indentUnit(text: string): string {
  const m = /\n([ \t]+)\S/.exec(text);
  if (!m) return "  ";
  if (m[1]!.startsWith("\t")) return "\t";
  let min = 8;
  for (const mm of text.matchAll(/\n( +)\S/g)) min = Math.min(min, mm[1]!.length);
  return " ".repeat(Math.max(1, Math.min(min, 8)));
}
