/**
 * Records (docs/kernel-language.md#records): arrays of an `interface` of dtype fields, laid out as
 * numpy's align=True C struct (dtypes/records.ts). What the backends see is small:
 * - a field of an element, `ps[i].x`, read or written, is an IndexExpr with `field` set;
 * - a record local, `const p = ps[i]` (a copy: value semantics), is one scalar local per field, so
 *   `p.x` is a plain variable and no backend knows record values;
 * - a whole-record store, `ps[j] = p` or `ps[j] = ps[i]`, is one field store per field;
 * - a shared or local array of records, `cuda.shared.array(n, Particle)`, is one array per field (a
 *   structure of arrays, lower-record-storage.ts): kernels never see a record's bytes, so the layout of
 *   memory no host reads is free, and every backend (and the shared-memory sanitizer, which names
 *   `sh[i].x`) sees plain arrays;
 * - a record parameter of a device function, `(p: Particle)`, is one scalar parameter per field (by
 *   value, as Numba passes records), and a call passes the fields of a record element or local.
 * Anything else that would need a record as a value is CS2044 with what to write instead.
 */
import ts from "typescript";
import { Codes } from "../diagnostics/codes";
import { recordFieldsText, sameRecordFields, type RecordField } from "../dtypes/records";
import type { FunctionDecl } from "./module-info";
import type * as IR from "../ir/nodes";
import { forEachRootExpr, isPure, visitExpr } from "../ir/visit";
import { makeDiagnostic } from "../diagnostics/diagnostic";
import { isInt64, scalar, type ArrayType, type RecordType } from "../ir/types";
import { ATOMIC_DTYPES } from "./lower-atomics";
import { stripParensAndNonNull } from "./constants";
import { readRecordType } from "./type-annotations";
import { viewType } from "../ir/views";
import { fieldArraysMessage, RecordFieldArrayLowerer } from "./lower-record-storage";
import type { LoweringContext } from "./lower-context";

/** A record local: its type and one scalar variable per field. */
export interface RecordLocal {
  readonly record: RecordType;
  readonly fields: ReadonlyMap<string, IR.Var>;
  readonly mutable: boolean;
}

/** One record of a record array: the array (a choice's first candidate), its indices, its record type. */
interface RecordElement {
  readonly arr: IR.VarExpr & { type: ArrayType };
  readonly indices: readonly IR.Expr[];
  readonly record: RecordType;
  /** Set for an element of an array variable or `?:` of record arrays (lower-array-vars.ts). */
  readonly choice?: ArrayChoice;
}

type ArrayChoice = NonNullable<ReturnType<LoweringContext["arrayVars"]["choiceOfExpr"]>>;


export class RecordLowerer {
  /** Record locals (and record parameters by value) by the variable their name is bound to. */
  private readonly locals = new Map<IR.Var, RecordLocal>();
  /** Shared and local arrays of records (lower-record-storage.ts). */
  readonly fieldArrays: RecordFieldArrayLowerer;

  constructor(private readonly ctx: LoweringContext) {
    this.fieldArrays = new RecordFieldArrayLowerer(ctx);
  }

  /** The record array type of an array name (`ps`), else undefined. Looks the name up without lowering it. */
  recordArrayOf(base: ts.Expression): (ArrayType & { record: RecordType }) | undefined {
    const x = stripParensAndNonNull(base);
    // `(flag ? ps : qs)[i]`: a choice between record arrays (lower-array-vars.ts).
    if (ts.isConditionalExpression(x)) return this.recordArrayOf(x.whenTrue) ?? this.recordArrayOf(x.whenFalse);
    const b = ts.isIdentifier(x) ? this.ctx.lookup(x.text) : undefined;
    if (b?.k !== "var") return undefined;
    // An array variable (`const w = flag ? ps : qs`) holds arrays of its declared type.
    const t = b.arrayVar ? b.arrayVar.type : b.v.type;
    return t.kind === "array" && t.record ? (t as ArrayType & { record: RecordType }) : undefined;
  }

  /**
   * True for `ps[i]` (or `m[i][j]`, `v[j]` of a view) of a record array: an element that is a whole
   * record. A row of an N-D record array (`g[r]`, fewer indices than dimensions) is a view, not a record.
   */
  isRecordElement(e: ts.Expression): e is ts.ElementAccessExpression {
    const x = stripParensAndNonNull(e);
    if (!ts.isElementAccessExpression(x)) return false;
    const { base, indexNodes } = this.ctx.expr.splitElementAccess(x);
    const arr = this.recordArrayOf(base);
    if (!arr) return false;
    const b = ts.isIdentifier(base) ? this.ctx.lookup(base.text) : undefined;
    const rank = b?.k === "var" && b.view ? viewType(b.view).rank : arr.rank;
    return indexNodes.length >= rank;
  }

