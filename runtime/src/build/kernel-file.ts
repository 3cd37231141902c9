/**
 * Build step shared by every way kernels get compiled: the bundler plugins (build time) and
 * compile-from-source (first launch of a kernel that has no artifact). One file in, its checked
 * kernels out as an artifact plus the rewritten text that hands the artifact to each `cuda.jit` call.
 *
 * Loads the compiler (TypeScript): never import this module on the run-time path; require it
 * lazily where something must be compiled.
 */
import type { Diagnostic, FileCheck, KernelArtifact, KernelChecker, ts } from "@cudascript/compiler";

type Compiler = typeof import("@cudascript/compiler");

/** Files that mention the runtime: only these can declare kernels. */
export const IMPORTS_CUDASCRIPT = /(?:from\s*|import\s*\(?\s*|require\s*\(\s*)["']cudascript["']/;

export interface KernelFileOptions {
  /** Embed the serialised IR in the artifact (default true; the GPU backend needs it). */
  readonly includeIr?: boolean;
}

export interface KernelFileResult {
  readonly check: FileCheck;
  readonly errors: readonly Diagnostic[];
  readonly warnings: readonly Diagnostic[];
  /** The compiled kernels; absent when there are errors or the file declares no kernel. */
  readonly artifact?: KernelArtifact;
  /**
   * Other files the result depends on, for watch mode and cache keys: those of the device functions
   * the kernels call, every file reached through the file's imports and re-exports (an imported
   * constant is folded into the kernel), and every other file the check read, including type-only
   * imports (which a bundler drops from its own list of inputs, yet a type alias there can change a kernel).
   */
  readonly dependencies: readonly string[];
  /**
   * Paths the resolution of those imports looked at besides what they resolved to: files that did not
   * exist (one appearing can change what an import resolves to: `c.ts` beside `c/index.ts`, a nearer
   * node_modules package) and the package.json files that steered it. A cache keyed on the
   * dependencies' texts also needs these as they were.
   */
  readonly resolutionLookups: readonly string[];
}

let compilerModule: Compiler | undefined;

/** The compiler, loaded on first use. */
export function loadCompiler(): Compiler {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (compilerModule ??= require("@cudascript/compiler") as Compiler);
}

/** Checks `file` (whose current text is `text`) and compiles its kernels. */
export function buildKernelFile(checker: KernelChecker, file: string, text: string, options: KernelFileOptions = {}): KernelFileResult {
  const compiler = loadCompiler();
  checker.setFileText(file, text);
  const check = checker.checkFile(file);
  const errors = check.diagnostics.filter((d) => d.severity === "error");
  const warnings = check.diagnostics.filter((d) => d.severity === "warning");
  const imported = importedFiles(checker, file);
  const dependencies = [...new Set([...check.module.deviceFunctions.map((f) => f.span.file), ...imported.files, ...checker.project.filesRead()])].filter((f) => f !== file);
  const resolutionLookups = imported.lookups;
  if (errors.length || check.module.kernels.length === 0) return { check, errors, warnings, dependencies, resolutionLookups };
  const artifact = compiler.makeArtifact(check.module, { staticSharedBytes: check.staticSharedBytes, includeIr: options.includeIr });
  return { check, errors, warnings, artifact, dependencies, resolutionLookups };
}

/**
 * The files `file` imports or re-exports from, transitively (resolved as the front end resolves them),
 * and the paths those resolutions looked at (KernelFileResult.resolutionLookups).
 */
function importedFiles(checker: KernelChecker, file: string): { files: string[]; lookups: string[] } {
  const seen = new Set<string>([file]);
  const lookups = new Set<string>();
  const queue = [file];
  while (queue.length) {
    const info = checker.front.moduleInfo(queue.pop()!);
    if (!info) continue;
    for (const binding of [...info.imports.values(), ...info.reexports.values()]) {
      const target = checker.project.resolveImport(binding.module, info.file);
      if (!target) continue; // not a TypeScript source (a package's declarations, the runtime): no kernel code comes from it
      for (const lookup of checker.project.resolutionLookups(binding.module, info.file)) lookups.add(lookup);
      if (!seen.has(target)) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
  seen.delete(file);
  return { files: [...seen], lookups: [...lookups].filter((f) => !seen.has(f)) };
}

/** Inserts the artifact and the extra arguments of every `cuda.jit(...)` call of the file's kernels. */
export function rewriteKernels(text: string, check: FileCheck, checker: KernelChecker, artifact: KernelArtifact): string {
  const info = checker.front.moduleInfo(check.file);
  if (!info) return text;
  const id = "__cudascript_artifact";
  const edits: { at: number; insert: string }[] = [];
  for (const decl of info.functions.values()) {
    if (decl.kind !== "kernel" || !artifact.kernels[decl.name]) continue;
    const call = decl.call;
    const close = call.end - 1; // the ')'
    let before = close - 1;
    while (before > 0 && /\s/.test(text[before]!)) before--;
    const trailingComma = text[before] === ",";
    const args = call.arguments.length;
    const extra = `${args === 1 ? "undefined, " : ""}${id}, ${JSON.stringify(decl.name)}`;
    edits.push({ at: close, insert: trailingComma ? ` ${extra}` : `, ${extra}` });
  }
  // cuda.vectorize(fn) / cuda.reduce(fn) → (fn, artifact, "<name>_vectorize"), cuda.guvectorize(fn, layout)
  // → (fn, layout, artifact, "<name>_guvectorize"): the kernel made from fn.
  for (const u of info.ufuncs.values()) {
    const kernel = `${u.name}_${u.kind}`;
    if (!artifact.kernels[kernel] || u.call.arguments.length !== (u.kind === "guvectorize" ? 2 : 1)) continue;
    const close = u.call.end - 1;
    const trailingComma = u.call.arguments.hasTrailingComma;
    edits.push({ at: close, insert: `${trailingComma ? " " : ", "}${id}, ${JSON.stringify(kernel)}` });
  }
  edits.sort((a, b) => b.at - a.at);
  let out = text;
  for (const e of edits) out = out.slice(0, e.at) + e.insert + out.slice(e.at);
  // The artifact goes on the first line (after a shebang), so every other line keeps its number.
  const decl = `const ${id} = ${JSON.stringify(artifact)};`;
  if (out.startsWith("#!")) {
    const nl = out.indexOf("\n");
    return nl < 0 ? `${out}\n${decl}` : `${out.slice(0, nl + 1)}${decl}${out.slice(nl + 1)}`;
  }
  return decl + out;
}

/**
 * The same rewrite on JavaScript made from the checked TypeScript: when another plugin compiled the file
 * before CudaScript saw it (@rollup/plugin-typescript serves tsc's output from its `load` hook), the
 * kernels are checked and compiled from the `.ts` on disk and the artifact goes into that JavaScript.
 * Each compiled kernel is found by its name: `const name = ….jit(…)`, or tsc's CommonJS
 * `exports.name = ….jit(…)`.
 */
export function rewriteCompiledKernels(js: string, file: string, artifact: KernelArtifact): string {
  const { ts } = loadCompiler();
  const sf = ts.createSourceFile(`${file}.js`, js, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const id = "__cudascript_artifact";
  const edits: { at: number; insert: string }[] = [];
  const jitCall = (e: ts.Expression | undefined): ts.CallExpression | undefined => {
    while (e && ts.isParenthesizedExpression(e)) e = e.expression;
    return e && ts.isCallExpression(e) && ts.isPropertyAccessExpression(e.expression) && ["jit", "vectorize", "reduce", "guvectorize"].includes(e.expression.name.text) ? e : undefined;
  };
  const addArtifact = (variable: string, call: ts.CallExpression | undefined): void => {
    const method = call && ts.isPropertyAccessExpression(call.expression) ? call.expression.name.text : "";
    // A ufunc's kernel is named after its variable and kind (compiler ufuncKernelName).
    const name = method === "jit" ? variable : `${variable}_${method}`;
    if (!call || !artifact.kernels[name]) return;
    const args = call.arguments;
    const extra = `${method === "jit" && args.length === 1 ? "undefined, " : ""}${id}, ${JSON.stringify(name)}`;
    edits.push(args.hasTrailingComma ? { at: call.end - 1, insert: ` ${extra}` } : { at: call.end - 1, insert: `, ${extra}` });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name)) addArtifact(node.name.text, jitCall(node.initializer));
    else if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(node.left))
      addArtifact(node.left.name.text, jitCall(node.right));
    ts.forEachChild(node, visit);
  };
  visit(sf);
  if (!edits.length) return js;
  edits.sort((a, b) => b.at - a.at);
  let out = js;
  for (const e of edits) out = out.slice(0, e.at) + e.insert + out.slice(e.at);
  // After the directive prologue ("use strict"), which must stay first; on its line, so lines keep their numbers.
  const prologueEnd = sf.statements.find((s) => !(ts.isExpressionStatement(s) && ts.isStringLiteral(s.expression)))?.getStart(sf) ?? 0;
  return `${out.slice(0, prologueEnd)}var ${id} = ${JSON.stringify(artifact)};${out.slice(prologueEnd)}`;
}
