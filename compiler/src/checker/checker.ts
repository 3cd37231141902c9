/**
 * The checker: lowers every kernel and device function of a file to IR (through the front end), runs
 * the rules that need a whole kernel (static shared memory, divergent barriers) and the host-side launch
 * checks, and returns coded diagnostics plus the file's IrModule for the backends.
 *
 * Incremental by design for the language server: each function's lowering is cached under a key made
 * of its own text, the module-level declarations it can see, and the keys of the device functions it
 * calls. An edit re-lowers only what it touched; functions that merely moved are relocated.
 */
import { createHash } from "node:crypto";
import ts from "typescript";
import * as path from "node:path";
import { Codes, definitionOf } from "../diagnostics/codes";
import { compareDiagnostics, makeDiagnostic, type Diagnostic } from "../diagnostics/diagnostic";
import type { ConstArray, IrFunction, IrModule, Span } from "../ir/nodes";
import { byteSize, VOID, type Type } from "../ir/types";
import { recursiveFunctions } from "../ir/recursion";
import { SYNC_INTRINSICS } from "../intrinsics";
import { readTypeAnnotation } from "../frontend/type-annotations";
import { lowerFunction, type DeviceSignature, type LowerHost } from "../frontend/lower";
import type { FunctionDecl, ModuleInfo } from "../frontend/module-info";
import { FrontEnd } from "../frontend/program";
import { inBrokenStatement, syntaxErrors } from "../frontend/syntax-errors";
import { isStackOverflow, MAX_NESTING_DEPTH, nestingProblems } from "../frontend/nesting";
import { CudaProject, type TextChange } from "../frontend/project";
import { checkBoundsGuards } from "./bounds-guard";
import { checkDivergentBarriers, checkDivergentGridSync, containsBarrier, readsThreadState } from "./divergence";
import { checkHostCudaNames } from "./host-names";
import { checkLaunchSites, type LaunchSite } from "./launch-sites";
import { checkRecordDtypes } from "./record-dtypes";
import { relocate } from "./relocate";
import { synthesizeUfunc } from "./ufuncs";
import { synthesizeGufunc } from "./gufuncs";
import { forEachRootExpr, forEachStmt, visitExpr } from "../ir/visit";

export const STATIC_SHARED_LIMIT = 48 * 1024;
/** The most shared memory any GPU lets one block have (sm_90 after opting in: 227 KiB). */
const LARGEST_OPT_IN_SHARED = 227 * 1024;

export interface FileCheck {
  readonly file: string;
  /** Diagnostics located in this file, sorted by position. */
  readonly diagnostics: readonly Diagnostic[];
  /** The file's kernels and every device function they reach, callees first. */
  readonly module: IrModule;
  readonly launchSites: readonly LaunchSite[];
  /** Static shared memory per kernel id, in bytes (including called device functions). */
  readonly staticSharedBytes: ReadonlyMap<string, number>;
  /** Whether the file imports "cudascript" at all. */
  readonly isCudaScriptFile: boolean;
}

interface CachedLowering {
  readonly textKey: string;
  readonly envKey: string;
  readonly start: number;
  readonly line: number;
  readonly calleeKeys: ReadonlyMap<string, string>;
  readonly fn: IrFunction;
  readonly diagnostics: readonly Diagnostic[];
  /** Not lowered (nested too deeply): `fn` is an empty stand-in that callers and launches must not use. */
  readonly broken?: boolean;
}

export class KernelChecker implements LowerHost {
  readonly project: CudaProject;
  readonly front: FrontEnd;
  private readonly cache = new Map<string, CachedLowering>();
  private readonly inProgress = new Set<string>();
  private readonly constArrays = new Map<string, ConstArray>();
  private constantsGeneration = -1;
  /** Per checkFile round: memoised keys (file versions do not change during a round). */
  private round = { envKeys: new Map<string, string>(), fnKeys: new Map<string, string>(), lowered: new Map<string, CachedLowering>() };

  constructor(project = new CudaProject()) {
    this.project = project;
    this.front = new FrontEnd(project);
  }