  /** The record local a name is bound to. */
  recordLocalOf(e: ts.Expression): RecordLocal | undefined {
    const x = stripParensAndNonNull(e);
    if (!ts.isIdentifier(x)) return undefined;
    const b = this.ctx.lookup(x.text);
    return b?.k === "var" ? this.locals.get(b.v) : undefined;
  }

  /** `ps[i].x` or `p.x`; undefined when `e` is no record field access. */
  lowerFieldAccess(e: ts.PropertyAccessExpression): IR.Expr | undefined {
    const obj = stripParensAndNonNull(e.expression);
    const name = e.name.text;
    const soa = this.fieldArrays.of(obj);
    if (soa && name === "length") return { k: "const", type: scalar("i32"), value: soa.shape[0]!, span: this.ctx.span(e) };
    const local = this.recordLocalOf(obj);
    if (local) {
      const v = local.fields.get(name);
      if (!v) return this.unknownField(e, local.record);
      return { k: "var", type: v.type, v, span: this.ctx.span(e) };
    }
    if (!this.isRecordElement(obj)) return undefined;
    const el = this.element(obj);
    if (!el) return this.ctx.error(e);
    const field = el.record.layout.fields.find((f) => f.name === name);
    if (!field) return this.unknownField(e, el.record);
    return this.fieldOf(el, field, e);
  }

  /** `const p = ps[i]` / `let p = ps[i]`: one local per field, each a copy of the element's field. */
  declareRecordCopy(d: ts.VariableDeclaration, name: string, init: ts.Expression, isConst: boolean): IR.Stmt[] {
    const el = this.element(init as ts.ElementAccessExpression);
    if (!el) {
      this.ctx.bind(name, { k: "poison" });
      return [];
    }
    const out: IR.Stmt[] = [];
    // The indices are evaluated once, before the fields are read (as a C++ struct copy would).
    const indices = el.indices.map((ix, k) => {
      if (ix.k === "const" || (ix.k === "var" && !ix.v.mutable)) return ix;
      const t = this.hiddenVar(`${name}_i${k}`, ix.type, d);
      out.push({ k: "decl", span: this.ctx.span(init), v: t, init: ix });
      return { k: "var", type: t.type, v: t, span: ix.span } as IR.VarExpr;
    });
    const fields = new Map<string, IR.Var>();
    for (const f of el.record.layout.fields) {
      const v = this.hiddenVar(`${name}_${f.name}`, scalar(f.dtype), d, !isConst);
      fields.set(f.name, v);
      out.push({ k: "decl", span: this.ctx.span(d), v, init: this.fieldOf({ ...el, indices }, f, init) });
    }
    // The name itself: a placeholder variable the record local is found by (never emitted).
    const self = this.ctx.newVar(name, scalar("i32"), false, false, d.name);
    this.locals.set(self, { record: el.record, fields, mutable: !isConst });
    return out;
  }

  /** The field copies of each record parameter taken by value (`p: Particle`, a one-record array): `p` is then a record local. */
  declareRecordParams(params: readonly IR.Var[]): IR.Stmt[] {
    const out: IR.Stmt[] = [];
    for (const p of params) {
      const t = p.type;
      if (t.kind !== "array" || !t.record || !t.byValue) continue;
      const arr: IR.VarExpr = { k: "var", type: t, v: p, span: p.span };
      const zero: IR.ConstExpr = { k: "const", type: scalar("i32"), value: 0, span: p.span };
      const fields = new Map<string, IR.Var>();
      for (const f of t.record.layout.fields) {
        const v: IR.Var = { id: this.ctx.nextVarId++, name: `${p.name}_${f.name}`, type: scalar(f.dtype), isParam: false, mutable: true, span: p.span };
        this.ctx.vars.push(v);
        fields.set(f.name, v);
        out.push({ k: "decl", span: p.span, v, init: { k: "index", type: scalar(f.dtype), array: arr, indices: [zero], field: f, span: p.span } });
      }
      // Like a parameter, the copy may be changed in the kernel (`p.x += 1`), which changes no caller's record.
      this.locals.set(p, { record: t.record, fields, mutable: true });
    }
    return out;
  }

