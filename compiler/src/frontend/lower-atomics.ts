/**
 * `cuda.atomic.<op>(array, index, value)` (and `compareAndSwap`): the dtypes each atomic supports
 * (CUDA's), complex and f16 arrays reported with what to write instead, and the access taken through
 * an array variable (lower-array-vars.ts) or a view (lower-views.ts) to the real array.
 */
import ts from "typescript";
import { Codes } from "../diagnostics/codes";
import type * as IR from "../ir/nodes";
import { isComplex, isInt64, scalar, typeToString, type DType } from "../ir/types";
import { indicesThrough } from "../ir/views";
import { stripParensAndNonNull } from "./constants";
import type { LoweringContext } from "./lower-context";

export const ATOMIC_DTYPES: Record<IR.AtomicOp, readonly DType[]> = {
  add: ["i32", "u32", "i64", "u64", "f32", "f64", "f16"],
  sub: ["i32", "u32", "i64", "u64", "f32", "f64", "f16"],
  exch: ["i32", "u32", "i64", "u64", "f32"],
  max: ["i32", "u32", "i64", "u64", "f32", "f64"],
  min: ["i32", "u32", "i64", "u64", "f32", "f64"],
  // Numba's NaN-ignoring max/min; on integers (no NaN) the same as max/min.
  nanmax: ["i32", "u32", "i64", "u64", "f32", "f64"],
  nanmin: ["i32", "u32", "i64", "u64", "f32", "f64"],
  and: ["i32", "u32", "i64", "u64"],
  or: ["i32", "u32", "i64", "u64"],
  xor: ["i32", "u32", "i64", "u64"],
  inc: ["u32"],
  dec: ["u32"],
  compareAndSwap: ["i32", "u32", "i64", "u64"],
};

export function typedArrayNameOf(d: DType): string {
  return typeToString({ kind: "array", dtype: d, rank: 1, space: "global" });
}

export class AtomicLowerer {
  constructor(private readonly ctx: LoweringContext) {}

  lowerAtomic(opName: string, call: ts.CallExpression): IR.Expr {
    const span = this.ctx.span(call);
    if (!(opName in ATOMIC_DTYPES)) {
      this.ctx.report(Codes.UnknownCudaApi, call.expression, `cuda.atomic.${opName} does not exist: the atomics are ${Object.keys(ATOMIC_DTYPES).join(", ")}`);
      return this.ctx.error(call);
    }
    const op = opName as IR.AtomicOp;
    const nargs = op === "compareAndSwap" ? 4 : 3;
    if (!this.ctx.calls.expectArgs(call, nargs, nargs, `cuda.atomic.${op}`)) return this.ctx.error(call);
    const arrNode = call.arguments[0]!;
    const arr = this.ctx.views.lowerArrayValue(arrNode);
    if (arr.type.kind !== "array" || arr.k !== "var") {
      this.ctx.report(Codes.NotAnArray, arrNode, `the first argument of cuda.atomic.${op} is the array to update`);
      return this.ctx.error(call);
    }
    const at = arr.type;
    if (at.record) return this.ctx.records.lowerFieldAtomic(op, call, arr as IR.VarExpr & { type: typeof at }, span);
    if (at.space === "const" || at.space === "local") {
      this.ctx.report(Codes.WrongDType, arrNode, `atomics work on global and shared arrays, not ${at.space} arrays`);
    }
    if (isComplex(at.dtype)) {
      // CUDA has no atomic on float2/double2: a complex element is written whole (CS2024).
      const a = arrNode.getText(this.ctx.sf);
      this.ctx.report(
        Codes.ComplexPartWrite,
        arrNode,
        `CUDA has no atomic operations on complex numbers (${typeToString(at)}): keep the real and imaginary parts in two real arrays and cuda.atomic.${op} each (e.g. cuda.atomic.${op}(${a}Re, i, z.re)), or reduce per block first`,
      );
      return this.ctx.error(call);
    }
    if (at.dtype === "f16" && !ATOMIC_DTYPES[op].includes("f16")) {
      // CUDA's only half atomic is atomicAdd (atom.add.noftz.f16, sm_70+); sub is the add of the negation.
      this.ctx.report(Codes.F16AtomicUnsupported, arrNode, `CUDA has no f16 cuda.atomic.${op}: only cuda.atomic.add and cuda.atomic.sub work on f16 arrays; keep this array in f32 (Float32Array) for cuda.atomic.${op}`);
    } else if (!ATOMIC_DTYPES[op].includes(at.dtype)) {
      this.ctx.report(Codes.WrongDType, arrNode, `cuda.atomic.${op} works on ${ATOMIC_DTYPES[op].map(typedArrayNameOf).join(", ")}, not ${typeToString(at)}`);
    }
    const idxNode = stripParensAndNonNull(call.arguments[1]!);
    let indices: IR.Expr[];
    if (ts.isArrayLiteralExpression(idxNode)) indices = idxNode.elements.map((n) => this.ctx.expr.lowerIndex(n));
    else indices = [this.ctx.expr.lowerIndex(idxNode)];
    if (indices.length !== at.rank) {
      this.ctx.report(Codes.WrongIndexCount, idxNode, at.rank === 1 ? "index a 1-D array with one index" : `index a ${at.rank}-D array with [${"i, j, k".slice(0, at.rank * 3 - 2)}]`);
      return this.ctx.error(call);
    }
    const d = at.dtype;
    const valueIdx = op === "compareAndSwap" ? 3 : 2;
    // A bigint array takes bigint values (CS2018 for a number, as TypeScript's overloads refuse it).
    const operand = (n: ts.Expression) => {
      const v = this.ctx.conv.scalarOperand(this.ctx.expr.lowerExpr(n), n);
      return this.ctx.conv.convertImplicitly(v, d, `${typeToString(at)} (cuda.atomic.${op})`, n, isInt64(d) || (v.type.kind === "scalar" && isInt64(v.type.dtype)) ? n : undefined, true);
    };
    const value = operand(call.arguments[valueIdx]!);
    const expected = op === "compareAndSwap" ? operand(call.arguments[2]!) : undefined;
    // Through an array variable: the chosen array's (lower-array-vars.ts); a view: the base's (lower-views.ts).
    const chosen = this.ctx.arrayVars.atomicThroughChoice(arr, (a) => ({ k: "atomic", type: scalar(d), op, array: a, indices, value, expected, span }), span);
    if (chosen) return chosen;
    const view = this.ctx.views.viewOfExpr(arr);
    if (view) return { k: "atomic", type: scalar(d), op, array: view.base, indices: indicesThrough(view, indices, span), value, expected, span };
    return { k: "atomic", type: scalar(d), op, array: arr, indices, value, expected, span };
  }
}