  /** Sets an unsaved buffer's text; `change` (the edited range) allows an incremental re-parse. */
  setFileText(file: string, text: string, change?: TextChange): void {
    this.project.setFileText(file, text, change);
  }

  removeFile(file: string): void {
    const abs = this.project.getFile(file)?.path;
    this.project.removeFile(file);
    if (abs) for (const id of [...this.cache.keys()]) if (splitId(id)[0] === abs) this.cache.delete(id);
  }

  /**
   * Checks one file. Never throws: running out of stack becomes CS1021 and any other internal failure
   * CS9001, both located in this file, so that the other files of a run are still checked.
   */
  checkFile(file: string): FileCheck {
    const pf = this.project.getFile(file);
    if (pf?.unparsable) return unparsableCheck(pf.path, pf.unparsable.position, this.project.getText(pf.path) ?? "");
    try {
      return this.checkParsedFile(file);
    } catch (err) {
      const abs = pf?.path ?? file;
      return { ...emptyCheck(abs, true), diagnostics: [isStackOverflow(err) ? tooDeepDiagnostic({ file: abs, start: 0, end: 0, line: 1, col: 1 }) : internalError({ file: abs, start: 0, end: 0, line: 1, col: 1 }, err)] };
    }
  }

  private checkParsedFile(file: string): FileCheck {
    this.round = { envKeys: new Map(), fnKeys: new Map(), lowered: new Map() };
    if (this.project.generation !== this.constantsGeneration) {
      this.front.clearConstants();
      this.constantsGeneration = this.project.generation;
    }
    const module = this.front.moduleInfo(file);
    if (!module) return emptyCheck(file, false);
    if (!module.importsCudascript) return emptyCheck(module.file, false);
    const diagnostics: Diagnostic[] = [];
    const own: IrFunction[] = [];
    // Functions deleted or renamed since the last check leave the cache.
    for (const id of [...this.cache.keys()]) {
      const [f, name] = splitId(id);
      if (f === module.file && !module.functions.has(name)) this.cache.delete(id);
    }
    for (const decl of module.functions.values()) {
      const r = this.lowered(module, decl);
      diagnostics.push(...r.diagnostics);
      own.push(r.fn);
    }
    // The kernels of cuda.vectorize / cuda.reduce / cuda.guvectorize, made from their functions (ufuncs.ts, gufuncs.ts).
    const made: IrFunction[] = [];
    for (const u of module.ufuncs.values()) {
      const r = this.safely(fileStart(module), () => {
        const s = u.kind === "guvectorize" ? synthesizeGufunc(this, module, u) : synthesizeUfunc(this, module, u);
        if (s.kernel) made.push(s.kernel);
        return s.diagnostics;
      });
      diagnostics.push(...r);
    }
    // Whole-program facts over every function reached.
    const reachable = this.reachableFunctions([...own, ...made]);
    for (const fn of own) diagnostics.push(...this.safely(fn.span, () => this.errorsBehindCalls(fn, module.file)));
    diagnostics.push(...recursiveSynchronisation(own, reachable));
    const barrierFns = new Set<string>();
    const threadFns = new Set<string>();
    for (let i = 0; i < 4; i++) {
      for (const fn of reachable.values()) {
        if (fn.kind !== "device") continue;
        if (containsBarrier(fn, barrierFns)) barrierFns.add(fn.id);
        if (readsThreadState(fn, threadFns)) threadFns.add(fn.id);
      }
    }
    const staticSharedBytes = new Map<string, number>();
    for (const fn of own) {
      diagnostics.push(...this.safely(fn.span, () => checkDivergentBarriers(fn, { barrierFunctions: barrierFns, threadDependentFunctions: threadFns })));
      diagnostics.push(...this.safely(fn.span, () => checkDivergentGridSync(fn, { barrierFunctions: barrierFns, threadDependentFunctions: threadFns })));
      if (fn.kind !== "kernel") continue;
      const shared = this.sharedArraysOf(fn, reachable);
      const total = shared.reduce((a, s) => a + s.bytes, 0);
      staticSharedBytes.set(fn.id, total);
      if (total > STATIC_SHARED_LIMIT)
        diagnostics.push(
          makeDiagnostic(
            Codes.SharedMemoryTooLarge,
            fn.span,
            `kernel '${fn.name}' uses ${total} bytes (${(total / 1024).toFixed(1)} KiB) of static shared memory, over the 48 KiB (49152 bytes) a block can have statically: ${
              total > LARGEST_OPT_IN_SHARED
                ? "no GPU gives a block more than 227 KiB (an sm_90 opting in), so shrink the tiles and give each block less work (more blocks)"
                : "shrink the tiles, or use dynamic shared memory (cuda.shared.array(0, dtype)) sized at launch with { sharedMem: bytes }, which a GPU opts in to up to its limit (96 KiB on sm_70, 163 KiB on sm_80, 227 KiB on sm_90)"
            }`,
            { related: shared.map((s) => ({ span: s.span, message: `${s.name}: ${s.bytes} bytes` })) },
          ),
        );
    }
    for (const fn of made) {
      diagnostics.push(...this.safely(fn.span, () => this.errorsBehindCalls(fn, module.file)));
      staticSharedBytes.set(fn.id, this.sharedArraysOf(fn, reachable).reduce((a, s) => a + s.bytes, 0));
    }
    diagnostics.push(...this.safely(fileStart(module), () => checkHostCudaNames(module)));
    diagnostics.push(...this.safely(fileStart(module), () => checkRecordDtypes(this.front, module)));
    let launchSites: LaunchSite[] = [];
    diagnostics.push(
      ...this.safely(fileStart(module), () => {
        const r = checkLaunchSites(
          {
            front: this.front,
            kernelNamed: (m, name) => {
              const sym = this.front.resolveName(m, name);
              if (sym?.kind !== "function" || sym.fn.kind !== "kernel") return undefined;
              const r = this.lowered(sym.module, sym.fn);
              return r.broken ? undefined : r.fn;
            },
            tooDeep: nestingProblems(module.file, module.sourceFile).tooDeep,
            usesDynamicShared: (fn) => this.sharedArraysOf(fn, this.reachableFunctions([fn]), true).some((s) => s.dynamic),
          },
          module,
        );
        launchSites = r.sites;
        return r.diagnostics;
      }),
    );
    // After the launch sites: a kernel launched here with as many threads as elements needs no guard.
    for (const fn of own) {
      const guards = { textOf: (span: Span) => module.sourceFile.text.slice(span.start, span.end), deviceFunction: (id: string) => reachable.get(id), launches: launchSites.filter((s) => s.kernelId === fn.id) };
      diagnostics.push(...this.safely(fn.span, () => checkBoundsGuards(fn, guards)));
    }
    const kernels = [...own.filter((f) => f.kind === "kernel"), ...made];
    const devices = topoSortDevices(kernels, reachable);
    const irModule: IrModule = { file: module.file, kernels, deviceFunctions: devices, constArrays: this.constArraysUsed([...kernels, ...devices]) };
    // A syntax error makes the parser invent tokens; what the rules say about its statement is noise.
    const syntax = syntaxErrors(module.file, module.sourceFile);
    const rules = diagnostics.filter((d) => d.span.file === module.file && !inBrokenStatement(d, syntax.brokenStatements));
    const nesting = nestingProblems(module.file, module.sourceFile);
    const mine = dedupe([...syntax.diagnostics, ...nesting.diagnostics, ...rules]).sort(compareDiagnostics);
    return { file: module.file, diagnostics: mine, module: irModule, launchSites, staticSharedBytes, isCudaScriptFile: true };
  }

