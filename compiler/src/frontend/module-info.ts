/**
 * What one file declares at module level, read syntactically: which local names are CudaScript's
 * (`cuda`, dtypes, `Array2D`…), its kernels and device functions, its constants, its mutable state, and
 * its imports. Later stages resolve names in kernels against this; it never needs the type checker.
 */
import ts from "typescript";
import type { DType } from "../ir/types";
import { ALL_DTYPES } from "../ir/types";

export const CUDASCRIPT_MODULE = "cudascript";

export interface FunctionDecl {
  readonly kind: "kernel" | "device";
  readonly name: string;
  readonly file: string;
  /** The `cuda.jit(...)` / `cuda.device(...)` call. */
  readonly call: ts.CallExpression;
  /**
   * The function argument when it is an inline function; undefined for `cuda.jit(someName)`. A function
   * declaration is a device function when a ufunc (`cuda.vectorize(name)`) of its file takes it.
   */
  readonly fn?: ts.ArrowFunction | ts.FunctionExpression | (ts.FunctionDeclaration & { readonly body: ts.Block });
  readonly options?: ts.Expression;
  /** The whole `const NAME = …` statement, or the function declaration (cache keys and spans). */
  readonly statement: ts.VariableStatement | ts.FunctionDeclaration;
  readonly nameNode: ts.Identifier;
}

/** `const NAME = cuda.vectorize(fn)`, `cuda.reduce(fn)` or `cuda.guvectorize(fn, layout)`. */
export interface UfuncDecl {
  readonly kind: UfuncKind;
  readonly name: string;
  readonly file: string;
  readonly call: ts.CallExpression;
  readonly statement: ts.VariableStatement;
  readonly nameNode: ts.Identifier;
  /**
   * The name of the scalar function: the ufunc's own name for an inline function (registered as a device
   * function of that name), else the identifier passed; undefined when the argument is no function name.
   */
  readonly scalar?: string;
}

export type UfuncKind = "vectorize" | "reduce" | "guvectorize";

export interface ImportBinding {
  readonly module: string;
  /** Exported name, or "*" for a namespace import, "default" for a default import. */
  readonly name: string;
  readonly node: ts.Node;
}

/** What a CudaScript import binds: the `cuda` namespace, a dtype, or an N-D array type. */
export type CudaScriptExport = { kind: "cuda" } | { kind: "dtype"; dtype: DType } | { kind: "arrayType"; rank: 1 | 2 | 3 } | { kind: "namespace" } | { kind: "other"; name: string };

export interface ModuleInfo {
  readonly file: string;
  readonly sourceFile: ts.SourceFile;
  /** Local names bound by `import … from "cudascript"`. */
  readonly cudascript: ReadonlyMap<string, CudaScriptExport>;
  /** Other named imports. */
  readonly imports: ReadonlyMap<string, ImportBinding>;
  readonly functions: ReadonlyMap<string, FunctionDecl>;
  /** `cuda.vectorize(fn)` / `cuda.reduce(fn)` / `cuda.guvectorize(fn, layout)`: kernels the checker makes from a function (ufuncs.ts, gufuncs.ts). */
  readonly ufuncs: ReadonlyMap<string, UfuncDecl>;
  /** Module `const`s that are not kernels or device functions. */
  readonly consts: ReadonlyMap<string, ts.VariableDeclaration>;
  /** Module `let`/`var` bindings: mutable host state kernels may not read. */
  readonly mutables: ReadonlyMap<string, ts.Node>;
  /** Plain functions (declarations, or consts bound to functions not wrapped in cuda.device). */
  readonly plainFunctions: ReadonlyMap<string, ts.Node>;
  readonly classes: ReadonlyMap<string, ts.Node>;
  readonly typeAliases: ReadonlyMap<string, ts.TypeAliasDeclaration>;
  /** `interface` declarations: the kernel-side types of records (frontend/lower-records.ts). */
  readonly interfaces: ReadonlyMap<string, ts.InterfaceDeclaration>;
  /** Names this module exports (local name → exported name), for import resolution. */
  readonly exports: ReadonlyMap<string, string>;
  /** `export { a as b } from "./x"` re-exports: exported name → import binding. */
  readonly reexports: ReadonlyMap<string, ImportBinding>;
  readonly importsCudascript: boolean;
}

