/**
 * The dtype table: one frozen record per dtype, the only place that says how wide a dtype is, whether
 * it is signed, what C type the generated CUDA C++ gives it, which JavaScript typed array holds it on
 * the host and in the simulator, its integer range and how a value wraps into it.
 *
 * This module imports nothing, so the runtime (and the language server) can load it through
 * `@cudascript/compiler/dtypes` without the compiler's front end or TypeScript
 * (test/runtime/run-time-imports.test.ts). Everything else that needs a per-dtype fact derives it from
 * these records; a test (dtypes/table.test.ts) checks that no other source file spells one out again.
 */

/** Every dtype of the kernel language. */
export type DTypeName = "f32" | "f64" | "i8" | "u8" | "i16" | "u16" | "i32" | "u32" | "i64" | "u64" | "bool" | "f16" | "c64" | "c128";

/** What a dtype's values are. */
export type DTypeKind = "bool" | "int" | "float" | "complex";

export interface DTypeRecord {
  readonly name: DTypeName;
  /** Width of one element in bits (both parts of a complex number). */
  readonly bits: 8 | 16 | 32 | 64 | 128;
  /** Width of one element in bytes: `bits / 8`. */
  readonly bytes: 1 | 2 | 4 | 8 | 16;
  readonly kind: DTypeKind;
  /** True for the signed integers and the floats (what C++'s arithmetic treats as signed). */
  readonly signed: boolean;
  /** A complex dtype's part (f32 / f64); the dtype itself otherwise. */
  readonly part: DTypeName;
  /** The C++ type of a scalar in the generated code (f16 and complex are the prelude's structs). */
  readonly cType: string;
  /** The C++ type of an array element (bool arrays hold bytes: any non-zero byte reads as true). */
  readonly elementCType: string;
  /** The host's typed-array class of an array of this dtype (`Array1D<bool>` is stored in a Uint8Array). */
  readonly hostArray: string;
  /**
   * The typed-array class the simulator's code reads elements through: f16 arrays as their 16 bits
   * (Uint16Array), complex arrays as their interleaved parts.
   */
  readonly simArray: string;
  /** Exact range of an integer dtype (bool: 0…1); undefined for floats and complex numbers. */
  readonly min?: bigint;
  readonly max?: bigint;
  /** The dtype's name in Numba (`numba.float32`, `numba.complex64`, …). */
  readonly numba: string;
  /** One line for hovers and docs. */
  readonly doc: string;
}

function record(r: Omit<DTypeRecord, "bytes" | "part"> & { part?: DTypeName }): DTypeRecord {
  return Object.freeze({ ...r, bytes: (r.bits / 8) as DTypeRecord["bytes"], part: r.part ?? r.name });
}

function int(name: DTypeName, bits: 8 | 16 | 32 | 64, signed: boolean, cType: string, hostArray: string, doc: string): DTypeRecord {
  const b = BigInt(bits);
  return record({
    name,
    bits,
    kind: "int",
    signed,
    cType,
    elementCType: cType,
    hostArray,
    simArray: hostArray,
    min: signed ? -(1n << (b - 1n)) : 0n,
    max: signed ? (1n << (b - 1n)) - 1n : (1n << b) - 1n,
    numba: `${signed ? "" : "u"}int${bits}`,
    doc,
  });
}