  // ───────────────────────── LowerHost ─────────────────────────

  lowerScalar(module: ModuleInfo, decl: FunctionDecl): { fn: IrFunction; diagnostics: readonly Diagnostic[] } | undefined {
    const r = this.lowered(module, decl);
    return r.broken ? undefined : r;
  }

  deviceSignature(fn: FunctionDecl): DeviceSignature | "recursive" | "broken" {
    const id = `${fn.file}#${fn.name}`;
    // A call back into a function being lowered (recursion): its signature is what its annotations say,
    // as TypeScript asks of a recursive function (TS7023); without a written result type it is CS1007.
    if (this.inProgress.has(id)) return this.writtenSignature(fn, id) ?? "recursive";
    const module = this.front.moduleInfo(fn.file);
    if (!module) return "recursive";
    const r = this.lowered(module, fn);
    if (r.broken) return "broken";
    return { id, name: fn.name, params: r.fn.params.map((p) => p.type), paramNames: r.fn.params.map((p) => p.name), returnType: r.fn.returnType };
  }

  private writtenSignature(fn: FunctionDecl, id: string): DeviceSignature | undefined {
    const module = this.front.moduleInfo(fn.file);
    const node = fn.fn;
    if (!module || !node?.type || fn.kind !== "device") return undefined;
    const result = node.type.kind === ts.SyntaxKind.VoidKeyword ? ({ ok: true, type: VOID } as const) : readTypeAnnotation(this.front, module, node.type);
    if (!result.ok || (result.type.kind !== "scalar" && result.type.kind !== "void")) return undefined;
    const params: Type[] = [];
    for (const p of node.parameters) {
      const r = p.type && readTypeAnnotation(this.front, module, p.type);
      if (!r || !r.ok || !ts.isIdentifier(p.name)) return undefined;
      params.push(r.type);
    }
    return { id, name: fn.name, params, paramNames: node.parameters.map((p) => (p.name as ts.Identifier).text), returnType: result.type };
  }

