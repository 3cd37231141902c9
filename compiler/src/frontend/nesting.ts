/**
 * The nesting limit. TypeScript's parser, the lowering, the IR visitors, the emitters and V8 (which
 * must also compile the host program and the simulator's JavaScript) all recurse once or more per
 * level of syntax: around 1,000 levels exhaust Node's default stack in one or another of them
 * (measured: 1,000 nested parentheses in TypeScript's parser, 1,000 nested `if` blocks and a 2,000-term
 * sum in V8's module compiler; 500 nested parentheses, 500 nested `if`s and a 1,000-term sum pass
 * check, compile and run). The checker refuses code nested deeper than MAX_NESTING_DEPTH, half of that, with
 * CS1021 at the expression or statement that crosses it, and walks no deeper. Depth counts syntax
 * nodes, so a flat `a + b + c + …` (a left-deep tree of `+`) counts one level per operator, as it
 * costs one level of recursion in every pass. See docs/kernel-language.md.
 */
import ts from "typescript";
import { Codes } from "../diagnostics/codes";
import { makeDiagnostic, type Diagnostic } from "../diagnostics/diagnostic";

export const MAX_NESTING_DEPTH = 512;

export interface NestingProblems {
  readonly diagnostics: readonly Diagnostic[];
  /** Top-level statements that nest too deeply: nothing else may walk them. */
  readonly tooDeep: ReadonlySet<ts.Statement>;
}

const memo = new WeakMap<ts.SourceFile, NestingProblems>();

/** One CS1021 per top-level statement nested deeper than the limit. Iterative, so it cannot overflow itself. */
export function nestingProblems(file: string, sf: ts.SourceFile): NestingProblems {
  const cached = memo.get(sf);
  if (cached && cached.diagnostics.every((d) => d.span.file === file)) return cached;
  const diagnostics: Diagnostic[] = [];
  const tooDeep = new Set<ts.Statement>();
  for (const st of sf.statements) {
    const crossing = firstTooDeep(st);
    if (!crossing) continue;
    tooDeep.add(st);
    const start = crossing.getStart(sf);
    const lc = sf.getLineAndCharacterOfPosition(start);
    diagnostics.push(
      makeDiagnostic(
        Codes.TooDeeplyNested,
        { file, start, end: crossing.end, line: lc.line + 1, col: lc.character + 1 },
        `this code is nested more than ${MAX_NESTING_DEPTH} levels deep (parentheses, blocks, else-if and ?: chains, indexing, and each operator of a long a + b + … chain count one level each): split it, e.g. into named partial results (const s1 = …; const s2 = …; s1 + s2), or a loop over an array`,
      ),
    );
  }
  const result = { diagnostics, tooDeep };
  memo.set(sf, result);
  return result;
}

/** The first node (in source order) more than MAX_NESTING_DEPTH levels below `root`. */
export function firstTooDeep(root: ts.Node): ts.Node | undefined {
  const stack: [ts.Node, number][] = [[root, 1]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (depth > MAX_NESTING_DEPTH) return node;
    const children: ts.Node[] = [];
    ts.forEachChild(node, (c) => {
      children.push(c);
    });
    // Reversed onto the stack, so the first crossing found is the first in the source.
    for (let i = children.length - 1; i >= 0; i--) stack.push([children[i]!, depth + 1]);
  }
  return undefined;
}

/**
 * Parses `text` and returns where its first construct nested more than MAX_NESTING_DEPTH levels deep
 * starts, or -1. TypeScript's parser recurses per level: project.ts runs this in a worker thread with
 * a large stack for a text the parser could not parse on the main thread.
 */
export function firstTooDeepOffset(text: string): number {
  const sf = ts.createSourceFile("nesting.ts", text, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
  for (const st of sf.statements) {
    const node = firstTooDeep(st);
    if (node) return node.getStart(sf);
  }
  return -1;
}

/** Whether an exception is the JavaScript engine running out of stack (a recursion too deep). */
export function isStackOverflow(err: unknown): boolean {
  return err instanceof RangeError && /call stack/i.test(err.message);
}
