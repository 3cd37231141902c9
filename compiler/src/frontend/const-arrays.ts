/**
 * Reading the data of a module constant array for `cuda.const.arrayLike`: a typed array of literal
 * values of any dtype — numbers, bigints for BigInt64Array / BigUint64Array, interleaved parts wrapped
 * in a Complex64Array / Complex128Array — folded exactly, with every element checked against its dtype.
 */
import ts from "typescript";
import { f16round } from "../ir/f16";
import { wrapNumber } from "../dtypes/table";
import { complexPart, int64Range, intRange, isComplex, isInt, isInt64, typedArrayName, TYPED_ARRAY_DTYPES, type ComplexDType, type DType } from "../ir/types";
import { ConstantFolder } from "./constants";

/** An element that does not fit its array's dtype (CS2025): where it is and what to write instead. */
export interface ConstElementProblem {
  readonly node: ts.Expression;
  readonly message: string;
}

export interface ConstArrayData {
  readonly dtype: DType;
  /** Row-major elements: bigints for i64/u64, f16-rounded numbers for f16, interleaved (re, im) parts for complex. */
  readonly values: (number | bigint)[];
  readonly elementProblems: readonly ConstElementProblem[];
}

/** Elements of a constant array's values (a complex element takes two values, its parts). */
export function constElementCount(dtype: DType, values: readonly unknown[]): number {
  return isComplex(dtype) ? values.length / 2 : values.length;
}

const COMPLEX_CTORS: ReadonlyMap<string, ComplexDType> = new Map([
  ["Complex64Array", "c64"],
  ["Complex128Array", "c128"],
]);

/**
 * `new Float32Array([1, 2, 3])` / `Float32Array.of(1, 2, 3)` / `Float32Array.from([1, 2])` with literal
 * values, or `new Complex64Array(new Float32Array([re0, im0, …]))` / `Complex64Array.wrap(…)`.
 * `undefined` when `init` is none of these; `{ problem }` when it is one that cannot be constant data.
 */
export function readConstArray(init: ts.Expression): ConstArrayData | { problem: string } | undefined {
  while (ts.isParenthesizedExpression(init) || ts.isAsExpression(init) || ts.isSatisfiesExpression(init)) init = init.expression;
  const complex = readComplexArray(init);
  if (complex) return complex;
  let ctor: string | undefined;
  let elements: readonly ts.Expression[] | undefined;
  if (ts.isNewExpression(init) && ts.isIdentifier(init.expression)) {
    ctor = init.expression.text;
    const arg = init.arguments?.[0];
    if (arg && ts.isArrayLiteralExpression(arg)) elements = arg.elements;
  } else if (ts.isCallExpression(init) && ts.isPropertyAccessExpression(init.expression) && ts.isIdentifier(init.expression.expression)) {
    ctor = init.expression.expression.text;
    if (init.expression.name.text === "of") elements = init.arguments;
    else if (init.expression.name.text === "from" && init.arguments[0] && ts.isArrayLiteralExpression(init.arguments[0])) elements = init.arguments[0].elements;
  }
  const dtype = ctor ? TYPED_ARRAY_DTYPES.get(ctor) : undefined;
  if (!dtype || !elements || isComplex(dtype)) return undefined;
  // NaN and Infinity are the globals (read-only, so a module cannot rebind them): float data may hold them.
  const folder = new ConstantFolder((name) => (name === "NaN" ? { value: NaN, isInt: false } : name === "Infinity" ? { value: Infinity, isInt: false } : undefined));
  const values: (number | bigint)[] = [];
  const elementProblems: ConstElementProblem[] = [];
  for (const el of elements) {
    const v = folder.fold(el)?.value;
    if (typeof v === "bigint" && isInt64(dtype)) {
      const [lo, hi] = int64Range(dtype);
      if (v < lo || v > hi) elementProblems.push({ node: el, message: `${v}n does not fit in ${dtype} (${lo}n … ${hi}n): a ${ctor} would store ${dtype === "i64" ? BigInt.asIntN(64, v) : BigInt.asUintN(64, v)}n; write a value in range` });
      values.push(dtype === "i64" ? BigInt.asIntN(64, v) : BigInt.asUintN(64, v));
    } else if (typeof v === "number" && !isInt64(dtype)) {
      values.push(numberElement(dtype, ctor!, v, el, elementProblems));
    } else if (typeof v === "number" || typeof v === "bigint") {
      return { problem: isInt64(dtype) ? `a ${ctor} holds bigints: write ${el.getText()}n, not ${el.getText()}` : `a ${ctor} holds numbers: write ${String(v)}, not ${el.getText()}` };
    } else return undefined; // not a constant: the caller says "a typed array of literal numbers"
  }
  return { dtype, values, elementProblems };
}

/** A number element as the array stores it, with a problem when an integer array cannot hold it exactly. */
function numberElement(dtype: DType, ctor: string, v: number, el: ts.Expression, problems: ConstElementProblem[]): number {
  if (dtype === "f16") return f16round(v);
  if (!isInt(dtype)) return v;
  const [lo, hi] = intRange(dtype);
  // What the typed array would store (truncated, then wrapped to the element's bits): the same on every backend.
  const stored = wrapNumber(dtype, v);
  if (!Number.isInteger(v) || v < lo || v > hi)
    problems.push({ node: el, message: `${el.getText()} does not fit in ${dtype} (whole numbers ${lo} … ${hi}): a ${ctor} would store ${stored}; write a value in range` });
  return stored;
}

/** `new Complex64Array(new Float32Array([…]))` or `Complex64Array.wrap(new Float32Array([…]))` (Complex128Array: Float64Array). */
function readComplexArray(init: ts.Expression): ConstArrayData | { problem: string } | undefined {
  let ctor: string | undefined;
  let arg: ts.Expression | undefined;
  if (ts.isNewExpression(init) && ts.isIdentifier(init.expression)) {
    ctor = init.expression.text;
    arg = init.arguments?.[0];
  } else if (ts.isCallExpression(init) && ts.isPropertyAccessExpression(init.expression) && ts.isIdentifier(init.expression.expression) && init.expression.name.text === "wrap") {
    ctor = init.expression.expression.text;
    arg = init.arguments[0];
  }
  const dtype = ctor ? COMPLEX_CTORS.get(ctor) : undefined;
  if (!dtype) return undefined;
  const parts = typedArrayName(complexPart(dtype));
  const example = `${ctor}.wrap(new ${parts}([re0, im0, re1, im1, …]))`;
  const data = arg ? readConstArray(arg) : undefined;
  if (!data || "problem" in data || data.dtype !== complexPart(dtype))
    return { problem: `a constant ${ctor} holds interleaved parts of literal numbers: write ${example}` };
  if (data.values.length % 2 !== 0) return { problem: `a ${ctor} takes an even number of parts (re, im per element), got ${data.values.length}: ${example}` };
  return { dtype, values: data.values, elementProblems: data.elementProblems };
}