function cudascriptExport(name: string): CudaScriptExport {
  if (name === "cuda") return { kind: "cuda" };
  if ((ALL_DTYPES as readonly string[]).includes(name)) return { kind: "dtype", dtype: name as DType };
  if (name === "Array1D") return { kind: "arrayType", rank: 1 };
  if (name === "Array2D") return { kind: "arrayType", rank: 2 };
  if (name === "Array3D") return { kind: "arrayType", rank: 3 };
  return { kind: "other", name };
}

function isExported(node: ts.Node): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) ?? false);
}

/** Recognises `cuda.jit(...)` / `cuda.device(...)` (also `ns.cuda.jit`) given the file's CudaScript names. */
export function cudaCallKind(call: ts.CallExpression, cudascript: ReadonlyMap<string, CudaScriptExport>): "kernel" | "device" | undefined {
  const callee = call.expression;
  if (!ts.isPropertyAccessExpression(callee)) return undefined;
  const method = callee.name.text;
  if (method !== "jit" && method !== "device") return undefined;
  if (!isCudaReference(callee.expression, cudascript)) return undefined;
  return method === "jit" ? "kernel" : "device";
}

/** Recognises `cuda.vectorize(...)` / `cuda.reduce(...)` / `cuda.guvectorize(...)` (also `ns.cuda.vectorize`). */
export function ufuncCallKind(call: ts.CallExpression, cudascript: ReadonlyMap<string, CudaScriptExport>): UfuncKind | undefined {
  const callee = call.expression;
  if (!ts.isPropertyAccessExpression(callee)) return undefined;
  const method = callee.name.text;
  if (method !== "vectorize" && method !== "reduce" && method !== "guvectorize") return undefined;
  return isCudaReference(callee.expression, cudascript) ? method : undefined;
}

export function isCudaReference(e: ts.Expression, cudascript: ReadonlyMap<string, CudaScriptExport>): boolean {
  if (ts.isIdentifier(e)) return cudascript.get(e.text)?.kind === "cuda";
  if (ts.isPropertyAccessExpression(e) && ts.isIdentifier(e.expression) && e.name.text === "cuda")
    return cudascript.get(e.expression.text)?.kind === "namespace";
  return false;
}

function unwrap(e: ts.Expression): ts.Expression {
  while (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e) || ts.isNonNullExpression(e)) e = e.expression;
  return e;
}