  /**
   * A device function's record parameter `p: Particle`: by value, as Numba passes records, so one scalar
   * parameter per field (`p_x`, `p_y`, …, in field order; changing `p.x` changes no caller's record);
   * `p` is then a record local over them. Calls pass the fields (recordArgument).
   */
  declareFieldParams(name: string, record: RecordType, p: ts.ParameterDeclaration): IR.Var[] {
    const fields = new Map<string, IR.Var>();
    const vars = record.layout.fields.map((f) => {
      // Not bound to a name: the body reaches it only as `p.x`.
      const v: IR.Var = { id: this.ctx.nextVarId++, name: `${name}_${f.name}`, type: scalar(f.dtype), isParam: true, mutable: true, span: this.ctx.span(p.name) };
      this.ctx.vars.push(v);
      fields.set(f.name, v);
      return v;
    });
    const self = this.ctx.newVar(name, scalar("i32"), false, false, p.name);
    this.locals.set(self, { record, fields, mutable: true });
    return vars;
  }

  /** Per parameter of a device function, the record it takes by value (undefined: not a record); undefined when it takes none. */
  recordParamsOf(fn: FunctionDecl): (RecordType | undefined)[] | undefined {
    const module = this.ctx.host.front.moduleInfo(fn.file);
    if (!module || !fn.fn) return undefined;
    const recs = fn.fn.parameters.map((p) => {
      const r = p.type && ts.isTypeReferenceNode(p.type) ? readRecordType(this.ctx.host.front, module, p.type) : undefined;
      return r && !("problem" in r) ? r : undefined;
    });
    return recs.some((r) => r) ? recs : undefined;
  }

  /**
   * The field values of a record argument `a` for parameter `param` (a `record`) of device function
   * `fnName`, in field order: the fields of an element (`f(ps[i])`, `f(sh[j])`) or of a record local
   * (`f(p)`). Undefined (reported) for anything else.
   */
  recordArgument(a: ts.Expression, record: RecordType, param: string, fnName: string): IR.Expr[] | undefined {
    const r = stripParensAndNonNull(a);
    const local = this.recordLocalOf(r);
    const given = local ? local.record : this.isRecordElement(r) ? this.recordArrayOf(this.ctx.expr.splitElementAccess(r).base)!.record : undefined;
    if (!given) {
      this.ctx.report(Codes.RecordArgument, a, `parameter '${param}' of '${fnName}' takes a ${record.name} record: pass an element (ps[i]) or a record local (const p = ps[i]; ${fnName}(p))`);
      this.ctx.expr.lowerExpr(a);
      return undefined;
    }
    if (given.name !== record.name || !sameRecordFields(given.layout, record.layout)) {
      this.ctx.report(Codes.RecordArgument, a, `parameter '${param}' of '${fnName}' takes a ${record.name} record ${recordFieldsText(record.layout)}, but '${a.getText(this.ctx.sf)}' is a ${given.name} ${recordFieldsText(given.layout)}: copy the fields into a ${record.name} local record array (cuda.local.array(1, ${record.name})) and pass its element`);
      return undefined;
    }
    const span = this.ctx.span(a);
    if (local) return record.layout.fields.map((f) => ({ k: "var", type: scalar(f.dtype), v: local.fields.get(f.name)!, span }) as IR.VarExpr);
    const el = this.element(r as ts.ElementAccessExpression);
    if (!el) return undefined;
    // Each field is read with the element's indices: an index that calls or updates something would run once per field.
    if (el.indices.some((ix) => { let effect = false; visitExpr(ix, (e) => { if (e.k === "call" || e.k === "atomic") effect = true; }); return effect; })) {
      this.ctx.report(Codes.RecordUnsupported, a, `'${a.getText(this.ctx.sf)}' computes its index with a call or an atomic: copy the record into a local first (const p = ${a.getText(this.ctx.sf)}; ${fnName}(p))`);
      return undefined;
    }
    return record.layout.fields.map((f) => this.fieldOf(el, f, a));
  }

