/**
 * Shared and local arrays of records (docs/kernel-language.md#records): `cuda.shared.array(n, Particle)`
 * and `cuda.local.array(n, Particle)` are one array per field (a structure of arrays, `sh.x`, `sh.y`, …),
 * since no program reads a shared or local record's bytes. The name is bound to a placeholder variable
 * (never emitted) through which lower-records.ts reaches the field arrays of an element; any other use
 * of the placeholder is CS2041 (its safety net).
 */
import ts from "typescript";
import { Codes } from "../diagnostics/codes";
import type * as IR from "../ir/nodes";
import { scalar, type ArrayType, type RecordType } from "../ir/types";
import { stripParensAndNonNull } from "./constants";
import type { LoweringContext } from "./lower-context";
import { readRecordType } from "./type-annotations";

/** A shared or local array of records: one array per field, all of the declared shape. */
export interface RecordFieldArrays {
  readonly record: RecordType;
  readonly fields: ReadonlyMap<string, IR.Var>;
  readonly shape: readonly number[];
  readonly space: "shared" | "local";
}

export class RecordFieldArrayLowerer {
  /** By the placeholder variable each name is bound to. */
  private readonly arrays = new Map<IR.Var, RecordFieldArrays>();

  constructor(private readonly ctx: LoweringContext) {}

  /** The field arrays of a placeholder variable. */
  byVar(v: IR.Var): RecordFieldArrays | undefined {
    return this.arrays.get(v);
  }

  /** Whether `v` is a placeholder (a use of it outside an element is CS2041). */
  isPlaceholder(v: IR.Var): boolean {
    return this.arrays.has(v);
  }

  /** The field arrays a name is bound to (`sh` of `const sh = cuda.shared.array(n, Particle)`). */
  of(e: ts.Expression): RecordFieldArrays | undefined {
    const x = stripParensAndNonNull(e);
    if (!ts.isIdentifier(x)) return undefined;
    const b = this.ctx.lookup(x.text);
    return b?.k === "var" ? this.arrays.get(b.v) : undefined;
  }

  /** CS2041 for a shared/local array of records used as a whole (`f(sh)`): it is only reached through its elements. */
  reportWhole(e: ts.Expression): IR.Expr {
    const name = e.getText(this.ctx.sf), soa = this.of(e)!;
    this.ctx.report(Codes.RecordUnsupported, e, fieldArraysMessage(name, soa));
    return this.ctx.error(e);
  }

  /** `sh.shape[d]` of a shared/local array of records: its constant extent; undefined for anything else. */
  shapeAccess(e: ts.ElementAccessExpression): IR.Expr | undefined {
    const base = stripParensAndNonNull(e.expression);
    if (!ts.isPropertyAccessExpression(base) || base.name.text !== "shape") return undefined;
    const soa = this.of(base.expression);
    if (!soa) return undefined;
    const d = this.ctx.foldConst(e.argumentExpression);
    if (!d || typeof d.value !== "number" || !Number.isInteger(d.value) || d.value < 0 || d.value >= soa.shape.length) {
      this.ctx.report(Codes.NotConstant, e.argumentExpression, `index .shape with a constant dimension from 0 to ${soa.shape.length - 1}`);
      return this.ctx.error(e);
    }
    return { k: "const", type: scalar("i32"), value: soa.shape[d.value]!, span: this.ctx.span(e) };
  }

  /** The record of a dtype argument naming a record interface (`cuda.shared.array(n, Particle)`), reported if it is no plain record. */
  recordDTypeArg(e: ts.Expression): RecordType | "reported" | undefined {
    const x = stripParensAndNonNull(e);
    if (!ts.isIdentifier(x) || this.ctx.module.cudascript.has(x.text) || this.ctx.lookup(x.text)) return undefined;
    const rec = readRecordType(this.ctx.host.front, this.ctx.module, ts.factory.createTypeReferenceNode(x.text));
    if (!rec) return undefined;
    if ("problem" in rec) {
      this.ctx.report(Codes.WrongDType, e, rec.problem);
      return "reported";
    }
    return rec;
  }

  /**
   * `const sh = cuda.shared.array(n, Particle)` / `cuda.local.array(n, Particle)`: one array per field
   * (`sh.x`, `sh.y`, … of the same shape), declared in field order; `sh` is bound to a placeholder
   * through which only elements' fields, copies and stores reach the field arrays.
   */
  declare(d: ts.VariableDeclaration, name: string, space: "shared" | "local", shape: number[], record: RecordType, call: ts.CallExpression): IR.Stmt[] {
    const span = this.ctx.span(d);
    if (space === "shared" && shape.length === 1 && shape[0] === 0) {
      // Dynamic shared arrays all start at the one dynamic buffer: field arrays there would overlap.
      this.ctx.report(Codes.RecordUnsupported, call, `dynamic shared memory (cuda.shared.array(0, ${record.name})) cannot hold records: give the array a constant size (cuda.shared.array(TPB, ${record.name}) with a module const TPB), or declare one dynamic array per field`);
      this.ctx.bind(name, { k: "poison" });
      return [];
    }
    const rank = Math.min(Math.max(shape.length, 1), 3) as 1 | 2 | 3;
    if (space === "local") {
      const bytes = shape.reduce((a, b) => a * b, 1) * record.layout.size;
      if (bytes > 16 * 1024)
        this.ctx.report(Codes.LocalArrayTooLarge, call, `this local array takes ${bytes} bytes per thread; local memory is slow and large arrays spill: use shared memory or tile the work`);
    }
    const out: IR.Stmt[] = [];
    const fields = new Map<string, IR.Var>();
    for (const f of record.layout.fields) {
      const arrayType: ArrayType = { kind: "array", dtype: f.dtype, rank, space, shape };
      // Named `sh.x`: the sanitizer and the debugger show the field (every backend makes it an identifier).
      const v: IR.Var = { id: this.ctx.nextVarId++, name: `${name}.${f.name}`, type: arrayType, isParam: false, mutable: false, span: this.ctx.span(d) };
      this.ctx.vars.push(v);
      fields.set(f.name, v);
      out.push({ k: "arrayDecl", span, v, arrayType });
    }
    const self = this.ctx.newVar(name, { kind: "array", dtype: "u8", rank, space, shape, record }, false, false, d.name);
    this.arrays.set(self, { record, fields, shape, space });
    return out;
  }
}

/** What to write instead of using a shared/local array of records as a whole. */
export function fieldArraysMessage(name: string, soa: RecordFieldArrays): string {
  const f = soa.record.layout.fields[0]!.name;
  return `'${name}' is a ${soa.space} array of records, used through its elements (${name}[i].${f}, const p = ${name}[i], ${name}[i] = p): pass an element's record (f(${name}[i])) or its fields to a device function, not the whole array`;
}
