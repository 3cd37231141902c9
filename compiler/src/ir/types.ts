/**
 * Types of the kernel IR. Every expression node carries one of these after the front end's type
 * inference; backends never guess.
 */

export type IntDType = "i8" | "u8" | "i16" | "u16" | "i32" | "u32" | Int64DType;
/** 64-bit integers: TypeScript `bigint` values, C++ `long long` / `unsigned long long`. */
export type Int64DType = "i64" | "u64";
export type FloatDType = "f16" | "f32" | "f64";
export type NumericDType = IntDType | FloatDType;
/** Complex numbers: c64 = two f32 (re, im), c128 = two f64, interleaved in memory like CUDA's float2/double2. */
export type ComplexDType = "c64" | "c128";
export type DType = NumericDType | "bool" | ComplexDType;

export const ALL_DTYPES: readonly DType[] = ["f32", "f64", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "bool", "f16", "c64", "c128"];

export type MemorySpace = "global" | "shared" | "local" | "const";

export interface ScalarType {
  readonly kind: "scalar";
  readonly dtype: DType;
}

export interface ArrayType {
  readonly kind: "array";
  readonly dtype: DType;
  readonly rank: 1 | 2 | 3;
  readonly space: MemorySpace;
  /** Static shape for shared/local/const arrays; `undefined` for global arrays (known at launch). `0` in dim 0 = dynamic shared. */
  readonly shape?: readonly number[];
}

/** The result of `cuda.grid(2)` / `cuda.gridsize(3)`: only ever destructured or indexed by a constant. */
export interface TupleType {
  readonly kind: "tuple";
  readonly elements: readonly ScalarType[];
}

export interface VoidType {
  readonly kind: "void";
}

export type Type = ScalarType | ArrayType | TupleType | VoidType;

const scalarCache = new Map<DType, ScalarType>();
export function scalar(dtype: DType): ScalarType {
  let t = scalarCache.get(dtype);
  if (!t) {
    t = Object.freeze({ kind: "scalar", dtype });
    scalarCache.set(dtype, t);
  }
  return t;
}

export const VOID: VoidType = Object.freeze({ kind: "void" });
export const BOOL = scalar("bool");
export const I32 = scalar("i32");
export const U32 = scalar("u32");
export const F32 = scalar("f32");
export const F64 = scalar("f64");
export const F16 = scalar("f16");

export function isFloat(d: DType): d is FloatDType {
  return d === "f32" || d === "f64" || d === "f16";
}
export function isComplex(d: DType): d is ComplexDType {
  return d === "c64" || d === "c128";
}
/** The float type of each part of a complex dtype. */
export function complexPart(d: ComplexDType): FloatDType {
  return d === "c64" ? "f32" : "f64";
}
export function isInt(d: DType): d is IntDType {
  return d !== "f32" && d !== "f64" && d !== "f16" && d !== "bool" && !isComplex(d);
}
export function isSigned(d: DType): boolean {
  return d === "i8" || d === "i16" || d === "i32" || d === "i64" || isFloat(d);
}
/** i64 / u64: their values are TypeScript bigints, never mixed with numbers without a conversion. */
export function isInt64(d: DType): d is Int64DType {
  return d === "i64" || d === "u64";
}
export function bitWidth(d: DType): number {
  switch (d) {
    case "bool":
    case "i8":
    case "u8":
      return 8;
    case "i16":
    case "u16":
    case "f16":
      return 16;
    case "i32":
    case "u32":
    case "f32":
      return 32;
    case "f64":
    case "c64":
    case "i64":
    case "u64":
      return 64;
    case "c128":
      return 128;
  }
}
export function byteSize(d: DType): number {
  return bitWidth(d) / 8;
}

