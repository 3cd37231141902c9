/**
 * Lowering of declarations: `const`/`let` of scalars (compile-time constants fold, weak literals take
 * the annotation or the hint of a widened `let`), aliases and views of arrays, array variables, grid
 * groups, `const [x, y] = cuda.grid(2)`, and arrays in shared, local and constant memory with their
 * dtype and constant shape.
 */
import ts from "typescript";
import { Codes } from "../diagnostics/codes";
import { makeDiagnostic } from "../diagnostics/diagnostic";
import type * as IR from "../ir/nodes";
import { ALL_DTYPES, byteSize, commonDType, I32, scalar, type ArrayType, type DType, type ScalarType } from "../ir/types";
import { stripParensAndNonNull } from "./constants";
import { readRecordType, readTypeAnnotation } from "./type-annotations";
import { ARRAY_SWAP_ADVICE, needsWidening, POISON, WEAK } from "./lower-base";
import type { LoweringContext } from "./lower-context";
import { LIBDEVICE_BY_NAME } from "../intrinsics";
import { lowerTupleIntrinsic } from "./lower-intrinsic";

export class DeclarationLowerer {
  constructor(private readonly ctx: LoweringContext) {}

  lowerVariableList(list: ts.VariableDeclarationList, node: ts.Node): IR.Stmt[] {
    const isConst = (list.flags & ts.NodeFlags.Const) !== 0;
    const isLet = (list.flags & ts.NodeFlags.Let) !== 0;
    if (!isConst && !isLet) this.ctx.report(Codes.UnsupportedStatement, node, "`var` is not supported in kernels: write `let` (or `const`)");
    const out: IR.Stmt[] = [];
    for (const d of list.declarations) out.push(...this.lowerDeclaration(d, isConst));
    return out;
  }