  /** `ps[j] = p`, `ps[j] = qs[i]`: one store per field. `p.x = v` on a `let` record local. */
  lowerRecordStore(target: ts.ElementAccessExpression, rhs: ts.Expression, node: ts.Node): IR.Stmt | undefined {
    const el = this.element(target);
    if (!el) return undefined;
    const span = this.ctx.span(node);
    const r = stripParensAndNonNull(rhs);
    // `ps[j] = f(…)` of a device function with a record result.
    const resultCall = this.recordResultCall(r);
    if (resultCall) {
      if (resultCall.record.name !== el.record.name || !sameRecordFields(resultCall.record.layout, el.record.layout)) {
        this.ctx.report(Codes.RecordAsValue, rhs, `'${rhs.getText(this.ctx.sf)}' is a ${resultCall.record.name} record, not a ${el.record.name}: copy the fields one by one`);
        return undefined;
      }
      const { stmts, fields } = this.callForRecord(resultCall, `${resultCall.fn.name}$result`, node);
      const store = (to: { arr: IR.VarExpr; indices: readonly IR.Expr[] }): IR.Stmt => ({ k: "block", span, body: el.record.layout.fields.map((f, k) => ({ k: "assign", span, target: this.fieldIndex(to, f, target), value: fields[k]! })) });
      const into = el.choice ? this.ctx.arrayVars.chooseStmt(el.choice, (a) => store({ arr: a, indices: el.indices }), span) : store(el);
      return { k: "block", span, body: into ? [...stmts, into] : stmts };
    }
    const local = this.recordLocalOf(r);
    const source = local ? local.record : this.isRecordElement(r) ? this.recordArrayOf(this.ctx.expr.splitElementAccess(r).base)!.record : undefined;
    if (!source) {
      this.ctx.report(Codes.RecordAsValue, rhs, `'${target.getText(this.ctx.sf)}' is a ${el.record.name} record: store a record local or another element into it, or assign its fields (${target.getText(this.ctx.sf)}.${el.record.layout.fields[0]!.name} = …)`);
      return undefined;
    }
    if (source.name !== el.record.name) {
      this.ctx.report(Codes.RecordAsValue, rhs, `'${rhs.getText(this.ctx.sf)}' is a ${source.name} record, not a ${el.record.name}: copy the fields one by one`);
      return undefined;
    }
    const from = local ? undefined : this.element(r as ts.ElementAccessExpression);
    if (!local && !from) return undefined;
    const values = el.record.layout.fields.map((f): IR.Expr => (local ? { k: "var", type: scalar(f.dtype), v: local.fields.get(f.name)!, span } : this.fieldOf(from!, f, rhs)));
    const stores = (to: { arr: IR.VarExpr; indices: readonly IR.Expr[] }): IR.Stmt => ({
      k: "block",
      span,
      body: el.record.layout.fields.map((f, k) => ({ k: "assign", span, target: this.fieldIndex(to, f, target), value: values[k]! })),
    });
    // Into an array variable's element: the chosen candidate's fields (an if/else over the candidates).
    if (el.choice) return this.ctx.arrayVars.chooseStmt(el.choice, (a) => stores({ arr: a, indices: el.indices }), span);
    return stores(el);
  }

  /** The field variable of `p.x` as an assignment target (a `let` record local). */
  fieldVariable(t: ts.PropertyAccessExpression): { v: IR.Var; local: RecordLocal } | "reported" | undefined {
    const local = this.recordLocalOf(t.expression);
    if (!local) return undefined;
    const v = local.fields.get(t.name.text);
    if (!v) {
      this.unknownField(t, local.record);
      return "reported";
    }
    if (!local.mutable) {
      this.ctx.report(Codes.InvalidAssignmentTarget, t, `'${t.expression.getText(this.ctx.sf)}' is a constant record copy: declare it with let to change its fields`);
      return "reported";
    }
    return { v, local };
  }

