/** Values the debugger writes into a thread's variables (set variable). */
import { wrapNumber } from "@cudascript/compiler/dtypes";
import { CudaScriptError } from "../errors";
import { f16round } from "../float16";

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
