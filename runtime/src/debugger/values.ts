/** Values the debugger writes into a thread's variables (set variable), and reads from its arrays. */
import { wrapNumber } from "@cudascript/compiler/dtypes";
import { CudaScriptError } from "../errors";
import { f16round } from "../float16";
import { halfTables } from "../simulator/f16-table";
import type { VariableView } from "./session-types";

/** Element `i` (flat, from the array's first element) of an array variable (the DAP pager, the CLI's stop report). */
export function element(v: VariableView, i: number): unknown {
  const { data, offset } = v.value as { data: ArrayLike<number | bigint>; offset: number };
  const k = offset + i;
  if (v.dtype === "c64" || v.dtype === "c128") return { re: data[2 * k], im: data[2 * k + 1] };
  if (v.dtype === "f16") return halfTables().h2f[data[k] as number];
  if (v.dtype === "bool") return data[k] !== 0;
  return data[k];
}

/** A value for a scalar of `dtype`, as an assignment in the kernel converts it. */
export function convertValue(x: number | bigint | boolean, dtype: string, name: string): unknown {
  const bad = (): never => {
    throw new CudaScriptError("CSD013", `'${name}' is ${dtype}: give it a ${dtype === "bool" ? "boolean" : dtype === "i64" || dtype === "u64" ? "bigint or whole number" : "number"}, got ${typeof x === "bigint" ? `${x}n` : String(x)}`);
  };
  if (dtype === "bool") return typeof x === "boolean" ? x : bad();
  if (dtype === "i64" || dtype === "u64") {
    if (typeof x === "boolean" || (typeof x === "number" && !Number.isInteger(x))) return bad();
    return dtype === "i64" ? BigInt.asIntN(64, BigInt(x)) : BigInt.asUintN(64, BigInt(x));
  }
  if (typeof x !== "number") return bad();
  switch (dtype) {
    case "f16":
      return f16round(x);
    case "f64":
      return x;
    case "f32":
      return Math.fround(x);
    case "i32":
    case "u32":
    case "i16":
    case "u16":
    case "i8":
    case "u8":
      return wrapNumber(dtype, x);
    default:
      return bad();
  }
}
