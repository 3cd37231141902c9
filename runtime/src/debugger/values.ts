/** Values the debugger writes into a thread's variables (set variable). */
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
      return x | 0;
    case "u32":
      return x >>> 0;
    case "i16":
      return (x << 16) >> 16;
    case "u16":
      return x & 65535;
    case "i8":
      return (x << 24) >> 24;
    case "u8":
      return x & 255;
    default:
      return bad();
  }
}
