/**
 * Scalar dtypes. Each name is both a TypeScript type (for annotations: `(a: f32) => …`) and a value
 * (for dtype arguments: `cuda.shared.array(128, f32)`), like Numba's `float32`.
 *
 * The types are plain `number` (or `boolean`) so that a kernel stays valid TypeScript that
 * `tsc --strict` accepts; the CudaScript front end reads the annotation itself to know the width.
 */
import { DTYPES } from "@cudascript/compiler/dtypes";
import { Float16Array } from "./float16";

import { Complex128Array, Complex64Array, type ComplexValue } from "./complex-array";

export type f32 = number;
export type f64 = number;
export type i8 = number;
export type u8 = number;
export type i16 = number;
export type u16 = number;
export type i32 = number;
export type u32 = number;
/** 64-bit integers are TypeScript bigints (`3600n`, `BigInt(i)`): exact, never rounded at 2^53. */
export type i64 = bigint;
export type u64 = bigint;
export type bool = boolean;
/**
 * Complex numbers (docs/kernel-language.md#complex-numbers-c64-c128): c64 = two f32 parts, c128 = two
 * f64. In kernels they are built and combined with `cuda.complex.*`; on the host a scalar parameter
 * takes `{ re, im }` and arrays are Complex64Array / Complex128Array.
 */
export type c64 = ComplexValue;
export type c128 = ComplexValue;
/** Half precision (IEEE binary16), stored in a Float16Array; convert with Math.f16round(x). */
export type f16 = number;

/** Maps a dtype name to the JavaScript typed array that stores it. */
export interface TypedArrayOf {
  f32: Float32Array;
  f64: Float64Array;
  i8: Int8Array;
  u8: Uint8Array;
  i16: Int16Array;
  u16: Uint16Array;
  i32: Int32Array;
  u32: Uint32Array;
  i64: BigInt64Array;
  u64: BigUint64Array;
  bool: Uint8Array;
  f16: Float16Array;
}

export type DTypeName = keyof TypedArrayOf;

export type TypedArray = TypedArrayOf[DTypeName];
/** The typed arrays with number elements (all but BigInt64Array / BigUint64Array). */
export type NumberTypedArray = TypedArrayOf[Exclude<DTypeName, "i64" | "u64">];

export interface DType<N extends DTypeName = DTypeName> {
  readonly name: N;
  /** Size of one element in bytes. */
  readonly bytes: number;
  /** True for f16/f32/f64. */
  readonly isFloat: boolean;
  /** The typed array constructor that stores elements of this dtype on the host. */
  readonly arrayType: { new (length: number): TypedArrayOf[N]; new (buffer: ArrayBufferLike, byteOffset?: number, length?: number): TypedArrayOf[N] };
}

/**
 * The host array classes the dtype table names (its `hostArray`): the platform's typed arrays, the
 * Float16Array polyfill where Node has none (float16.ts) and the complex arrays (complex-array.ts).
 */
const HOST_ARRAY_CLASSES: Readonly<Record<string, unknown>> = {
  Float32Array, Float64Array, Int8Array, Uint8Array, Int16Array, Uint16Array, Int32Array, Uint32Array, BigInt64Array, BigUint64Array,
  Float16Array, Complex64Array, Complex128Array,
};

/** The host array class of a dtype, by the dtype table's name for it. */
export function hostArrayClass(name: AnyDTypeName): unknown {
  return HOST_ARRAY_CLASSES[DTYPES[name].hostArray];
}

function dtype<N extends DTypeName>(name: N): DType<N> {
  const r = DTYPES[name];
  return Object.freeze({ name, bytes: r.bytes, isFloat: r.kind === "float", arrayType: hostArrayClass(name) as DType<N>["arrayType"], toString: () => name });
}

export const f32: DType<"f32"> = dtype("f32");
export const f64: DType<"f64"> = dtype("f64");
export const i8: DType<"i8"> = dtype("i8");
export const u8: DType<"u8"> = dtype("u8");
export const i16: DType<"i16"> = dtype("i16");
export const u16: DType<"u16"> = dtype("u16");
export const i32: DType<"i32"> = dtype("i32");
export const u32: DType<"u32"> = dtype("u32");
export const i64: DType<"i64"> = dtype("i64");
export const u64: DType<"u64"> = dtype("u64");
export const bool: DType<"bool"> = dtype("bool");

/** Half precision: the platform's Float16Array where Node has one, else the polyfill's (see float16.ts). */
export const f16: DType<"f16"> = dtype("f16");