  useConstArray(module: ModuleInfo, decl: ts.VariableDeclaration, dtype: ConstArray["dtype"], values: ConstArray["values"], shape: readonly number[]): string {
    const base = ts.isIdentifier(decl.name) ? decl.name.text : "const_array";
    let name = base;
    const existing = this.constArrays.get(name);
    if (existing && existing.span.file !== module.file) name = `${base}_${shortHash(module.file)}`;
    const sf = module.sourceFile;
    const start = decl.getStart(sf);
    const lc = sf.getLineAndCharacterOfPosition(start);
    this.constArrays.set(name, { name, dtype, values, shape, span: { file: module.file, start, end: decl.end, line: lc.line + 1, col: lc.character + 1 } });
    return name;
  }

  // ───────────────────────── lowering cache ─────────────────────────

  private lowered(module: ModuleInfo, decl: FunctionDecl): CachedLowering {
    const id = `${decl.file}#${decl.name}`;
    const done = this.round.lowered.get(id);
    if (done) return done;
    const sf = module.sourceFile;
    const start = decl.statement.getStart(sf);
    const lc = sf.getLineAndCharacterOfPosition(start);
    const textKey = `${lc.character}:${decl.statement.getText(sf)}`;
    const envKey = this.envKey(module);
    const cached = this.cache.get(id);
    if (cached && cached.textKey === textKey && cached.envKey === envKey && this.calleesUnchanged(cached)) {
      const shifted: CachedLowering =
        cached.start === start
          ? cached
          : { ...cached, start, line: lc.line, fn: relocate(cached.fn, { offset: start - cached.start, line: lc.line - cached.line }), diagnostics: relocate(cached.diagnostics, { offset: start - cached.start, line: lc.line - cached.line }) };
      this.cache.set(id, shifted);
      this.round.lowered.set(id, shifted);
      this.round.fnKeys.set(id, fnKey(shifted));
      return shifted;
    }
    // Too deep to lower without running out of stack: an empty stand-in; the nesting is reported as CS1021.
    if (nestingProblems(module.file, sf).tooDeep.has(decl.statement)) {
      const span: Span = { file: module.file, start, end: decl.statement.end, line: lc.line + 1, col: lc.character + 1 };
      const stub: CachedLowering = { textKey, envKey, start, line: lc.line, calleeKeys: new Map(), fn: emptyFunction(decl, id, span), diagnostics: [], broken: true };
      this.round.lowered.set(id, stub);
      this.round.fnKeys.set(id, fnKey(stub));
      return stub;
    }
    this.inProgress.add(id);
    let result: CachedLowering;
    try {
      const r = lowerFunction(this, module, decl);
      const calleeKeys = new Map<string, string>();
      for (const c of r.fn.callees) {
        const k = this.round.fnKeys.get(c);
        if (k) calleeKeys.set(c, k);
      }
      result = { textKey, envKey, start, line: lc.line, calleeKeys, fn: r.fn, diagnostics: r.diagnostics };
    } catch (err) {
      const span: Span = { file: module.file, start, end: decl.statement.end, line: lc.line + 1, col: lc.character + 1 };
      result = { textKey: "", envKey, start, line: lc.line, calleeKeys: new Map(), fn: emptyFunction(decl, id, span), diagnostics: [isStackOverflow(err) ? tooDeepDiagnostic(span) : internalError(span, err)], broken: true };
    } finally {
      this.inProgress.delete(id);
    }
    this.cache.set(id, result);
    this.round.lowered.set(id, result);
    this.round.fnKeys.set(id, fnKey(result));
    return result;
  }