  lowerDeclaration(d: ts.VariableDeclaration, isConst: boolean): IR.Stmt[] {
    const span = this.ctx.span(d);
    if (ts.isObjectBindingPattern(d.name)) {
      this.ctx.report(Codes.UnsupportedDestructuring, d.name, "object destructuring is not supported in kernels: read each field, e.g. const tx = cuda.threadIdx.x");
      this.ctx.poisonNames(d.name);
      return [];
    }
    if (ts.isArrayBindingPattern(d.name)) return this.lowerTupleDestructuring(d, d.name, isConst);
    const name = d.name.text;
    const init = d.initializer ? stripParensAndNonNull(d.initializer) : undefined;

    if (init && this.ctx.gridGroup.isThisGridCall(init)) return this.ctx.gridGroup.declareGridGroup(d, name, isConst, init);
    // Arrays in shared / local / constant memory
    if (init && ts.isCallExpression(init)) {
      const alloc = this.arrayAllocation(init);
      if (alloc) {
        if (!isConst) this.ctx.report(Codes.ArrayDeclarationPlacement, d, `declare arrays with const: const ${name} = ${init.getText(this.ctx.sf)}`);
        return this.lowerArrayDeclaration(d, name, init, alloc);
      }
    }

    // Compile-time constants: `const half = 0.5` folds, and stays weak unless annotated.
    let annotated: DType | undefined;
    if (d.type) {
      const r = readTypeAnnotation(this.ctx.host.front, this.ctx.module, d.type);
      if (r.ok && r.type.kind === "scalar") annotated = r.type.dtype;
      else if (r.ok) {
        /* array annotations on aliases are fine: the initialiser decides */
      } else this.ctx.report(Codes.UnsupportedParameterType, d.type, r.message);
    }
    if (isConst && init) {
      const before = this.ctx.diags.list.length;
      const c = this.ctx.foldConst(init);
      if (c && this.ctx.diags.list.slice(before).some((x) => x.code === Codes.ConstantOverflow.code)) {
        this.ctx.bind(name, { k: "poison" });
        return [];
      }
      if (c) {
        this.ctx.bind(name, { k: "const", value: c, dtype: annotated, node: d });
        return [];
      }
    }

    if (!init) {
      const dtype = annotated ?? this.ctx.hints.get(d) ?? "i32";
      const v = this.ctx.newVar(name, scalar(dtype), false, !isConst, d.name);
      this.ctx.varDecls.set(v.id, d);
      return [{ k: "decl", span, v }];
    }
    if (ts.isFunctionExpression(init) || ts.isArrowFunction(init)) {
      this.ctx.report(Codes.NestedFunction, init, "functions cannot be declared inside kernels: declare it at module level as const f = cuda.device((…) => …)");
      this.ctx.bind(name, { k: "poison" });
      return [];
    }
    // `const p = ps[i]`: a copy of a record; `const q = f(p)`: a device function's record result (lower-records.ts).
    if (this.ctx.records.isRecordElement(init)) return this.ctx.records.declareRecordCopy(d, name, init, isConst);
    const recordResult = this.ctx.records.declareRecordResult(d, name, init, isConst);
    if (recordResult) return recordResult;
    const viewTemps: IR.Stmt[] = [];
    const value = this.ctx.views.lowerViewInitializer(init, viewTemps);
    if (POISON.has(value)) {
      // The annotation still says what the variable is: later uses keep being checked.
      if (annotated) return [{ k: "decl", span, v: this.ctx.newVar(name, scalar(annotated), false, !isConst, d.name) }];
      this.ctx.bind(name, { k: "poison" });
      return [];
    }
    if (value.type.kind === "array") {
      // `let src = a`, `const src = flag ? a : b`: an array variable (lower-array-vars.ts).
      const arrayVariable = this.ctx.arrayVars.declareArrayVariable(d, name, value, isConst);
      if (arrayVariable) return [...viewTemps, ...arrayVariable];
      // An alias of an array (`const row = m`): bind the name to the same variable; a view
      // (`const part = a.subarray(…)`, `const row = m[i]`) keeps its rows/offset/length computed once.
      if (value.k === "var") {
        const view = this.ctx.views.viewOfExpr(value);
        if (isConst && view) {
          this.ctx.bind(name, { k: "var", v: value.v, isConstDecl: true, view: { ...view, name } });
          return viewTemps;
        }
        if (isConst) this.ctx.bind(name, { k: "var", v: value.v, isConstDecl: true });
        else {
          this.ctx.bind(name, { k: "var", v: value.v, isConstDecl: true, rebindReported: true });
          this.ctx.report(Codes.ArrayDeclarationPlacement, d, `array names cannot be reassigned in kernels, so an alias must be const: const ${name} = ${init.getText(this.ctx.sf)}; ${ARRAY_SWAP_ADVICE}`);
        }
      } else this.ctx.report(Codes.TypeMismatch, init, "only whole arrays can be named; index the array where you use it");
      return [];
    }
    if (value.type.kind !== "scalar") {
      if (value.type.kind === "tuple")
        this.ctx.report(Codes.UnsupportedDestructuring, init, `${init.getText(this.ctx.sf)} returns a tuple: destructure it, e.g. const [x, y] = cuda.grid(2)`);
      else if (value.type.kind === "void") this.ctx.report(Codes.TypeMismatch, init, "this call returns nothing");
      const v = this.ctx.newVar(name, I32, false, !isConst, d.name);
      return [{ k: "decl", span, v }];
    }
    const dtype = annotated ?? this.ctx.hints.get(d) ?? (WEAK.has(value) ? this.ctx.weakDefault(value) : (value.type as ScalarType).dtype);
    const v = this.ctx.newVar(name, scalar(dtype), false, !isConst, d.name);
    this.ctx.varDecls.set(v.id, d);
    if (!WEAK.has(value) && !annotated && needsWidening(dtype, (value.type as ScalarType).dtype)) {
      this.ctx.hints.set(d, commonDType(dtype, (value.type as ScalarType).dtype));
      this.ctx.widened = true;
    }
    return [...viewTemps, { k: "decl", span, v, init: this.ctx.conv.convertImplicitly(value, dtype, `the ${dtype} '${name}'`, init, init) }];
  }

