/**
 * JavaScript for i64/u64 operations in simulator modules. Values are canonical (a number when a
 * safe integer, a bigint otherwise) and every operation is a call of the runtime's small helpers
 * (`$L` = rt.i64, runtime/src/simulator/int64.ts), which V8 inlines.
 */
import type * as IR from "../ir/nodes";
import type { DType, Int64DType } from "../ir/types";

/** The module-level binding of the helpers, added once by the emitter when a module uses them. */
export const INT64_HELPERS = { name: "$L", code: "const $L = rt.i64;" } as const;

/** A canonical i64/u64 literal: a plain number when safe, else a bigint literal. */
export function literal64(value: number | boolean | bigint, dtype: Int64DType): string {
  // A string is a bigint read back from serialized IR (artifact.ts serializeIr).
  let b = typeof value === "bigint" || typeof value === "string" ? BigInt(value) : BigInt(typeof value === "boolean" ? Number(value) : Math.trunc(value));
  b = dtype === "i64" ? BigInt.asIntN(64, b) : BigInt.asUintN(64, b);
  const safe = b >= -BigInt(Number.MAX_SAFE_INTEGER) && b <= BigInt(Number.MAX_SAFE_INTEGER);
  const text = safe ? String(b) : `${b}n`;
  return b < 0n ? `(${text})` : text;
}

const SUFFIX: Record<Int64DType, string> = { i64: "I", u64: "U" };
const BINARY: Partial<Record<IR.ArithOp, string>> = {
  "+": "add", "-": "sub", "*": "mul", "/": "div", "%": "rem", "&": "and", "|": "or", "^": "xor", "<<": "shl", ">>": "shr",
};

export function binary64(op: IR.ArithOp, dtype: Int64DType, a: string, b: string): string {
  const f = BINARY[op];
  if (!f) throw new Error(`CudaScript simulator: ${op} on ${dtype}`);
  return `$L.${f}${SUFFIX[dtype]}(${a}, ${b})`;
}

export function unary64(op: "-" | "~", dtype: Int64DType, x: string): string {
  return `$L.${op === "-" ? "neg" : "not"}${SUFFIX[dtype]}(${x})`;
}

/** A conversion where `from` or `to` is i64/u64 (`x` already emitted). */
export function convert64(x: string, from: DType, to: DType): string {
  if (to === "i64" || to === "u64") {
    const s = SUFFIX[to];
    if (from === "i64" || from === "u64") return `$L.to${s}(${x})`;
    if (from === "bool") return `(${x} ? 1 : 0)`;
    // 32-bit (and narrower) integers are safe integers already; a negative one needs wrapping to u64.
    if (to === "i64" && from !== "f32" && from !== "f64") return x;
    if (to === "u64" && (from === "u8" || from === "u16" || from === "u32")) return x;
    return `$L.fromNumber${s}(${x})`;
  }
  switch (to) {
    case "f64":
      return `Number(${x})`;
    case "f32":
      return `Math.fround(Number(${x}))`;
    case "i32":
      return `$L.toI32(${x})`;
    case "u32":
      return `$L.toU32(${x})`;
    case "i8":
      return `(($L.toI32(${x}) << 24) >> 24)`;
    case "u8":
      return `($L.toI32(${x}) & 255)`;
    case "i16":
      return `(($L.toI32(${x}) << 16) >> 16)`;
    case "u16":
      return `($L.toI32(${x}) & 65535)`;
    case "bool":
      return `(!!${x})`;
  }
  return x;
}