  /**
   * `cuda.atomic.add(ps, [i, "x"], v)`: an atomic on a numeric field of a record array's element, the
   * field named by a string literal after the indices (Numba's `cuda.atomic.add(ps[i:].x, …)` has no
   * TypeScript spelling; a string key keeps the array the first argument, as every atomic has it).
   */
  lowerFieldAtomic(op: IR.AtomicOp, call: ts.CallExpression, arr: IR.VarExpr & { type: ArrayType }, span: IR.Span): IR.Expr {
    const record = arr.type.record!;
    const target = stripParensAndNonNull(call.arguments[0]!);
    const tb = ts.isIdentifier(target) ? this.ctx.lookup(target.text) : undefined;
    if (!ts.isIdentifier(target) || (tb?.k === "var" && (tb.view || tb.arrayVar))) {
      this.ctx.report(Codes.RecordUnsupported, call.arguments[0]!, `atomics on record fields take the record array itself: cuda.atomic.${op}(ps, [i, "${record.layout.fields[0]!.name}"], value), with the view's offset added to i`);
      return this.ctx.error(call);
    }
    const idxNode = stripParensAndNonNull(call.arguments[1]!);
    const elements = ts.isArrayLiteralExpression(idxNode) ? idxNode.elements : [];
    const last = elements[elements.length - 1];
    const example = `cuda.atomic.${op}(${call.arguments[0]!.getText(this.ctx.sf)}, [i, "${record.layout.fields[0]!.name}"], value)`;
    if (!last || !ts.isStringLiteralLike(last) || elements.length !== arr.type.rank + 1) {
      this.ctx.report(Codes.RecordAsValue, idxNode, `an atomic on a record array updates one field: give the index and the field's name, ${example}`);
      return this.ctx.error(call);
    }
    const field = record.layout.fields.find((f) => f.name === last.text);
    if (!field) {
      this.ctx.report(Codes.RecordUnknownField, last, `record '${record.name}' has no field '${last.text}'; its fields are ${record.layout.fields.map((f) => f.name).join(", ")}`);
      return this.ctx.error(call);
    }
    if (!ATOMIC_DTYPES[op].includes(field.dtype)) {
      this.ctx.report(Codes.WrongDType, last, `cuda.atomic.${op} works on fields of ${ATOMIC_DTYPES[op].join(", ")}, not on the ${field.dtype} field '${field.name}'`);
      return this.ctx.error(call);
    }
    const soa = this.fieldArrays.byVar(arr.v);
    if (!soa && arr.type.space !== "global") {
      this.ctx.report(Codes.RecordUnsupported, call, `atomics on record fields work on global record arrays and on shared/local arrays of records in this version`);
      return this.ctx.error(call);
    }
    const indices = elements.slice(0, -1).map((n) => this.ctx.expr.lowerIndex(n));
    const operand = (n: ts.Expression) => {
      const v = this.ctx.conv.scalarOperand(this.ctx.expr.lowerExpr(n), n);
      return this.ctx.conv.convertImplicitly(v, field.dtype, `the ${field.dtype} field '${field.name}' (cuda.atomic.${op})`, n, isInt64(field.dtype) || (v.type.kind === "scalar" && isInt64(v.type.dtype)) ? n : undefined, true);
    };
    const value = operand(call.arguments[op === "compareAndSwap" ? 3 : 2]!);
    const expected = op === "compareAndSwap" ? operand(call.arguments[2]!) : undefined;
    if (soa) {
      const v = soa.fields.get(field.name)!;
      return { k: "atomic", type: scalar(field.dtype), op, array: { k: "var", type: v.type, v, span: arr.span }, indices, value, expected, span };
    }
    return { k: "atomic", type: scalar(field.dtype), op, array: arr, indices, value, expected, field, span };
  }

  /**
   * The safety net after lowering: no element of a record array may be read or written but through a
   * field. Array variables and `?:` over record arrays (lower-array-vars.ts) would otherwise read bytes.
   */
  checkRecordAccesses(body: readonly IR.Stmt[]): void {
    const seen = new Set<string>();
    forEachRootExpr(body, (root) =>
      visitExpr(root, (e) => {
        // A shared/local array of records is only reached through its elements (its fields are arrays of their own).
        if (e.k === "var" && this.fieldArrays.isPlaceholder(e.v)) {
          const key = `${e.span.start}:${e.span.end}`;
          if (seen.has(key)) return;
          seen.add(key);
          this.ctx.diags.add(makeDiagnostic(Codes.RecordUnsupported, e.span, fieldArraysMessage(e.v.name, this.fieldArrays.byVar(e.v)!)));
          return;
        }
        // A view of a record array passed to a device function would address its bytes, not its records.
        if (e.k === "intrinsic" && e.name === "arrayView" && e.type.kind === "array" && e.type.record) {
          this.ctx.diags.add(makeDiagnostic(Codes.RecordUnsupported, e.span, `a view of a record array cannot be passed to a device function in this version: pass the whole record array and an index (the view's offset added), or the element itself (f(v[i]))`));
          return;
        }
        if ((e.k !== "index" && e.k !== "atomic") || e.field || e.array.type.kind !== "array" || !e.array.type.record) return;
        const key = `${e.span.start}:${e.span.end}`;
        if (seen.has(key)) return;
        seen.add(key);
        this.ctx.diags.add(
          makeDiagnostic(Codes.RecordUnsupported, e.span, `records are read and written through fields of the record array itself (${e.array.v.name}[i].x); array variables, ?: and views of record arrays are not compiled in this version`),
        );
      }),
    );
  }

  /** A device function's record result: its type and one result array per field (declareResultParams). */
  private result: { record: RecordType; arrays: readonly IR.Var[] } | undefined;

  /** Whether the function being lowered returns a record. */
  get returnsRecord(): boolean {
    return this.result !== undefined;
  }