  /**
   * A device function of another file that cannot be compiled (its own errors are reported in its
   * file) would reach the backends as a placeholder: a call of it in this file is an error here too,
   * with the callee's code and message. This is what reports recursion across files: in
   * a.ts:even → b.ts:odd → a.ts:even, whichever of the two is lowered second gets CS1007 at the call
   * that closes the cycle, and the other file sees it at its call into the cycle.
   */
  private errorsBehindCalls(fn: IrFunction, file: string): Diagnostic[] {
    const out: Diagnostic[] = [];
    const firstErrorFrom = new Map<string, Diagnostic | undefined>();
    const firstError = (root: string): Diagnostic | undefined => {
      if (firstErrorFrom.has(root)) return firstErrorFrom.get(root);
      // Depth-first over the callees outside this file (those inside report their own errors here).
      const seen = new Set<string>([root]);
      const stack = [root];
      let found: Diagnostic | undefined;
      while (stack.length && !found) {
        const id = stack.pop()!;
        const [f, name] = splitId(id);
        const m = this.front.moduleInfo(f);
        const decl = m?.functions.get(name);
        if (!m || !decl) continue;
        const r = this.lowered(m, decl);
        found = r.diagnostics.find((d) => d.severity === "error");
        for (const c of r.fn.callees) if (!seen.has(c) && splitId(c)[0] !== file) (seen.add(c), stack.push(c));
      }
      firstErrorFrom.set(root, found);
      return found;
    };
    forEachRootExpr(fn.body, (root) =>
      visitExpr(root, (e) => {
        if (e.k !== "call" || splitId(e.fn)[0] === file) return;
        const err = firstError(e.fn);
        if (!err) return;
        const where = `${path.basename(err.span.file)}:${err.span.line}:${err.span.col}`;
        const def = definitionOf(err.code) ?? Codes.InternalError;
        out.push(makeDiagnostic(def, e.span, `'${splitId(e.fn)[1]}' cannot be compiled: ${where}: ${err.message}`, { related: [{ span: err.span, message: `${err.code}: ${err.message}` }] }));
      }),
    );
    return out;
  }

  private calleesUnchanged(c: CachedLowering): boolean {
    for (const [id, key] of c.calleeKeys) {
      if (this.inProgress.has(id)) return false; // a cycle through the function being lowered: lower again, to report it
      const [file, name] = splitId(id);
      const module = this.front.moduleInfo(file);
      const decl = module?.functions.get(name);
      if (!module || !decl || decl.kind !== "device") return false;
      const now = this.lowered(module, decl);
      if (fnKey(now) !== key) return false;
    }
    return true;
  }

