/**
 * JavaScript for i64/u64 operations in simulator modules: the one place that spells them.
 *
 * A value is always a bigint within its type's range (i64: -2^63 … 2^63 - 1, u64: 0 … 2^64 - 1), and
 * every result that can leave the range is wrapped inline in `BigInt.asIntN(64, …)` /
 * `BigInt.asUintN(64, …)`. V8's optimizing compiler (TurboFan) lowers exactly that pattern, over
 * BigInt64Array / BigUint64Array loads and stores and bigint constants, to native 64-bit machine
 * arithmetic without allocation, so i64 kernels run close to their i32 twins. Only operations whose
 * semantics need a branch (division by zero, shift counts outside 0 … 63, float → integer truncation)
 * call the runtime's small helpers (`$L` = rt.i64, runtime/src/simulator/int64.ts).
 */
import { DTYPES } from "../dtypes/table";
import type * as IR from "../ir/nodes";
import type { DType, Int64DType } from "../ir/types";

/** The module-level binding of the helpers, added once by the emitter when a module uses them. */
export const INT64_HELPERS = { name: "$L", code: "const $L = rt.i64;" } as const;

/** Whether emitted code calls the helpers, so the module needs INT64_HELPERS. */
export function usesInt64Helpers(js: string): boolean {
  return js.includes("$L.");
}

/** `x` wrapped to the 64 bits of `dtype`. */
function wrap(dtype: Int64DType, x: string): string {
  return `BigInt.as${dtype === "i64" ? "Int" : "Uint"}N(64, ${x})`;
}

/** An i64/u64 literal: a bigint literal (`123n`, `(-5n)`), wrapped to the type's range. */
export function literal64(value: number | boolean | bigint, dtype: Int64DType): string {
  // A string is a bigint read back from serialized IR (artifact.ts serializeIr).
  let b = typeof value === "bigint" || typeof value === "string" ? BigInt(value) : BigInt(typeof value === "boolean" ? Number(value) : Math.trunc(value));
  b = dtype === "i64" ? BigInt.asIntN(64, b) : BigInt.asUintN(64, b);
  return b < 0n ? `(${b}n)` : `${b}n`;
}

/** The zero of an i64/u64 (an uninitialised declaration, a fill). */
export const ZERO64 = "0n";

/** A literal shift count 0 … 63, as literal64 spells it. */
function constantCount(b: string): boolean {
  const m = /^(\d+)n$/.exec(b);
  return m !== null && Number(m[1]) <= 63;
}

const SUFFIX: Record<Int64DType, string> = { i64: "I", u64: "U" };

/**
 * Operations whose result, modulo 2^64, depends only on their operands modulo 2^64: + - * & | ^, << by
 * a constant count 0 … 63, unary - and ~. Where such an operation is an operand of one that wraps
 * (binary64's + - * and <<, unary64's -, a wrap between i64 and u64), it is emitted without a wrap of
 * its own (`modular64`), and so are its own operands of that kind: `(a * k + b) ^ c` is one
 * `BigInt.asIntN(64, …)`, not three. Same values (the outer wrap takes the result modulo 2^64), less
 * code, and V8 turns the whole chain into 64-bit machine arithmetic (bench/sim.mjs "int mix i64": three
 * nested wraps ran ~1.4× slower than one).
 */
export function modular64(op: IR.ArithOp, a: string, b: string): string | undefined {
  switch (op) {
    case "+":
    case "-":
    case "*":
    case "&":
    case "|":
    case "^":
      return `(${a} ${op} ${b})`;
    case "<<":
      return constantCount(b) ? `(${a} << ${b})` : undefined;
  }
  return undefined;
}

/** Whether binary64 wraps the result of `op` (then its left operand, and for + - * its right, may be modular64). */
export function wraps64(op: IR.ArithOp, b: string): boolean {
  return op === "+" || op === "-" || op === "*" || (op === "<<" && constantCount(b));
}

export function binary64(op: IR.ArithOp, dtype: Int64DType, a: string, b: string): string {
  switch (op) {
    case "+":
    case "-":
    case "*":
      return wrap(dtype, `${a} ${op} ${b}`);
    // Two values in range give a value in range: nothing to wrap.
    case "&":
    case "|":
    case "^":
      return `(${a} ${op} ${b})`;
    case "<<":
      return constantCount(b) ? wrap(dtype, `${a} << ${b}`) : `$L.shl${SUFFIX[dtype]}(${a}, ${b})`;
    case ">>":
      return constantCount(b) ? `(${a} >> ${b})` : `$L.shr${SUFFIX[dtype]}(${a}, ${b})`;
    case "/":
      return `$L.div${SUFFIX[dtype]}(${a}, ${b})`;
    case "%":
      return `$L.rem(${a}, ${b})`;
  }
  throw new Error(`CudaScript simulator: ${op} on ${dtype}`);
}

export function unary64(op: "-" | "~", dtype: Int64DType, x: string): string {
  // ~ of an i64 stays in range; of a u64 it would be negative.
  if (op === "~" && dtype === "i64") return `(~${x})`;
  return wrap(dtype, `${op}${x}`);
}

/** Truthiness of an i64/u64 (`x` already emitted). */
export function truthy64(x: string): string {
  return `(${x} !== 0n)`;
}

/** A conversion where `from` or `to` is i64/u64 (`x` already emitted). */
export function convert64(x: string, from: DType, to: DType): string {
  if (to === "i64" || to === "u64") {
    if (from === "i64" || from === "u64") return wrap(to, x);
    if (from === "bool") return `(${x} ? 1n : 0n)`;
    if (from === "f16" || from === "f32" || from === "f64") return `$L.fromNumber${SUFFIX[to]}(${x})`;
    // 32-bit and narrower integers are integral numbers within the i64 range; a negative one wraps to u64.
    if (to === "i64" || from === "u8" || from === "u16" || from === "u32") return `BigInt(${x})`;
    return wrap(to, `BigInt(${x})`);
  }
  // To a number: the low bits, as C++'s (int) / (unsigned char) … of a long long.
  switch (to) {
    case "f64":
      return `Number(${x})`;
    case "f32":
      return `Math.fround(Number(${x}))`;
    case "f16":
      return `rt.f16round(Number(${x}))`;
    case "i32":
    case "u32":
    case "i16":
    case "u16":
    case "i8":
    case "u8":
      return `Number(BigInt.as${DTYPES[to].signed ? "Int" : "Uint"}N(${DTYPES[to].bits}, ${x}))`;
    case "bool":
      return truthy64(x);
  }
  return x;
}

/**
 * A 64-bit array index as a number, bounds-checked: `t` is the temporary, `x` the index expression.
 * A bigint past 2^53 converts to a double past 2^53 (rounding is monotonic), which still fails `< dim`.
 */
export function index64(t: string, x: string, dim: string, oob: string): string {
  return `(((${t} = Number(${x})) >= 0 && ${t} < ${dim}) || ${oob})`;
}
