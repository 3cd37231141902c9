/**
 * Module-level name resolution across files: what a name used in a kernel refers to (a constant, a
 * device function, a CudaScript export, mutable host state…), following imports and re-exports.
 * Also folds module constants, memoised per file version.
 */
import ts from "typescript";
import type { DType } from "../ir/types";
import { ConstantFolder, stripParensAndNonNull, type ConstProblem, type ConstValue } from "./constants";
import { readConstArray, constElementCount, type ConstElementProblem } from "./const-arrays";
import { isCudaReference, readModuleInfo, type CudaScriptExport, type FunctionDecl, type ImportBinding, type ModuleInfo, CUDASCRIPT_MODULE } from "./module-info";
import type { CudaProject } from "./project";

/** A module constant typed array (or `cuda.ndarray` of one) usable with `cuda.const.arrayLike`. */
export interface ConstArrayValue {
  readonly dtype: DType;
  /** Row-major elements: bigints for i64/u64, interleaved (re, im) parts for c64/c128 (see IR ConstArray). */
  readonly values: readonly (number | bigint)[];
  /** `[element count]` for a typed array; the constant shape of a `cuda.ndarray`. */
  readonly shape: readonly number[];
  readonly decl: ts.VariableDeclaration;
  readonly module: ModuleInfo;
  /** Elements that do not fit the dtype (CS2025, reported where the array is used). */
  readonly elementProblems: readonly ConstElementProblem[];
}

export type ModuleSymbol =
  | { readonly kind: "const"; readonly decl: ts.VariableDeclaration; readonly module: ModuleInfo }
  | { readonly kind: "function"; readonly fn: FunctionDecl; readonly module: ModuleInfo }
  | { readonly kind: "cudascript"; readonly export: CudaScriptExport }
  | { readonly kind: "mutable"; readonly node: ts.Node; readonly module: ModuleInfo }
  | { readonly kind: "plainFunction"; readonly node: ts.Node; readonly module: ModuleInfo }
  | { readonly kind: "class"; readonly node: ts.Node; readonly module: ModuleInfo }
  | { readonly kind: "typeAlias"; readonly decl: ts.TypeAliasDeclaration; readonly module: ModuleInfo }
  | { readonly kind: "interface"; readonly decl: ts.InterfaceDeclaration; readonly module: ModuleInfo }
  | { readonly kind: "unresolvedImport"; readonly binding: ImportBinding; readonly module: ModuleInfo };

export interface ModuleConstResult {
  readonly value?: ConstValue;
  readonly array?: ConstArrayValue;
  /** Why a `cuda.ndarray(…)` constant cannot be a constant array (what to write instead). */
  readonly arrayProblem?: string;
  readonly problems: readonly ConstProblem[];
}

export class FrontEnd {
  private readonly infos = new Map<string, { version: number; info: ModuleInfo }>();
  private readonly constCache = new Map<ts.VariableDeclaration, ModuleConstResult | "inProgress">();

  constructor(readonly project: CudaProject) {}

  moduleInfo(file: string): ModuleInfo | undefined {
    const pf = this.project.getFile(file);
    if (!pf) return undefined;
    const cached = this.infos.get(pf.path);
    if (cached && cached.version === pf.version) return cached.info;
    const info = readModuleInfo(pf.path, pf.sourceFile);
    this.infos.set(pf.path, { version: pf.version, info });
    return info;
  }

  /** Resolves a module-level name of `module` (not locals of a kernel). */
  resolveName(module: ModuleInfo, name: string): ModuleSymbol | undefined {
    const cs = module.cudascript.get(name);
    if (cs) return { kind: "cudascript", export: cs };
    return this.resolveLocal(module, name, 0);
  }

  /**
   * Resolves a name in a type position: an interface or type alias first, as TypeScript keeps types and
   * values apart (`interface Particle` next to `const Particle = cuda.record(…)`).
   */
  resolveTypeName(module: ModuleInfo, name: string): ModuleSymbol | undefined {
    const cs = module.cudascript.get(name);
    if (cs) return { kind: "cudascript", export: cs };
    return this.resolveLocal(module, name, 0, true);
  }

  private resolveLocal(module: ModuleInfo, name: string, depth: number, types = false): ModuleSymbol | undefined {
    if (types) {
      const itf = module.interfaces.get(name);
      if (itf) return { kind: "interface", decl: itf, module };
      const alias = module.typeAliases.get(name);
      if (alias) return { kind: "typeAlias", decl: alias, module };
    }
    const fn = module.functions.get(name);
    if (fn) return { kind: "function", fn, module };
    const c = module.consts.get(name);
    if (c) return { kind: "const", decl: c, module };
    const m = module.mutables.get(name);
    if (m) return { kind: "mutable", node: m, module };
    const p = module.plainFunctions.get(name);
    if (p) return { kind: "plainFunction", node: p, module };
    const cl = module.classes.get(name);
    if (cl) return { kind: "class", node: cl, module };
    const ta = module.typeAliases.get(name);
    if (ta) return { kind: "typeAlias", decl: ta, module };
    const itf = module.interfaces.get(name);
    if (itf) return { kind: "interface", decl: itf, module };
    const imp = module.imports.get(name);
    if (imp) return this.resolveImport(module, imp, depth, types);
    return undefined;
  }