  lowerTupleDestructuring(d: ts.VariableDeclaration, pattern: ts.ArrayBindingPattern, isConst: boolean): IR.Stmt[] {
    const init = d.initializer ? stripParensAndNonNull(d.initializer) : undefined;
    // `const [s, c] = cuda.libdevice.sincos(x)`: Numba's tuple results (lower-intrinsic.ts).
    const path = init && ts.isCallExpression(init) ? this.ctx.expr.cudaPath(init.expression) : undefined;
    const libdevice = path?.length === 2 && path[0] === "libdevice" ? LIBDEVICE_BY_NAME.get(path[1]!) : undefined;
    if (libdevice) return lowerTupleIntrinsic(this.ctx, libdevice, init as ts.CallExpression, pattern, isConst);
    const tuple = init && ts.isCallExpression(init) ? this.ctx.calls.gridCall(init) : undefined;
    if (!tuple) {
      this.ctx.report(Codes.UnsupportedDestructuring, d.name, "only cuda.grid(n), cuda.gridsize(n) and the cuda.libdevice functions with several results can be destructured: const [x, y] = cuda.grid(2)");
      this.ctx.poisonNames(pattern);
      return [];
    }
    if (tuple.ndim === 1) {
      this.ctx.report(Codes.UnsupportedDestructuring, d.name, `cuda.${tuple.reg}(1) returns a number: write const i = cuda.${tuple.reg}(1)`);
      this.ctx.poisonNames(pattern);
      return [];
    }
    const out: IR.Stmt[] = [];
    const axes: IR.Axis[] = ["x", "y", "z"];
    pattern.elements.forEach((el, i) => {
      if (ts.isOmittedExpression(el)) return;
      if (!ts.isIdentifier(el.name) || el.dotDotDotToken || el.initializer) {
        this.ctx.report(Codes.UnsupportedDestructuring, el, "write plain names: const [x, y] = cuda.grid(2)");
        return;
      }
      if (i >= tuple.ndim) {
        this.ctx.report(Codes.UnsupportedDestructuring, el, `cuda.${tuple.reg}(${tuple.ndim}) has only ${tuple.ndim} elements`);
        return;
      }
      const v = this.ctx.newVar(el.name.text, I32, false, !isConst, el.name);
      out.push({ k: "decl", span: this.ctx.span(el), v, init: { k: "special", type: I32, reg: tuple.reg, axis: axes[i]!, span: this.ctx.span(init!) } });
    });
    return out;
  }

  arrayAllocation(call: ts.CallExpression): "shared" | "local" | "const" | undefined {
    const path = this.ctx.expr.cudaPath(call.expression);
    if (!path || path.length !== 2) return undefined;
    if (path[0] === "shared" && path[1] === "array") return "shared";
    if (path[0] === "local" && path[1] === "array") return "local";
    if (path[0] === "const" && path[1] === "arrayLike") return "const";
    return undefined;
  }