  /**
   * `(…): Particle => …`: a device function's record result, returned through one one-element array
   * per field that the caller passes after the arguments (its own local arrays: recordResultCall), so
   * every backend sees a void function writing arrays. `return q` stores q's fields there.
   */
  declareResultParams(record: RecordType, node: ts.Node): IR.Var[] {
    const arrays = record.layout.fields.map((f): IR.Var => {
      const v: IR.Var = { id: this.ctx.nextVarId++, name: `result.${f.name}`, type: { kind: "array", dtype: f.dtype, rank: 1, space: "local" }, isParam: true, mutable: false, span: this.ctx.span(node) };
      this.ctx.vars.push(v);
      return v;
    });
    this.result = { record, arrays };
    return arrays;
  }

  /** `return q` / `return ps[i]` in a function with a record result: the fields into the result arrays, then return. */
  lowerRecordReturn(expr: ts.Expression | undefined, node: ts.Node): IR.Stmt {
    const span = this.ctx.span(node);
    const r = this.result!;
    if (!expr) {
      this.ctx.report(Codes.MissingReturn, node, `this device function returns a ${r.record.name} record: return one (return p, return ps[i])`);
      return { k: "return", span };
    }
    const values = this.recordArgument(expr, r.record, "the result", this.ctx.decl.name);
    const zero: IR.ConstExpr = { k: "const", type: scalar("i32"), value: 0, span };
    const stores: IR.Stmt[] = (values ?? []).map((value, k) => {
      const arr = r.arrays[k]!;
      return { k: "assign", span, target: { k: "index", type: scalar(r.record.layout.fields[k]!.dtype), array: { k: "var", type: arr.type, v: arr, span }, indices: [zero], span }, value };
    });
    return { k: "block", span, body: [...stores, { k: "return", span }] };
  }

  /** The device function `e` calls and the record it returns, when `e` is such a call (`f(p)`). */
  private recordResultCall(e: ts.Expression): { fn: FunctionDecl; call: ts.CallExpression; record: RecordType } | undefined {
    const x = stripParensAndNonNull(e);
    if (!ts.isCallExpression(x) || !ts.isIdentifier(x.expression) || this.ctx.lookup(x.expression.text)) return undefined;
    const sym = this.ctx.host.front.resolveName(this.ctx.module, x.expression.text);
    if (sym?.kind !== "function" || sym.fn.kind !== "device") return undefined;
    const record = this.recordResultOf(sym.fn);
    return record ? { fn: sym.fn, call: x, record } : undefined;
  }

  /** The record a device function returns, if it returns one. */
  recordResultOf(fn: FunctionDecl): RecordType | undefined {
    const module = this.ctx.host.front.moduleInfo(fn.file);
    const t = fn.fn?.type;
    if (!module || !t || !ts.isTypeReferenceNode(t)) return undefined;
    const r = readRecordType(this.ctx.host.front, module, t);
    return r && !("problem" in r) ? r : undefined;
  }

  /**
   * A call of a function with a record result, made as a statement: one-element local arrays per field
   * (`q.x`, … named after `name`), the call with them after its arguments, and the field reads of the
   * result (each `arrays[k][0]`).
   */
  private callForRecord(c: { fn: FunctionDecl; call: ts.CallExpression; record: RecordType }, name: string, node: ts.Node): { stmts: IR.Stmt[]; fields: IR.Expr[] } {
    const span = this.ctx.span(node);
    const stmts: IR.Stmt[] = [];
    const arrays = c.record.layout.fields.map((f) => {
      const arrayType: ArrayType = { kind: "array", dtype: f.dtype, rank: 1, space: "local", shape: [1] };
      const v = this.hiddenVar(`${name}.${f.name}`, arrayType, node);
      stmts.push({ k: "arrayDecl", span, v, arrayType });
      return { k: "var", type: arrayType, v, span } as IR.VarExpr;
    });
    stmts.push({ k: "expr", span, expr: this.ctx.devices.lowerDeviceCall(c.fn, c.call, arrays) });
    const zero: IR.ConstExpr = { k: "const", type: scalar("i32"), value: 0, span };
    const fields = c.record.layout.fields.map((f, k): IR.Expr => ({ k: "index", type: scalar(f.dtype), array: arrays[k]!, indices: [zero], span }));
    return { stmts, fields };
  }