  private resolveImport(module: ModuleInfo, binding: ImportBinding, depth: number, types = false): ModuleSymbol {
    const unresolved: ModuleSymbol = { kind: "unresolvedImport", binding, module };
    if (depth > 16 || binding.name === "*" || binding.name === "default") return unresolved;
    const target = this.project.resolveImport(binding.module, module.file);
    if (!target) return unresolved;
    const info = this.moduleInfo(target);
    if (!info) return unresolved;
    return this.resolveExport(info, binding.name, depth + 1, types) ?? unresolved;
  }

  private resolveExport(module: ModuleInfo, exported: string, depth: number, types = false): ModuleSymbol | undefined {
    for (const [local, ex] of module.exports) if (ex === exported) return this.resolveLocal(module, local, depth, types);
    const re = module.reexports.get(exported);
    if (re) {
      if (re.module === CUDASCRIPT_MODULE) return undefined;
      return this.resolveImport(module, re, depth, types);
    }
    return undefined;
  }

  /** Folds a module constant (memoised). Cycles and non-constant initialisers give no value. */
  moduleConst(module: ModuleInfo, decl: ts.VariableDeclaration): ModuleConstResult {
    const cached = this.constCache.get(decl);
    if (cached === "inProgress") return { problems: [] };
    if (cached) return cached;
    this.constCache.set(decl, "inProgress");
    let result: ModuleConstResult = { problems: [] };
    if (decl.initializer) {
      const array = readConstArray(decl.initializer) ?? this.readConstNDArray(module, decl.initializer);
      if (array && "problem" in array) result = { arrayProblem: array.problem, problems: [] };
      else if (array) result = { array: { shape: [constElementCount(array.dtype, array.values)], ...array, decl, module }, problems: [] };
      else {
        const folder = new ConstantFolder((name) => this.constOf(module, name));
        const value = folder.fold(decl.initializer);
        result = { value, problems: folder.problems };
      }
    }
    this.constCache.set(decl, result);
    return result;
  }

  /**
   * `cuda.ndarray(DATA, [rows, cols])` (or 3 dimensions) at module level, where DATA is a typed array of
   * literal numbers or a module constant holding one, and the shape folds to constants: a constant N-D
   * array. `undefined` when `init` is not a `cuda.ndarray` call at all.
   */
  private readConstNDArray(
    module: ModuleInfo,
    init: ts.Expression,
  ): { dtype: DType; values: (number | bigint)[]; shape: number[]; elementProblems: readonly ConstElementProblem[] } | { problem: string } | undefined {
    const call = stripParensAndNonNull(init);
    if (!ts.isCallExpression(call) || !ts.isPropertyAccessExpression(call.expression) || call.expression.name.text !== "ndarray") return undefined;
    if (!isCudaReference(call.expression.expression, module.cudascript)) return undefined;
    const example = "const WEIGHTS = cuda.ndarray(new Float32Array([1, 2, 3, 4, 5, 6]), [2, 3])";
    const [dataArg, shapeArg] = call.arguments;
    let data: { dtype: DType; values: readonly (number | bigint)[]; elementProblems: readonly ConstElementProblem[] } | { problem: string } | undefined;
    if (dataArg) {
      const d = stripParensAndNonNull(dataArg);
      if (ts.isIdentifier(d)) {
        const sym = this.resolveName(module, d.text);
        const inner = sym?.kind === "const" ? this.moduleConst(sym.module, sym.decl).array : undefined;
        if (inner && inner.shape.length === 1) data = inner;
      } else data = readConstArray(d);
    }
    if (data && "problem" in data) return data;
    if (!data || call.arguments.length !== 2)
      return { problem: `a constant N-D array is cuda.ndarray(data, shape) with data a typed array of literal numbers (or a module constant one): ${example}` };
    const x = shapeArg ? stripParensAndNonNull(shapeArg) : undefined;
    const dims = x && ts.isArrayLiteralExpression(x) ? x.elements : [];
    const folder = new ConstantFolder((name) => this.constOf(module, name));
    const shape = dims.map((e) => folder.fold(e)?.value);
    if (dims.length < 1 || dims.length > 3 || !shape.every((n): n is number => typeof n === "number" && Number.isInteger(n) && n >= 1))
      return { problem: `the shape of a constant N-D array must be 1 to 3 constant whole numbers ≥ 1, written in place (module constants or literals): ${example}` };
    const size = shape.reduce((a, b) => a * b, 1);
    const count = constElementCount(data.dtype, data.values);
    if (size !== count) return { problem: `shape [${shape.join(", ")}] holds ${size} elements but the data has ${count}: give the shape of the data, row-major` };
    return { dtype: data.dtype, values: [...data.values], shape, elementProblems: data.elementProblems };
  }

  /** The constant value of a module-level name, if it is one. */
  constOf(module: ModuleInfo, name: string): ConstValue | undefined {
    const sym = this.resolveName(module, name);
    if (sym?.kind !== "const") return undefined;
    return this.moduleConst(sym.module, sym.decl).value;
  }

  /**
   * Forgets folded constants. Called when any file changed: a constant may depend on constants of
   * other files, and the old syntax trees must not stay reachable through this cache.
   */
  clearConstants(): void {
    this.constCache.clear();
  }

}
