/** C++ literals for IR constants: shortest text that reads back as exactly the same value. */
import { DTYPES } from "../dtypes/table";
import type { DType } from "../ir/types";
import { f16round } from "../ir/f16";

/** C type of a scalar dtype (f16 and complex numbers are the prelude's structs: see the dtype table). */
export function cType(d: DType): string {
  return DTYPES[d].cType;
}

/** C type of an array element: bool arrays hold bytes (any non-zero byte reads as true). */
export function cElementType(d: DType): string {
  return DTYPES[d].elementCType;
}

/** The shortest decimal that rounds to the same f32 as `v`. */
export function shortestF32(v: number): string {
  const f = Math.fround(v);
  for (let p = 1; p <= 9; p++) {
    const s = f.toPrecision(p);
    if (Math.fround(Number(s)) === f) return String(Number(s));
  }
  return String(f);
}

function withPoint(s: string): string {
  return /[.eE]/.test(s) ? s : `${s}.0`;
}

export interface Literal {
  text: string;
  /** Starts with a minus sign (needs parentheses after a unary or binary minus). */
  negative: boolean;
}

/** Bit patterns of the special float values (NVRTC has no constexpr NaN/infinity builtins). */
function f32Bits(v: number): number {
  const b = new DataView(new ArrayBuffer(4));
  b.setFloat32(0, v);
  return b.getUint32(0);
}
function f64Bits(v: number): bigint {
  const b = new DataView(new ArrayBuffer(8));
  b.setFloat64(0, v);
  return b.getBigUint64(0);
}

export function literal(d: DType, value: number | boolean | bigint): Literal {
  if (d === "i64" || d === "u64") return literal64(d, value);
  const v = typeof value === "boolean" ? (value ? 1 : 0) : Number(value);
  switch (d) {
    case "bool":
      return { text: v ? "true" : "false", negative: false };
    case "f32": {
      const f = Math.fround(v);
      if (!Number.isFinite(f)) return { text: `__int_as_float((int)0x${f32Bits(f).toString(16)}u)`, negative: false };
      if (Object.is(f, -0)) return { text: "-0.0f", negative: true };
      return { text: `${withPoint(shortestF32(f))}f`, negative: f < 0 };
    }
    case "f16": {
      // Every f16 is exactly an f32: the f32 literal converts without a second rounding.
      const f = literal("f32", f16round(v));
      return { text: `cs_half(${f.text})`, negative: false };
    }
    case "f64": {
      if (!Number.isFinite(v)) return { text: `__longlong_as_double((long long)0x${f64Bits(v).toString(16)}ull)`, negative: false };
      if (Object.is(v, -0)) return { text: "-0.0", negative: true };
      return { text: withPoint(String(v)), negative: v < 0 };
    }
    case "u32": {
      const u = v >>> 0;
      return { text: `${hexIfMask(u)}u`, negative: false };
    }
    case "i32": {
      const i = v | 0;
      if (i === -2147483648) return { text: "(-2147483647 - 1)", negative: false };
      return { text: String(i), negative: i < 0 };
    }
    default:
      return { text: String(Math.trunc(v)), negative: v < 0 };
  }
}

/** An i64 (`123ll`) or u64 (`123ull`) literal, exact; INT64_MIN is spelt so that no literal overflows. */
function literal64(d: "i64" | "u64", value: number | boolean | bigint): Literal {
  // A string is a bigint read back from serialized IR (js/artifact.ts serializeIr).
  const b = typeof value === "bigint" || typeof value === "string" ? BigInt(value) : BigInt(typeof value === "boolean" ? Number(value) : Math.trunc(value));
  if (d === "u64") return { text: `${BigInt.asUintN(64, b)}ull`, negative: false };
  const v = BigInt.asIntN(64, b);
  if (v === -(2n ** 63n)) return { text: "(-9223372036854775807ll - 1)", negative: false };
  return { text: `${v}ll`, negative: v < 0n };
}

/** Masks such as 0xffffffff or 0xffff0000 read better in hex. */
function hexIfMask(u: number): string {
  const hex = u.toString(16);
  return u >= 0x10000 && /^[f0]+$/.test(hex) ? `0x${hex}` : String(u);
}

/** A C string literal for printf formats. */
export function cString(s: string): string {
  let out = '"';
  for (const ch of Buffer.from(s, "utf8")) {
    if (ch === 0x22) out += '\\"';
    else if (ch === 0x5c) out += "\\\\";
    else if (ch === 0x0a) out += "\\n";
    else if (ch === 0x09) out += "\\t";
    else if (ch === 0x3f) out += "?"; // no trigraphs in C++17
    else if (ch < 0x20 || ch >= 0x7f) out += `\\${ch.toString(8).padStart(3, "0")}`;
    else out += String.fromCharCode(ch);
  }
  return out + '"';
}