export const dtypes: { readonly [N in DTypeName]: DType<N> } = { f32, f64, i8, u8, i16, u16, i32, u32, i64, u64, bool, f16 };

/** A complex dtype: the value of `c64` / `c128` (`cuda.shared.array(n, c64)`); elements are `bytes` wide (both parts). */
export interface ComplexDType<N extends ComplexDTypeName = ComplexDTypeName> {
  readonly name: N;
  readonly bytes: N extends "c64" ? 8 : 16;
  readonly isFloat: false;
  /** The host array class of this dtype (interleaved parts). */
  readonly arrayType: N extends "c64" ? typeof Complex64Array : typeof Complex128Array;
  /** The part dtype (f32 / f64). */
  readonly part: DType<N extends "c64" ? "f32" : "f64">;
}
export type ComplexDTypeName = "c64" | "c128";
/** Every dtype a kernel parameter can have. */
export type AnyDTypeName = DTypeName | ComplexDTypeName;

export function isComplexDTypeName(d: string): d is ComplexDTypeName {
  return d === "c64" || d === "c128";
}

export const c64: ComplexDType<"c64"> = Object.freeze({ name: "c64", bytes: DTYPES.c64.bytes as 8, isFloat: false, arrayType: hostArrayClass("c64") as typeof Complex64Array, part: f32, toString: () => "c64" });
export const c128: ComplexDType<"c128"> = Object.freeze({ name: "c128", bytes: DTYPES.c128.bytes as 16, isFloat: false, arrayType: hostArrayClass("c128") as typeof Complex128Array, part: f64, toString: () => "c128" });
export const complexDtypes: { readonly [N in ComplexDTypeName]: ComplexDType<N> } = { c64, c128 };

export { Complex64Array, Complex128Array, type ComplexValue } from "./complex-array";

/*
 * Kernel array types read their elements as `any`, on purpose. Under TypeScript's strictest settings
 * (`tsc --init`: noUncheckedIndexedAccess) every read through an index signature is `T | undefined`
 * unless the signature's type is `any`, so `out[i] = a * x[i]` would need `x[i]!` everywhere. The element
 * type still matters: the CudaScript checker reads it from the annotation (`Array1D<f32>`, `Float32Array`,
 * `cuda.shared.array(n, f32)`) and reports wrong uses, so nothing is lost in kernels.
 */

/**
 * A 1-D array of any dtype, indexed `a[i]`: the 1-D counterpart of Array2D/Array3D, and the spelling for
 * 1-D parameters that type-checks under `noUncheckedIndexedAccess` without `!` (`x: Array1D<f32>`; a
 * `Float32Array` parameter reads `number | undefined` there). `Array1D<bool>` is the one for bool arrays,
 * which have no typed array of their own (`Uint8Array` is u8). At a launch it takes a typed array or a
 * device array (`cuda.toDevice(x)`, `cuda.deviceArray(n, f32)`), like a typed-array parameter.
 */
export interface Array1D<T extends number | boolean | bigint | ComplexValue | object = number> {
  readonly shape: readonly [number];
  readonly length: number;
  /** Reads are `any` (see above); the element type is `T`. */
  [i: number]: any;
  /**
   * In kernels, a view of elements [begin, end) sharing this array's memory, clamped as
   * `TypedArray.prototype.subarray` clamps (docs/kernel-language.md#views), of the same type (a shared
   * `Float32Array & Array1D` gives one too, so it reads `any` and passes where a `Float32Array` does).
   */
  subarray(begin?: number, end?: number): this;
}

/** A 2-D array indexed `a[row][col]`, row-major, with `.shape`. Host side: `cuda.ndarray(data, [rows, cols])`. */
export interface Array2D<T extends number | boolean | bigint | ComplexValue | object = number> {
  readonly shape: readonly [number, number];
  /** Number of rows (the first dimension), like a NumPy array's `len()`. */
  readonly length: number;
  /** `a[row][col]` reads are `any` (see above); the element type is `T`. */
  [row: number]: any;
}

/** A 3-D array indexed `a[i][j][k]`, row-major, with `.shape`. */
export interface Array3D<T extends number | boolean | bigint | ComplexValue | object = number> {
  readonly shape: readonly [number, number, number];
  readonly length: number;
  /** `a[i][j][k]` reads are `any` (see above); the element type is `T`. */
  [i: number]: any;
}