  /**
   * What a function body can see at module level, hashed: imports, constants, `let`s, type aliases,
   * the names (not bodies) of plain functions and classes, and the same of imported project files.
   */
  private envKey(module: ModuleInfo, depth = 0): string {
    const memo = this.round.envKeys.get(module.file);
    if (memo) return memo;
    const sf = module.sourceFile;
    const h = createHash("sha1");
    const fnCalls = new Set([...module.functions.values()].map((f) => f.statement));
    for (const st of sf.statements) {
      if (ts.isVariableStatement(st) && fnCalls.has(st)) {
        // Kernels and device functions: only their names and kinds matter to others.
        for (const d of st.declarationList.declarations) h.update(`fn:${d.name.getText(sf)};`);
        continue;
      }
      if (ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st)) {
        h.update(`decl:${st.name?.text ?? ""};`);
        continue;
      }
      if (ts.isExpressionStatement(st) || ts.isIfStatement(st) || ts.isForStatement(st) || ts.isWhileStatement(st)) continue; // host code
      h.update(st.getText(sf));
      h.update("\n");
    }
    this.round.envKeys.set(module.file, "pending");
    if (depth < 8) {
      for (const imp of module.imports.values()) {
        const target = this.project.resolveImport(imp.module, module.file);
        if (!target) continue;
        const info = this.front.moduleInfo(target);
        if (!info) continue;
        const k = this.round.envKeys.get(info.file) === "pending" ? "cycle" : this.envKey(info, depth + 1);
        h.update(`import:${info.file}:${k};`);
      }
    }
    const key = h.digest("hex");
    this.round.envKeys.set(module.file, key);
    return key;
  }

  // ───────────────────────── whole-kernel facts ─────────────────────────

  private reachableFunctions(roots: readonly IrFunction[]): Map<string, IrFunction> {
    const out = new Map<string, IrFunction>();
    const stack = [...roots];
    while (stack.length) {
      const fn = stack.pop()!;
      if (out.has(fn.id)) continue;
      out.set(fn.id, fn);
      for (const c of fn.callees) {
        if (out.has(c)) continue;
        const [file, name] = splitId(c);
        const module = this.front.moduleInfo(file);
        const decl = module?.functions.get(name);
        if (module && decl) stack.push(this.lowered(module, decl).fn);
      }
    }
    return out;
  }

  private sharedArraysOf(fn: IrFunction, reachable: Map<string, IrFunction>, includeDynamic = false): { name: string; bytes: number; span: Span; dynamic: boolean }[] {
    const out: { name: string; bytes: number; span: Span; dynamic: boolean }[] = [];
    const seen = new Set<string>();
    const visitFn = (f: IrFunction) => {
      if (seen.has(f.id)) return;
      seen.add(f.id);
      forEachStmt(f.body, (s) => {
        if (s.k !== "arrayDecl" || s.arrayType.space !== "shared") return;
        const shape = s.arrayType.shape ?? [1];
        const dynamic = shape.length === 1 && shape[0] === 0;
        if (dynamic && !includeDynamic) return;
        out.push({ name: s.v.name, bytes: shape.reduce((a, b) => a * b, 1) * byteSize(s.arrayType.dtype), span: s.span, dynamic });
      });
      for (const c of f.callees) {
        const callee = reachable.get(c);
        if (callee) visitFn(callee);
      }
    };
    visitFn(fn);
    return out;
  }

  private constArraysUsed(fns: readonly IrFunction[]): ConstArray[] {
    const names = new Set<string>();
    for (const f of fns) forEachStmt(f.body, (s) => s.k === "constArrayDecl" && names.add(s.constName));
    return [...names].flatMap((n) => {
      const c = this.constArrays.get(n);
      return c ? [c] : [];
    });
  }

  /** Runs one rule; a bug in it becomes a CS9001 diagnostic instead of failing the whole check. */
  private safely(span: Span, f: () => Diagnostic[]): Diagnostic[] {
    try {
      return f();
    } catch (err) {
      return [internalError(span, err)];
    }
  }
}

function emptyFunction(decl: FunctionDecl, id: string, span: Span): IrFunction {
  return { kind: decl.kind, id, name: decl.name, params: [], returnType: { kind: "void" }, body: [], span, options: {}, callees: [], defaultFloat: "f32" };
}