  /** `const q = f(…)` of a device function with a record result: q is a record local holding the result. */
  declareRecordResult(d: ts.VariableDeclaration, name: string, init: ts.Expression, isConst: boolean): IR.Stmt[] | undefined {
    const c = this.recordResultCall(init);
    if (!c) return undefined;
    const { stmts, fields: values } = this.callForRecord(c, `${name}$result`, d);
    const fields = new Map<string, IR.Var>();
    c.record.layout.fields.forEach((f, k) => {
      const v = this.hiddenVar(`${name}_${f.name}`, scalar(f.dtype), d, !isConst);
      fields.set(f.name, v);
      stmts.push({ k: "decl", span: this.ctx.span(d), v, init: values[k]! });
    });
    const self = this.ctx.newVar(name, scalar("i32"), false, false, d.name);
    this.locals.set(self, { record: c.record, fields, mutable: !isConst });
    return stmts;
  }

  /**
   * The body without the field copies no statement uses (`const p = ps[i]` that reads only `p.x`):
   * C++ compilers warn about such locals (NVRTC #177), and their reads change nothing (another field's
   * read of the same element is bounds-checked the same way).
   */
  dropUnusedFieldCopies(body: readonly IR.Stmt[]): IR.Stmt[] {
    const fieldVars = new Set<IR.Var>();
    for (const l of this.locals.values()) for (const v of l.fields.values()) fieldVars.add(v);
    if (!fieldVars.size) return [...body];
    const used = new Set<IR.Var>();
    forEachRootExpr(body, (root) => visitExpr(root, (e) => void (e.k === "var" && used.add(e.v))));
    const keep = (list: readonly IR.Stmt[]): IR.Stmt[] =>
      list
        .filter((st) => !(st.k === "decl" && fieldVars.has(st.v) && !used.has(st.v) && (!st.init || isPure(st.init))))
        .map((st): IR.Stmt => {
          if (st.k === "if") return { ...st, then: keep(st.then), else: st.else && keep(st.else) };
          if (st.k === "loop") return { ...st, init: keep(st.init), body: keep(st.body), update: keep(st.update) };
          if (st.k === "block") return { ...st, body: keep(st.body) };
          return st;
        });
    return keep(body);
  }

  /** CS2044 for a record element or local used where a value is needed. */
  reportRecordValue(e: ts.Expression): IR.Expr {
    const arr = ts.isElementAccessExpression(e) ? this.recordArrayOf(this.ctx.expr.splitElementAccess(e).base) : undefined;
    const rec = arr?.record ?? this.recordLocalOf(e)?.record;
    const field = rec?.layout.fields[0]?.name ?? "x";
    this.ctx.report(
      Codes.RecordAsValue,
      e,
      `'${e.getText(this.ctx.sf)}' is a whole ${rec?.name ?? "record"} record, which kernels only copy: read a field (${e.getText(this.ctx.sf)}.${field}), or copy it into a local (const p = ${e.getText(this.ctx.sf)}) and read p.${field}`,
    );
    return this.ctx.error(e);
  }

  private element(e: ts.ElementAccessExpression): RecordElement | undefined {
    const { base, indexNodes } = this.ctx.expr.splitElementAccess(e);
    const b = ts.isIdentifier(base) ? this.ctx.lookup(base.text) : undefined;
    if (this.ctx.arrayVars.namesChoice(base)) return this.choiceElement(e, base, indexNodes);
    if (b?.k === "var" && b.view) {
      // A view (`ps.subarray(a, b)`, a row `g[r]`): the element of the base it stands for (lower-views.ts).
      const r = this.ctx.expr.lowerElementAccess(e);
      if (!r || r.k !== "index" || r.array.type.kind !== "array" || !r.array.type.record) {
        if (r && r.type.kind === "array") this.ctx.report(Codes.RecordUnsupported, e, `'${e.getText(this.ctx.sf)}' is a row of records: index every dimension to reach one record`);
        return undefined;
      }
      return { arr: r.array as IR.VarExpr & { type: ArrayType }, indices: r.indices, record: r.array.type.record };
    }
    const r = this.ctx.expr.elementAccessArray(e);
    if (!r) return undefined;
    const record = r.arr.type.record!;
    if (r.indices.length !== r.arr.type.rank) {
      this.ctx.report(Codes.RecordUnsupported, e, `'${e.getText(this.ctx.sf)}' is a row of records: index every dimension to reach one record`);
      return undefined;
    }
    if (this.fieldArrays.isPlaceholder(r.arr.v)) return { arr: r.arr, indices: r.indices, record };
    if (r.arr.type.space !== "global") {
      this.ctx.report(Codes.RecordUnsupported, e, `'${r.arr.v.name}' is a ${r.arr.type.space} array of records, which this version does not compile: kernels take global record arrays (Array1D<${record.name}>, Array2D<${record.name}>) and shared/local ones (cuda.shared.array(n, ${record.name}))`);
      return undefined;
    }
    return { arr: r.arr, indices: r.indices, record };
  }