/** Integer range of an int dtype, for constant-folding overflow checks. */
export function intRange(d: IntDType): [number, number] {
  switch (d) {
    case "i8":
      return [-128, 127];
    case "u8":
      return [0, 255];
    case "i16":
      return [-32768, 32767];
    case "u16":
      return [0, 65535];
    case "i32":
      return [-2147483648, 2147483647];
    case "u32":
      return [0, 4294967295];
    // Bounds as doubles (rounded outward): exact 64-bit range checks use int64Range.
    case "i64":
      return [-(2 ** 63), 2 ** 63];
    case "u64":
      return [0, 2 ** 64];
  }
}

/** Exact range of a 64-bit integer dtype. */
export function int64Range(d: Int64DType): [bigint, bigint] {
  return d === "i64" ? [-(2n ** 63n), 2n ** 63n - 1n] : [0n, 2n ** 64n - 1n];
}

/** Arithmetic promotion, as CUDA C++ does it (which is what the GPU computes): ints narrower than 32 bits become i32. */
export function promoteInt(d: IntDType | "bool"): "i32" | "u32" | Int64DType {
  return d === "u32" || d === "i64" || d === "u64" ? d : "i32";
}

/** The common type of a binary arithmetic operation on two dtypes (usual arithmetic conversions). */
export function commonDType(a: DType, b: DType): NumericDType {
  if (a === "f64" || b === "f64") return "f64";
  if (a === "f32" || b === "f32") return "f32";
  // f16 next to an integer stays f16 (the lowerer reports CS2020 for a non-literal integer: see f16MixMessage).
  if (a === "f16" || b === "f16") return "f16";
  const pa = promoteInt(a as IntDType), pb = promoteInt(b as IntDType);
  if (pa === "u64" || pb === "u64") return "u64";
  if (pa === "i64" || pb === "i64") return "i64";
  return pa === "u32" || pb === "u32" ? "u32" : "i32";
}

export function typeToString(t: Type): string {
  switch (t.kind) {
    case "scalar":
      return t.dtype;
    case "void":
      return "void";
    case "tuple":
      return `[${t.elements.map(typeToString).join(", ")}]`;
    case "array": {
      const space = t.space === "global" ? "" : `${t.space} `;
      if (t.rank === 1 && t.space === "global") return typedArrayName(t.dtype);
      const shape = t.shape ? `[${t.shape.join(", ")}]` : `${t.rank}-D`;
      return `${space}${t.dtype}${shape}`;
    }
  }
}

const TYPED_ARRAY_NAMES: Record<DType, string> = {
  f32: "Float32Array",
  f64: "Float64Array",
  i8: "Int8Array",
  u8: "Uint8Array",
  i16: "Int16Array",
  u16: "Uint16Array",
  i32: "Int32Array",
  u32: "Uint32Array",
  i64: "BigInt64Array",
  u64: "BigUint64Array",
  bool: "Uint8Array",
  c64: "Complex64Array",
  c128: "Complex128Array",
  f16: "Float16Array",
};
export function typedArrayName(d: DType): string {
  return TYPED_ARRAY_NAMES[d];
}
export const TYPED_ARRAY_DTYPES: ReadonlyMap<string, DType> = new Map([
  ["Float32Array", "f32"],
  ["Float64Array", "f64"],
  ["Int8Array", "i8"],
  ["Uint8Array", "u8"],
  ["Int16Array", "i16"],
  ["Uint16Array", "u16"],
  ["Int32Array", "i32"],
  ["Uint32Array", "u32"],
  ["Complex64Array", "c64"],
  ["Complex128Array", "c128"],
  ["BigInt64Array", "i64"],
  ["BigUint64Array", "u64"],
  ["Float16Array", "f16"],
] as [string, DType][]);

export function sameType(a: Type, b: Type): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === "scalar") return a.dtype === (b as ScalarType).dtype;
  if (a.kind === "array") {
    const o = b as ArrayType;
    return a.dtype === o.dtype && a.rank === o.rank && a.space === o.space;
  }
  if (a.kind === "tuple") return a.elements.length === (b as TupleType).elements.length;
  return true;
}