  lowerArrayDeclaration(d: ts.VariableDeclaration, name: string, call: ts.CallExpression, space: "shared" | "local" | "const"): IR.Stmt[] {
    const span = this.ctx.span(d);
    if (space === "const") {
      const arg = call.arguments[0];
      const sym = arg && ts.isIdentifier(arg) && !this.ctx.lookup(arg.text) ? this.ctx.host.front.resolveName(this.ctx.module, arg.text) : undefined;
      const folded = sym?.kind === "const" ? this.ctx.host.front.moduleConst(sym.module, sym.decl) : undefined;
      const arr = folded?.array;
      if (!arr || call.arguments.length !== 1) {
        this.ctx.report(
          Codes.ConstArrayInvalid,
          arg ?? call,
          folded?.arrayProblem && call.arguments.length === 1
            ? `'${arg!.getText(this.ctx.sf)}' cannot go to constant memory: ${folded.arrayProblem}`
            : "cuda.const.arrayLike takes a module-level constant typed array: const FILTER = new Float32Array([0.25, 0.5, 0.25]) at module level, then cuda.const.arrayLike(FILTER) (or a 2-D/3-D one: cuda.ndarray(new Float32Array([…]), [rows, cols]))",
        );
        // Its rank and dtype are unknown: uses of it stay quiet rather than guess (m[i][j] on a 1-D guess).
        this.ctx.bind(name, { k: "poison" });
        return [];
      }
      // Elements that do not fit the dtype are errors where they are written (possibly another module).
      for (const p of arr.elementProblems) {
        const sf = p.node.getSourceFile();
        const start = p.node.getStart(sf);
        const lc = sf.getLineAndCharacterOfPosition(start);
        this.ctx.diags.add(makeDiagnostic(Codes.ConstArrayElementRange, { file: arr.module.file, start, end: p.node.end, line: lc.line + 1, col: lc.character + 1 }, p.message));
      }
      const constName = this.ctx.host.useConstArray(arr.module, arr.decl, arr.dtype, arr.values, arr.shape);
      const rank = arr.shape.length as 1 | 2 | 3;
      const v = this.ctx.newVar(name, { kind: "array", dtype: arr.dtype, rank, space: "const", shape: arr.shape }, false, false, d.name);
      return [{ k: "constArrayDecl", span, v, constName }];
    }
    const [shapeArg, dtypeArg] = call.arguments;
    if (call.arguments.length !== 2) this.ctx.report(Codes.WrongArgumentCount, call, `cuda.${space}.array takes a shape and a dtype: cuda.${space}.array(128, f32)`);
    // `cuda.shared.array(n, Particle)`: one array per field (lower-records.ts).
    const record = dtypeArg ? this.ctx.records.fieldArrays.recordDTypeArg(dtypeArg) : undefined;
    if (record) {
      const shape = shapeArg ? this.readShape(shapeArg, space) : [1];
      if (record !== "reported") return this.ctx.records.fieldArrays.declare(d, name, space, shape, record, call);
      this.ctx.bind(name, { k: "poison" });
      return [];
    }
    const dtypeOrBad = dtypeArg ? this.readDTypeArg(dtypeArg) : undefined;
    const shape = shapeArg ? this.readShape(shapeArg, space) : [1];
    if (!dtypeOrBad) {
      this.ctx.bind(name, { k: "poison" });
      return [];
    }
    const dtype = dtypeOrBad;
    const rank = Math.min(Math.max(shape.length, 1), 3) as 1 | 2 | 3;
    const arrayType: ArrayType = { kind: "array", dtype, rank, space, shape };
    if (space === "local") {
      const bytes = shape.reduce((a, b) => a * b, 1) * byteSize(dtype);
      if (bytes > 16 * 1024)
        this.ctx.report(Codes.LocalArrayTooLarge, call, `this local array takes ${bytes} bytes per thread; local memory is slow and large arrays spill: use shared memory or tile the work`);
    }
    const v = this.ctx.newVar(name, arrayType, false, false, d.name);
    return [{ k: "arrayDecl", span, v, arrayType }];
  }

  readDTypeArg(e: ts.Expression): DType | undefined {
    const x = stripParensAndNonNull(e);
    if (ts.isIdentifier(x)) {
      const cs = this.ctx.module.cudascript.get(x.text);
      if (cs?.kind === "dtype" && !this.ctx.lookup(x.text)) return cs.dtype;
    } else if (ts.isPropertyAccessExpression(x) && ts.isIdentifier(x.expression) && this.ctx.module.cudascript.get(x.expression.text)?.kind === "namespace") {
      const n = x.name.text;
      if ((ALL_DTYPES as readonly string[]).includes(n)) return n as DType;
    }
    if (ts.isIdentifier(x) && readRecordType(this.ctx.host.front, this.ctx.module, ts.factory.createTypeReferenceNode(x.text))) {
      this.ctx.report(Codes.RecordUnsupported, e, `'${x.text}' is a record: shared and local arrays of records are not compiled yet; declare one array per field (cuda.shared.array(n, f32) for x, …) or keep the records in a global Array1D<${x.text}>`);
      return undefined;
    }
    this.ctx.report(Codes.WrongDType, e, `'${e.getText(this.ctx.sf)}' is not a dtype: pass one of f32, f64, f16, i32, u32, i16, u16, i8, u8, i64, u64, bool, c64, c128 imported from "cudascript"`);
    return undefined;
  }

