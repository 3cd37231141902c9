/**
 * C++ expressions as text with their C precedence, so generated code has only the parentheses it needs.
 * Imports nothing at run time: the intrinsic records (intrinsics/) build their CUDA lowerings with it.
 */
import type * as IR from "../ir/nodes";

/** C operator precedence (higher binds tighter). */
export const P = { primary: 16, unary: 15, mul: 13, add: 12, shift: 11, rel: 10, eq: 9, band: 8, bxor: 7, bor: 6, land: 5, lor: 4, cond: 3, assign: 2 };
const BITWISE = new Set([P.shift, P.band, P.bxor, P.bor]);

export interface Out {
  t: string;
  p: number;
}

export const ARITH_PREC: Record<IR.ArithOp, number> = {
  "*": P.mul, "/": P.mul, "%": P.mul, "+": P.add, "-": P.add, "<<": P.shift, ">>": P.shift, ">>>": P.shift, "&": P.band, "^": P.bxor, "|": P.bor,
};
export const COMPARE_PREC: Record<IR.CompareOp, number> = { "<": P.rel, "<=": P.rel, ">": P.rel, ">=": P.rel, "==": P.eq, "!=": P.eq };

/** `o` as an operand that needs at least precedence `min`; extra parentheses where C mixes confusingly. */
export function operand(o: Out, min: number, parent = min): string {
  const confusing = (BITWISE.has(parent) && o.p !== parent && o.p >= P.lor && o.p <= P.mul) || (parent === P.lor && o.p === P.land);
  return o.p >= min && !confusing ? o.t : `(${o.t})`;
}

/** Right operand of a binary operator: also parenthesise a leading minus (`a - (-1)`). */
export function rightOperand(o: Out, opPrec: number): string {
  const s = operand(o, opPrec + 1, opPrec);
  return s.startsWith("-") ? `(${s})` : s;
}

export function bin(l: Out, op: string, r: Out, prec: number): Out {
  return { t: `${operand(l, prec)} ${op} ${rightOperand(r, prec)}`, p: prec };
}

export function call(name: string, args: readonly string[]): Out {
  return { t: `${name}(${args.join(", ")})`, p: P.primary };
}

export function cast(type: string, o: Out): Out {
  return { t: `(${type})${operand(o, P.unary)}`, p: P.unary };
}
