/**
 * The reductions of allReduce / reduceScatter, element by element in the dtype's own arithmetic, as
 * NCCL computes them: f32 and f16 rounded at each step (a store into a Float32Array / Float16Array
 * rounds), integers wrapping at their width (NCCL's integer sums wrap), i64/u64 exact in BigInt. The
 * ranks' contributions are combined in rank order, ((r0 ∘ r1) ∘ r2) ∘ …, so a result never depends on
 * which rank arrived first (docs/distributed.md#reduction-order).
 */
import { CudaScriptError } from "../errors";
import { DTYPES, type DTypeName } from "@cudascript/compiler/dtypes";
import { hostArrayClass } from "../dtypes";
import type { Float16Array } from "../float16";

export const REDUCE_OPS = ["sum", "prod", "max", "min"] as const;
export type ReduceOp = (typeof REDUCE_OPS)[number];

/** The dtypes collectives move and reduce (NCCL's ncclDataType_t, less the ones we have no array for). */
export const COLLECTIVE_DTYPES = ["i8", "u8", "i32", "u32", "i64", "u64", "f16", "f32", "f64", "i16", "u16"] as const;

type NumArray = Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array | Float32Array | Float64Array | Float16Array;
type BigArray = BigInt64Array | BigUint64Array;

type ViewClass = new (buffer: ArrayBufferLike, byteOffset: number, length: number) => NumArray | BigArray;

const isCollectiveDtype = (dtype: string): dtype is (typeof COLLECTIVE_DTYPES)[number] => (COLLECTIVE_DTYPES as readonly string[]).includes(dtype);

/** Bytes per element of a collective's dtype (the dtype table's), 0 for any other. */
export function bytesPerElement(dtype: string): number {
  return isCollectiveDtype(dtype) ? DTYPES[dtype].bytes : 0;
}

/** A typed view of `bytes` (copied first when it is not aligned for the dtype). */
export function view(dtype: string, bytes: Uint8Array): NumArray | BigArray {
  const width = bytesPerElement(dtype);
  const aligned = bytes.byteOffset % width === 0 ? bytes : new Uint8Array(bytes);
  // The host's typed-array class of the dtype (the dtype table's; Float16Array for f16).
  const View = hostArrayClass(dtype as DTypeName) as ViewClass;
  return new View(aligned.buffer, aligned.byteOffset, aligned.byteLength / width);
}

const isInteger32 = (dtype: string) => dtype === "i8" || dtype === "u8" || dtype === "i16" || dtype === "u16" || dtype === "i32" || dtype === "u32";

/** `acc[i] = acc[i] ∘ x[i]` for every element, in the dtype's arithmetic. */
export function reduceInto(op: ReduceOp, dtype: string, acc: Uint8Array, x: Uint8Array): void {
  const a = view(dtype, acc);
  const b = view(dtype, x);
  if (a.buffer !== acc.buffer || a.byteOffset !== acc.byteOffset) throw new CudaScriptError("CSR030", "internal: the reduction's accumulator must be aligned");
  if (a instanceof BigInt64Array || a instanceof BigUint64Array) {
    const bb = b as BigArray;
    for (let i = 0; i < a.length; i++) {
      const p = a[i]!, q = bb[i]!;
      a[i] = op === "sum" ? p + q : op === "prod" ? p * q : op === "max" ? (q > p ? q : p) : q < p ? q : p;
    }
    return;
  }
  const bn = b as NumArray;
  const an = a as NumArray;
  if (op === "sum") for (let i = 0; i < an.length; i++) an[i] = an[i]! + bn[i]!;
  // Math.imul keeps the low 32 bits exactly, where a double product of two 32-bit integers can round.
  else if (op === "prod") for (let i = 0; i < an.length; i++) an[i] = isInteger32(dtype) ? Math.imul(an[i]!, bn[i]!) : an[i]! * bn[i]!;
  // NaN wins, as CUDA's fmaxf/fminf do not but NCCL's max/min (a > b ? a : b over floats) may: we say NaN, always.
  else if (op === "max") for (let i = 0; i < an.length; i++) an[i] = Number.isNaN(bn[i]!) ? bn[i]! : bn[i]! > an[i]! ? bn[i]! : an[i]!;
  else for (let i = 0; i < an.length; i++) an[i] = Number.isNaN(bn[i]!) ? bn[i]! : bn[i]! < an[i]! ? bn[i]! : an[i]!;
}

/** The ranks' contributions (in rank order) reduced into a new buffer. */
export function reduceAll(op: ReduceOp, dtype: string, parts: readonly Uint8Array[]): Uint8Array {
  const acc = new Uint8Array(parts[0]!.byteLength);
  acc.set(parts[0]!);
  for (let r = 1; r < parts.length; r++) reduceInto(op, dtype, acc, parts[r]!);
  return acc;
}