  /**
   * `src[i]` of an array variable or `(flag ? ps : qs)[i]` (lower-array-vars.ts): the element of the
   * chosen record array, all of whose candidates must be record arrays of one record type.
   */
  private choiceElement(e: ts.ElementAccessExpression, base: ts.Expression, indexNodes: readonly ts.Expression[]): RecordElement | undefined {
    const choice = this.ctx.arrayVars.choiceOfExpr(this.ctx.expr.lowerExpr(base));
    if (!choice) return undefined;
    const types = choice.candidates.map((c) => c.type as ArrayType);
    const record = types[0]!.record;
    if (!record || types.some((t) => !t.record || t.record.name !== record.name || !sameRecordFields(t.record.layout, record.layout))) {
      this.ctx.report(Codes.RecordUnsupported, e, `'${base.getText(this.ctx.sf)}' may hold arrays of different record types (or arrays that hold no records): an array variable of records holds record arrays of one type`);
      return undefined;
    }
    if (indexNodes.length !== types[0]!.rank) {
      this.ctx.report(Codes.RecordUnsupported, e, `'${e.getText(this.ctx.sf)}' is a row of records: index every dimension to reach one record`);
      return undefined;
    }
    const indices = indexNodes.map((n) => this.ctx.expr.lowerIndex(n));
    return { arr: choice.candidates[0]! as IR.VarExpr & { type: ArrayType }, indices, record, choice };
  }

  /**
   * `src[i].x = v` (and `op=`) through an array variable of records: an if/else of the candidates'
   * field stores, `store` making each; undefined when `t` is no such field.
   */
  lowerChoiceFieldStore(t: ts.PropertyAccessExpression, store: (target: IR.IndexExpr) => IR.Stmt | undefined, node: ts.Node): { stmt: IR.Stmt | undefined } | undefined {
    const obj = stripParensAndNonNull(t.expression);
    if (!ts.isElementAccessExpression(obj) || !this.ctx.arrayVars.namesChoice(this.ctx.expr.splitElementAccess(obj).base)) return undefined;
    const el = this.element(obj);
    if (!el?.choice) return { stmt: undefined };
    const field = el.record.layout.fields.find((f) => f.name === t.name.text);
    if (!field) {
      this.unknownField(t, el.record);
      return { stmt: undefined };
    }
    return { stmt: this.ctx.arrayVars.chooseStmt(el.choice, (a) => store(this.fieldIndex({ arr: a, indices: el.indices }, field, t)), this.ctx.span(node)) };
  }

  /** Field `field` of an element (of the chosen candidate when the element is a choice). */
  private fieldOf(el: RecordElement, field: RecordField, node: ts.Node): IR.Expr {
    if (!el.choice) return this.fieldIndex(el, field, node);
    return this.ctx.arrayVars.chooseExpr(el.choice, (a) => this.fieldIndex({ arr: a, indices: el.indices }, field, node), this.ctx.span(node));
  }

  /** Field `field` of an element: of the record array's bytes, or an element of a shared/local array's field array. */
  private fieldIndex(el: { arr: IR.VarExpr; indices: readonly IR.Expr[] }, field: RecordField, node: ts.Node): IR.IndexExpr {
    const soa = this.fieldArrays.byVar(el.arr.v);
    if (soa) {
      const v = soa.fields.get(field.name)!;
      const array: IR.VarExpr = { k: "var", type: v.type, v, span: el.arr.span };
      return { k: "index", type: scalar(field.dtype), array, indices: el.indices, span: this.ctx.span(node) };
    }
    return { k: "index", type: scalar(field.dtype), array: el.arr, indices: el.indices, field, span: this.ctx.span(node) };
  }

  private unknownField(e: ts.PropertyAccessExpression, record: RecordType): IR.Expr {
    this.ctx.report(Codes.RecordUnknownField, e.name, `record '${record.name}' has no field '${e.name.text}'; its fields are ${record.layout.fields.map((f) => f.name).join(", ")}`);
    return this.ctx.error(e);
  }

  /** A variable with no name in scope (a record local's field or an index computed once). */
  private hiddenVar(name: string, type: IR.Var["type"], node: ts.Node, mutable = false): IR.Var {
    const v: IR.Var = { id: this.ctx.nextVarId++, name, type, isParam: false, mutable, span: this.ctx.span(node) };
    this.ctx.vars.push(v);
    return v;
  }
}