/** The records, in the order the kernel language lists its dtypes. */
export const DTYPES: { readonly [N in DTypeName]: DTypeRecord } = Object.freeze({
  f32: record({ name: "f32", bits: 32, kind: "float", signed: true, cType: "float", elementCType: "float", hostArray: "Float32Array", simArray: "Float32Array", numba: "float32", doc: "32-bit float (`float`; Numba `float32`). Kernels default to f32 for float literals unless a parameter is f64." }),
  f64: record({ name: "f64", bits: 64, kind: "float", signed: true, cType: "double", elementCType: "double", hostArray: "Float64Array", simArray: "Float64Array", numba: "float64", doc: "64-bit float (`double`; Numba `float64`). Up to 64× slower than f32 on most consumer GPUs." }),
  i8: int("i8", 8, true, "signed char", "Int8Array", "8-bit signed integer (`signed char`; Numba `int8`); arrays only, computed in i32."),
  u8: int("u8", 8, false, "unsigned char", "Uint8Array", "8-bit unsigned integer (`unsigned char`; Numba `uint8`); arrays only, computed in i32."),
  i16: int("i16", 16, true, "short", "Int16Array", "16-bit signed integer (`short`; Numba `int16`); arrays only, computed in i32."),
  u16: int("u16", 16, false, "unsigned short", "Uint16Array", "16-bit unsigned integer (`unsigned short`; Numba `uint16`); arrays only, computed in i32."),
  i32: int("i32", 32, true, "int", "Int32Array", "32-bit signed integer (`int`; Numba `int32`); the type of indices and `cuda.grid(1)`."),
  u32: int("u32", 32, false, "unsigned", "Uint32Array", "32-bit unsigned integer (`unsigned int`; Numba `uint32`)."),
  i64: int("i64", 64, true, "long long", "BigInt64Array", "64-bit signed integer (`long long`; Numba `int64`), a TypeScript `bigint` (`3n`), stored in a `BigInt64Array`. Mixing it with a number needs a conversion: `BigInt(i)`, `Number(v)` (CS2018)."),
  u64: int("u64", 64, false, "unsigned long long", "BigUint64Array", "64-bit unsigned integer (`unsigned long long`; Numba `uint64`), a TypeScript `bigint`, stored in a `BigUint64Array`. Mixing it with a number needs a conversion: `BigInt(i)`, `Number(v)` (CS2018)."),
  bool: record({ name: "bool", bits: 8, kind: "bool", signed: false, cType: "bool", elementCType: "unsigned char", hostArray: "Uint8Array", simArray: "Uint8Array", min: 0n, max: 1n, numba: "boolean", doc: "Boolean (`bool`; Numba `boolean`)." }),
  // f16 is the prelude's half struct (compiler/src/cuda/fp16.ts): NVRTC 11.8 has no usable cuda_fp16.h.
  f16: record({ name: "f16", bits: 16, kind: "float", signed: true, cType: "cs_half", elementCType: "cs_half", hostArray: "Float16Array", simArray: "Uint16Array", numba: "float16", doc: "16-bit half-precision float (`half`; Numba `float16`), stored in a `Float16Array`; every operation rounds to f16. Convert with `Math.f16round(x)`." }),
  // Complex numbers are the complex prelude's structs (compiler/src/cuda/complex.ts), float2/double2 layout.
  c64: record({ name: "c64", bits: 64, kind: "complex", signed: true, part: "f32", cType: "cs_c64", elementCType: "cs_c64", hostArray: "Complex64Array", simArray: "Float32Array", numba: "complex64", doc: "Complex number of two f32 parts (`cs_c64`, the layout of `float2`; Numba `complex64`). Build it with `cuda.complex.c64(re, im)`, read `z.re` / `z.im`; host arrays are `Complex64Array`." }),
  c128: record({ name: "c128", bits: 128, kind: "complex", signed: true, part: "f64", cType: "cs_c128", elementCType: "cs_c128", hostArray: "Complex128Array", simArray: "Float64Array", numba: "complex128", doc: "Complex number of two f64 parts (`cs_c128`, the layout of `double2`; Numba `complex128`). Build it with `cuda.complex.c128(re, im)`; host arrays are `Complex128Array`." }),
});

/** Every dtype name, in the table's order. */
export const DTYPE_NAMES: readonly DTypeName[] = Object.freeze(Object.keys(DTYPES) as DTypeName[]);

export function isDTypeName(s: string): s is DTypeName {
  return Object.prototype.hasOwnProperty.call(DTYPES, s);
}

/** The record of a dtype. */
export function dtypeRecord(d: DTypeName): DTypeRecord {
  return DTYPES[d];
}

/**
 * A JavaScript number wrapped into an integer dtype of at most 32 bits, as a C++ conversion does
 * (modulo 2^bits, then read as signed or unsigned); bool is `v !== 0`. Other dtypes return `v`.
 */
export function wrapNumber(d: DTypeName, v: number): number {
  const r = DTYPES[d];
  if (r.kind === "bool") return v ? 1 : 0;
  if (r.kind !== "int" || r.bits === 64) return v;
  if (r.bits === 32) return r.signed ? v | 0 : v >>> 0;
  const shift = 32 - r.bits;
  return r.signed ? (v << shift) >> shift : v & ((1 << r.bits) - 1);
}

/** The JavaScript text of `wrapNumber(d, x)` for an emitted expression `x` (integers of at most 32 bits). */
export function wrapNumberJs(d: DTypeName, x: string): string {
  const r = DTYPES[d];
  if (r.kind !== "int" || r.bits === 64) return x;
  if (r.bits === 32) return r.signed ? `(${x} | 0)` : `(${x} >>> 0)`;
  const shift = 32 - r.bits;
  return r.signed ? `((${x} << ${shift}) >> ${shift})` : `(${x} & ${(1 << r.bits) - 1})`;
}

/** The range of an integer dtype of at most 32 bits as numbers (values JavaScript numbers hold exactly); undefined for other dtypes. */
export function numberRange(d: DTypeName): readonly [number, number] | undefined {
  const r = DTYPES[d];
  return r.kind === "int" && r.bits <= 32 ? [Number(r.min), Number(r.max)] : undefined;
}

/** A bigint wrapped into a 64-bit integer dtype (modulo 2^64, read as signed or unsigned). */
export function wrapBigInt(d: "i64" | "u64", v: bigint): bigint {
  return d === "i64" ? BigInt.asIntN(64, v) : BigInt.asUintN(64, v);
}