function tooDeepDiagnostic(span: Span): Diagnostic {
  return makeDiagnostic(Codes.TooDeeplyNested, span, `checking this code ran out of stack: it nests too deeply (the limit is ${MAX_NESTING_DEPTH} levels): split deep expressions and statements into named partial results or loops`);
}

/** TypeScript's parser itself ran out of stack on the file. */
function unparsableCheck(file: string, position: number, text: string): FileCheck {
  const before = text.slice(0, position);
  const line = before.split("\n").length;
  const col = position - (before.lastIndexOf("\n") + 1) + 1;
  const d = makeDiagnostic(
    Codes.TooDeeplyNested,
    { file, start: position, end: Math.min(text.length, position + 1), line, col },
    `this file nests too deeply for TypeScript's parser (the nesting passes ${MAX_NESTING_DEPTH} levels here): split deep expressions and statements into named partial results or loops`,
  );
  return { ...emptyCheck(file, true), diagnostics: [d] };
}

function fileStart(module: ModuleInfo): Span {
  return { file: module.file, start: 0, end: 0, line: 1, col: 1 };
}

function internalError(span: Span, err: unknown): Diagnostic {
  const msg = err instanceof Error ? `${err.message}\n${err.stack?.split("\n").slice(1, 4).join("\n") ?? ""}` : String(err);
  return makeDiagnostic(Codes.InternalError, span, `the CudaScript checker failed on this code; please report it with the file. ${msg}`);
}

function fnKey(c: CachedLowering): string {
  return `${c.textKey.length}:${shortHash(c.textKey)}:${c.envKey}`;
}

function shortHash(s: string): string {
  return createHash("sha1").update(s).digest("hex").slice(0, 12);
}

function splitId(id: string): [string, string] {
  const i = id.lastIndexOf("#");
  return [id.slice(0, i), id.slice(i + 1)];
}

function emptyCheck(file: string, isCudaScriptFile: boolean): FileCheck {
  return { file, diagnostics: [], module: { file, kernels: [], deviceFunctions: [], constArrays: [] }, launchSites: [], staticSharedBytes: new Map(), isCudaScriptFile };
}

function dedupe(list: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return list.filter((d) => {
    const k = `${d.code}:${d.span.start}:${d.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function topoSortDevices(kernels: readonly IrFunction[], reachable: Map<string, IrFunction>): IrFunction[] {
  const out: IrFunction[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (f: IrFunction) => {
    if (state.get(f.id)) return;
    state.set(f.id, "visiting");
    for (const c of f.callees) {
      const callee = reachable.get(c);
      if (callee) visit(callee);
    }
    state.set(f.id, "done");
    if (f.kind === "device") out.push(f);
  };
  kernels.forEach(visit);
  return out;
}


/**
 * A recursive device function (in a call cycle, ir/recursion.ts) cannot synchronise (barriers, warp
 * operations, g.sync()): every thread would have to reach each barrier at the same depth, and the
 * simulator runs synchronising functions inlined, which recursion cannot be (CS1027, at the operation).
 */
function recursiveSynchronisation(own: readonly IrFunction[], reachable: ReadonlyMap<string, IrFunction>): Diagnostic[] {
  const fns = [...reachable.values()];
  const recursive = recursiveFunctions({ file: "", kernels: [], deviceFunctions: fns.filter((f) => f.kind === "device"), constArrays: [] });
  const out: Diagnostic[] = [];
  for (const fn of own) {
    if (!recursive.has(fn.id)) continue;
    forEachRootExpr(fn.body, (root) =>
      visitExpr(root, (e) => {
        if (e.k === "intrinsic" && SYNC_INTRINSICS.has(e.name))
          out.push(makeDiagnostic(Codes.RecursiveSynchronisation, e.span, `'${fn.name}' is recursive, so it cannot synchronise (cuda.${e.name}): every thread would have to reach the barrier at the same depth. Synchronise in the kernel, before or after the call, or write the recursion as a loop`));
      }),
    );
  }
  return out;
}