export function readModuleInfo(file: string, sf: ts.SourceFile): ModuleInfo {
  const cudascript = new Map<string, CudaScriptExport>();
  const imports = new Map<string, ImportBinding>();
  const functions = new Map<string, FunctionDecl>();
  const ufuncs = new Map<string, UfuncDecl>();
  const consts = new Map<string, ts.VariableDeclaration>();
  const mutables = new Map<string, ts.Node>();
  const plainFunctions = new Map<string, ts.Node>();
  const classes = new Map<string, ts.Node>();
  const typeAliases = new Map<string, ts.TypeAliasDeclaration>();
  const interfaces = new Map<string, ts.InterfaceDeclaration>();
  const exportNames = new Map<string, string>();
  const reexports = new Map<string, ImportBinding>();
  let importsCudascript = false;

  // Imports first: whether `cuda.jit` means ours depends on them.
  for (const st of sf.statements) {
    if (!ts.isImportDeclaration(st) || !ts.isStringLiteral(st.moduleSpecifier)) continue;
    const module = st.moduleSpecifier.text;
    const clause = st.importClause;
    if (!clause) continue;
    const isOurs = module === CUDASCRIPT_MODULE;
    if (isOurs) importsCudascript = true;
    if (clause.name) {
      if (isOurs) cudascript.set(clause.name.text, { kind: "other", name: "default" });
      else imports.set(clause.name.text, { module, name: "default", node: clause.name });
    }
    const nb = clause.namedBindings;
    if (nb && ts.isNamespaceImport(nb)) {
      if (isOurs) cudascript.set(nb.name.text, { kind: "namespace" });
      else imports.set(nb.name.text, { module, name: "*", node: nb.name });
    } else if (nb) {
      for (const el of nb.elements) {
        const exported = (el.propertyName ?? el.name).text;
        if (isOurs) cudascript.set(el.name.text, cudascriptExport(exported));
        else imports.set(el.name.text, { module, name: exported, node: el.name });
      }
    }
  }

  for (const st of sf.statements) {
    if (ts.isVariableStatement(st)) {
      const isConst = (st.declarationList.flags & ts.NodeFlags.Const) !== 0;
      const exported = isExported(st);
      for (const d of st.declarationList.declarations) {
        if (!ts.isIdentifier(d.name)) {
          // Destructured module bindings: mutable or opaque host values either way.
          for (const el of bindingNames(d.name)) mutables.set(el.text, el);
          continue;
        }
        const name = d.name.text;
        if (exported) exportNames.set(name, name);
        if (!isConst) {
          mutables.set(name, d);
          continue;
        }
        const init = d.initializer ? unwrap(d.initializer) : undefined;
        if (init && ts.isCallExpression(init)) {
          const kind = cudaCallKind(init, cudascript);
          if (kind) {
            const arg = init.arguments[0] ? unwrap(init.arguments[0]) : undefined;
            const fn = arg && (ts.isArrowFunction(arg) || ts.isFunctionExpression(arg)) ? arg : undefined;
            functions.set(name, { kind, name, file, call: init, fn, options: init.arguments[1], statement: st, nameNode: d.name });
            continue;
          }
          const ufunc = ufuncCallKind(init, cudascript);
          if (ufunc) {
            const arg = init.arguments[0] ? unwrap(init.arguments[0]) : undefined;
            const fn = arg && (ts.isArrowFunction(arg) || ts.isFunctionExpression(arg)) ? arg : undefined;
            // An inline scalar function is a device function under the ufunc's name.
            if (fn) functions.set(name, { kind: "device", name, file, call: init, fn, statement: st, nameNode: d.name });
            const scalar = fn ? name : arg && ts.isIdentifier(arg) ? arg.text : undefined;
            ufuncs.set(name, { kind: ufunc, name, file, call: init, statement: st, nameNode: d.name, scalar });
            continue;
          }
        }
        if (init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init))) {
          plainFunctions.set(name, d);
          continue;
        }
        consts.set(name, d);
      }
    } else if (ts.isFunctionDeclaration(st) && st.name) {
      plainFunctions.set(st.name.text, st);
      if (isExported(st)) exportNames.set(st.name.text, st.name.text);
    } else if (ts.isClassDeclaration(st) && st.name) {
      classes.set(st.name.text, st);
      if (isExported(st)) exportNames.set(st.name.text, st.name.text);
    } else if (ts.isTypeAliasDeclaration(st)) {
      typeAliases.set(st.name.text, st);
      if (isExported(st)) exportNames.set(st.name.text, st.name.text);
    } else if (ts.isInterfaceDeclaration(st)) {
      interfaces.set(st.name.text, st);
      if (isExported(st)) exportNames.set(st.name.text, st.name.text);
    } else if (ts.isExportDeclaration(st) && st.exportClause && ts.isNamedExports(st.exportClause)) {
      const from = st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier) ? st.moduleSpecifier.text : undefined;
      for (const el of st.exportClause.elements) {
        const local = (el.propertyName ?? el.name).text;
        if (from) reexports.set(el.name.text, { module: from, name: local, node: el });
        else exportNames.set(local, el.name.text);
      }
    } else if (ts.isEnumDeclaration(st)) {
      mutables.set(st.name.text, st);
    }
  }
  // A function declaration a ufunc takes (`cuda.vectorize(discriminant)`) is compiled as a device function.
  for (const u of ufuncs.values()) {
    const node = u.scalar === undefined || functions.has(u.scalar) ? undefined : plainFunctions.get(u.scalar);
    if (!node || !ts.isFunctionDeclaration(node) || !node.body || !node.name) continue;
    plainFunctions.delete(u.scalar!);
    const fn = node as ts.FunctionDeclaration & { readonly body: ts.Block };
    functions.set(u.scalar!, { kind: "device", name: u.scalar!, file, call: u.call, fn, statement: node, nameNode: node.name });
  }
  return { file, sourceFile: sf, cudascript, imports, functions, ufuncs, consts, mutables, plainFunctions, classes, typeAliases, interfaces, exports: exportNames, reexports, importsCudascript };
}

function bindingNames(name: ts.BindingName): ts.Identifier[] {
  if (ts.isIdentifier(name)) return [name];
  const out: ts.Identifier[] = [];
  for (const el of name.elements) if (!ts.isOmittedExpression(el)) out.push(...bindingNames(el.name));
  return out;
}
