/**
 * `cuda.random.xoroshiro128p*(states, index)` in kernels (docs/kernel-language.md#random-numbers),
 * called by the call lowerer for `cuda.random.*`. A draw becomes an IR
 * `random` node, which reads and writes row `index` of the state array (not a pure intrinsic).
 * Mistakes are coded: CS2027 for an argument that is not a state array, CS2028 for an index that is
 * not an integer.
 */
import ts from "typescript";
import { Codes } from "../diagnostics/codes";
import type * as IR from "../ir/nodes";
import { RANDOM_DRAWS, randomDrawType, type RandomDraw } from "../ir/random";
import { isInt, scalar, typeToString } from "../ir/types";
import { POISON, WEAK } from "./lower-base";
import type { LoweringContext } from "./lower-context";

const STATES_ADVICE =
  "pass the state array, a parameter declared `states: Xoroshiro128pStates` (import type { Xoroshiro128pStates } from \"cudascript\"; a [n, 2] u64 array) that the host fills with cuda.random.createXoroshiro128pStates(n, seed)";

function article(noun: string): string {
  return `${/^[aeiou]/i.test(noun) ? "an" : "a"} ${noun}`;
}

export class RandomLowerer {
  constructor(private readonly ctx: LoweringContext) {}

  /** `cuda.random.<name>(states, index)`. */
  lowerRandom(name: string, call: ts.CallExpression): IR.Expr {
    if (!(RANDOM_DRAWS as readonly string[]).includes(name)) {
      this.ctx.expr.reportUnknownCuda(`random.${name}`, call.expression);
      for (const a of call.arguments) this.ctx.expr.lowerExpr(a);
      return this.ctx.error(call);
    }
    const draw = name as RandomDraw;
    const what = `cuda.random.${draw}`;
    if (!this.ctx.calls.expectArgs(call, 2, 2, what)) return this.ctx.error(call);
    const statesNode = call.arguments[0]!;
    const states = this.ctx.expr.lowerExpr(statesNode);
    const index = this.lowerRandomIndex(call.arguments[1]!, what);
    if (POISON.has(states)) return this.ctx.error(call);
    const t = states.type;
    if (states.k !== "var" || t.kind !== "array" || t.dtype !== "u64" || t.rank !== 2 || t.space === "const") {
      const got = t.kind === "array" ? (t.space === "const" ? "a constant array, which kernels cannot write" : article(typeToString(t))) : `${article(typeToString(t))} value`;
      this.ctx.report(Codes.RandomStatesArgument, statesNode, `the first argument of ${what} is the generator state array, not ${got}: ${STATES_ADVICE}`);
      return this.ctx.error(call);
    }
    if (!index) return this.ctx.error(call);
    return { k: "random", type: scalar(randomDrawType(draw)), draw, states, index, span: this.ctx.span(call) };
  }

  /** The state index: i32/u32 or i64 (u64 as i64, narrower integers as i32); undefined after CS2028. */
  private lowerRandomIndex(node: ts.Expression, what: string): IR.Expr | undefined {
    const v = this.ctx.expr.lowerExpr(node);
    if (POISON.has(v)) return undefined;
    const text = node.getText(this.ctx.sf);
    if (v.type.kind === "scalar") {
      const d = v.type.dtype;
      if (v.k === "const" && WEAK.has(v) && typeof v.value === "number") {
        if (Number.isInteger(v.value) && v.value >= 0 && v.value <= 2147483647) return this.ctx.conv.convertTo(v, "i32");
      } else if (d === "i32" || d === "u32" || d === "i64") return v;
      else if (d === "u64") return this.ctx.conv.convertTo(v, "i64");
      else if (isInt(d)) return this.ctx.conv.convertTo(v, "i32");
      else if (v.k === "const" && typeof v.value === "bigint") return this.ctx.conv.convertTo(v, "i64");
    }
    const hint = v.type.kind === "scalar" && v.type.dtype !== "bool" ? `write Math.floor(${text}) | 0, or keep the index in an i32 variable (e.g. cuda.grid(1))` : "pass the thread's index, e.g. cuda.grid(1)";
    this.ctx.report(Codes.RandomStateIndex, node, `the index of ${what} picks the state to draw from: an integer (i32 or i64), not ${v.type.kind === "scalar" && v.k === "const" && WEAK.has(v) ? String(v.value) : typeToString(v.type)}: ${hint}`);
    return undefined;
  }
}
