/**
 * Types of the kernel IR. Every expression node carries one of these after the front end's type
 * inference; backends never guess. Per-dtype facts (widths, ranges, C and JavaScript types) come from
 * the dtype table (../dtypes/table.ts).
 */
import { DTYPE_NAMES, DTYPES, type DTypeName } from "../dtypes/table";
import type { RecordLayout } from "../dtypes/records";

export type IntDType = "i8" | "u8" | "i16" | "u16" | "i32" | "u32" | Int64DType;
/** 64-bit integers: TypeScript `bigint` values, C++ `long long` / `unsigned long long`. */
export type Int64DType = "i64" | "u64";
export type FloatDType = "f16" | "f32" | "f64";
export type NumericDType = IntDType | FloatDType;
/** Complex numbers: c64 = two f32 (re, im), c128 = two f64, interleaved in memory like CUDA's float2/double2. */
export type ComplexDType = "c64" | "c128";
export type DType = DTypeName;

export const ALL_DTYPES: readonly DType[] = DTYPE_NAMES;

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
  /**
   * An array of records (docs/kernel-language.md#records): `dtype` is then "u8", since every backend
   * and the host pass it as its bytes (docs/abi.md), and only field accesses (IndexExpr.field) read it.
   */
  readonly record?: RecordType;
  /**
   * A kernel's record parameter taken by value (`p: Particle`): passed as a one-record array, whose
   * fields the kernel copies into locals on entry (frontend/lower-records.ts), so `p` has value semantics.
   */
  readonly byValue?: true;
  /** Static shape for shared/local/const arrays; `undefined` for global arrays (known at launch). `0` in dim 0 = dynamic shared. */
  readonly shape?: readonly number[];
}

/**
 * A record (structured) dtype: an `interface` of dtype fields, laid out as numpy's align=True C struct
 * (dtypes/records.ts). Not a member of `Type`: record values never flow through expressions; a record
 * local is one scalar local per field (frontend/lower-records.ts) and record arrays are ArrayType.record.
 */
export interface RecordType {
  readonly kind: "record";
  /** The interface's name (the C++ struct is named after it). */
  readonly name: string;
  readonly layout: RecordLayout;
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
  return DTYPES[d].kind === "float";
}
export function isComplex(d: DType): d is ComplexDType {
  return DTYPES[d].kind === "complex";
}
/** The float type of each part of a complex dtype. */
export function complexPart(d: ComplexDType): FloatDType {
  return DTYPES[d].part as FloatDType;
}
export function isInt(d: DType): d is IntDType {
  return DTYPES[d].kind === "int";
}
export function isSigned(d: DType): boolean {
  return DTYPES[d].kind !== "complex" && DTYPES[d].signed;
}
/** i64 / u64: their values are TypeScript bigints, never mixed with numbers without a conversion. */
export function isInt64(d: DType): d is Int64DType {
  return DTYPES[d].kind === "int" && DTYPES[d].bits === 64;
}
/** i8, u8, i16, u16: stored narrow, computed as i32 (their values fit every wider integer type). */
export function isNarrowInt(d: DType): boolean {
  return DTYPES[d].kind === "int" && DTYPES[d].bits < 32;
}
export function bitWidth(d: DType): number {
  return DTYPES[d].bits;
}
export function byteSize(d: DType): number {
  return DTYPES[d].bytes;
}

/**
 * Integer range of an int dtype as doubles, for constant-folding overflow checks (the 64-bit bounds
 * rounded outward: exact 64-bit range checks use int64Range).
 */
export function intRange(d: IntDType): [number, number] {
  const r = DTYPES[d];
  return [Number(r.min), r.bits === 64 ? Number(r.max! + 1n) : Number(r.max)];
}

/** Exact range of a 64-bit integer dtype. */
export function int64Range(d: Int64DType): [bigint, bigint] {
  return [DTYPES[d].min!, DTYPES[d].max!];
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
      if (t.record) return `${space}Array${t.rank}D<${t.record.name}>`;
      if (t.rank === 1 && t.space === "global") return typedArrayName(t.dtype);
      const shape = t.shape ? `[${t.shape.join(", ")}]` : `${t.rank}-D`;
      return `${space}${t.dtype}${shape}`;
    }
  }
}

/** The host typed-array class of a global array of `d` (`Uint8Array` for bool, `Float16Array` for f16). */
export function typedArrayName(d: DType): string {
  return DTYPES[d].hostArray;
}
/** The dtype a typed-array class name stands for in a parameter annotation (`Uint8Array` is u8, not bool). */
export const TYPED_ARRAY_DTYPES: ReadonlyMap<string, DType> = new Map(
  DTYPE_NAMES.filter((d) => d !== "bool").map((d) => [DTYPES[d].hostArray, d] as [string, DType]),
);

export function sameType(a: Type, b: Type): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === "scalar") return a.dtype === (b as ScalarType).dtype;
  if (a.kind === "array") {
    const o = b as ArrayType;
    return a.dtype === o.dtype && a.rank === o.rank && a.space === o.space && a.record?.name === o.record?.name;
  }
  if (a.kind === "tuple") return a.elements.length === (b as TupleType).elements.length;
  return true;
}