  readShape(e: ts.Expression, space: "shared" | "local"): number[] {
    const x = stripParensAndNonNull(e);
    const elements = ts.isArrayLiteralExpression(x) ? x.elements : [x];
    if (elements.length < 1 || elements.length > 3) {
      this.ctx.report(Codes.InvalidArrayShape, e, "array shapes have 1 to 3 dimensions");
      return [1];
    }
    const shape: number[] = [];
    for (const el of elements) {
      const c = this.ctx.foldConst(el);
      if (!c || typeof c.value !== "number") {
        const what = this.describeNonConstant(el);
        if (space === "local")
          this.ctx.report(Codes.LocalArraySizeNotConstant, el, `local array size must be a compile-time constant, but ${what}: declare a module constant (const MAX_${upperName(el)} = 64) and use it, checking at run time that the data fits`, {
            fix: { kind: "hoistToModuleConst", suggestedName: `MAX_${upperName(el)}` },
          });
        else
          this.ctx.report(Codes.SharedArrayShapeNotConstant, el, `shared array shape must be a compile-time constant, but ${what}: use a module constant (const TPB = 128), or cuda.shared.array(0, dtype) for dynamic shared memory sized at launch with { sharedMem: bytes }`, {
            fix: { kind: "hoistToModuleConst", suggestedName: `${upperName(el)}` },
          });
        shape.push(1);
        continue;
      }
      const n = c.value;
      const dynamicOk = space === "shared" && elements.length === 1 && n === 0;
      if (!Number.isInteger(n) || n < 0 || (n === 0 && !dynamicOk)) {
        this.ctx.report(Codes.InvalidArrayShape, el, `array dimensions must be positive whole numbers, got ${n}${space === "shared" ? " (0 alone declares dynamic shared memory)" : ""}`);
        shape.push(1);
        continue;
      }
      shape.push(n);
    }
    return shape;
  }

  describeNonConstant(e: ts.Expression): string {
    const x = stripParensAndNonNull(e);
    if (ts.isIdentifier(x)) {
      const b = this.ctx.lookup(x.text);
      if (b?.k === "var") return `'${x.text}' ${b.v.isParam ? "is a kernel parameter, known only at launch" : "is a variable, known only at run time"}`;
      const sym = this.ctx.host.front.resolveName(this.ctx.module, x.text);
      if (sym?.kind === "mutable") return `'${x.text}' is a module \`let\`, which can change`;
      if (sym?.kind === "const") return `'${x.text}' is a module const whose value is not a compile-time constant`;
      return `'${x.text}' is not a constant`;
    }
    if (ts.isElementAccessExpression(x)) return `'${x.getText(this.ctx.sf)}' is an array element, known only at run time`;
    if (ts.isPropertyAccessExpression(x) && x.name.text === "length") return `'${x.getText(this.ctx.sf)}' is an array length, known only at launch`;
    if (ts.isPropertyAccessExpression(x)) return `'${x.getText(this.ctx.sf)}' is known only at run time`;
    return `'${x.getText(this.ctx.sf)}' is not made of literals and module constants`;
  }
}

function upperName(e: ts.Expression): string {
  const x = stripParensAndNonNull(e);
  const base = ts.isIdentifier(x) ? x.text : ts.isPropertyAccessExpression(x) ? x.name.text : "SIZE";
  const up = base.replace(/([a-z0-9])([A-Z])/g, "$1_$2").replace(/[^A-Za-z0-9_]/g, "_").toUpperCase();
  return up === "LENGTH" ? "SIZE" : up;
}
