// Conversions with a rounding mode, bit casts and half precision. Float → integer conversions behave as
// the GPU's cvt instruction: round in the given mode, saturate to the destination's range, NaN → 0 for
// 32-bit destinations and the 64-bit pattern 0x8000000000000000 for 64-bit ones. Unsigned results are
// returned with Numba's signed typing (the same bits: 4294967295 → -1).
import { Float16Array } from "../../float16";
import { BINARY32, BINARY64, f32Bits, f32FromBits, f64Bits, f64FromBits, roundDyadic, roundRational, toDyadic, type RoundingMode } from "./exact";

const MODES = ["rn", "rz", "ru", "rd"] as const;

/** x rounded to an integral value in `mode` (x finite). */
export function roundIntegral(x: number, mode: RoundingMode): number {
  switch (mode) {
    case "rz": return Math.trunc(x);
    case "ru": return Math.ceil(x);
    case "rd": return Math.floor(x);
    default: return rintNearestEven(x);
  }
}
/** Round half to even, keeping −0 (rint). */
export function rintNearestEven(x: number): number {
  const a = Math.abs(x);
  if (!(a < 4503599627370496)) return x; // ≥ 2^52 (already integral), ±∞, NaN
  const r = a + 4503599627370496 - 4503599627370496;
  return x < 0 || Object.is(x, -0) ? -r : r;
}

function toI32(x: number, mode: RoundingMode): number {
  if (Number.isNaN(x)) return 0;
  const r = roundIntegral(x, mode);
  return r >= 2147483647 ? 2147483647 : r <= -2147483648 ? -2147483648 : r | 0;
}
function toU32(x: number, mode: RoundingMode): number {
  if (Number.isNaN(x)) return 0;
  const r = roundIntegral(x, mode);
  return r >= 4294967295 ? -1 : r <= 0 ? 0 : r | 0;
}
const I64_MIN = -(2n ** 63n);
export function toI64(x: number, mode: RoundingMode): bigint {
  if (Number.isNaN(x)) return I64_MIN;
  const r = roundIntegral(x, mode);
  if (r >= 9223372036854775807) return 2n ** 63n - 1n;
  if (r <= -9223372036854775808) return I64_MIN;
  return BigInt(r);
}
function toU64(x: number, mode: RoundingMode): bigint {
  if (Number.isNaN(x)) return I64_MIN;
  const r = roundIntegral(x, mode);
  if (r >= 18446744073709551615) return -1n;
  if (r <= 0) return 0n;
  return BigInt.asIntN(64, BigInt(r));
}

function intTo(value: bigint, format: typeof BINARY32, mode: RoundingMode): number {
  return roundDyadic(value, 0, format, mode);
}

function toF32(x: number, mode: RoundingMode): number {
  if (mode === "rn" || !Number.isFinite(x) || x === 0) return Math.fround(x);
  const d = toDyadic(x);
  return roundDyadic(d.m, d.e, BINARY32, mode);
}

const table: Record<string, (...args: never[]) => unknown> = {};
for (const mode of MODES) {
  table[`double2float_${mode}`] = (d: number) => toF32(d, mode);
  table[`double2int_${mode}`] = (d: number) => toI32(d, mode);
  table[`double2uint_${mode}`] = (d: number) => toU32(d, mode);
  table[`double2ll_${mode}`] = (f: number) => toI64(f, mode);
  table[`double2ull_${mode}`] = (f: number) => toU64(f, mode);
  table[`float2int_${mode}`] = (x: number) => toI32(x, mode);
  table[`float2uint_${mode}`] = (x: number) => toU32(x, mode);
  table[`float2ll_${mode}`] = (f: number) => toI64(f, mode);
  table[`float2ull_${mode}`] = (f: number) => toU64(f, mode);
  table[`int2float_${mode}`] = (x: number) => (mode === "rn" ? Math.fround(x) : intTo(BigInt(x | 0), BINARY32, mode));
  table[`uint2float_${mode}`] = (x: number) => (mode === "rn" ? Math.fround(x >>> 0) : intTo(BigInt(x >>> 0), BINARY32, mode));
  table[`ll2float_${mode}`] = (l: bigint) => intTo(BigInt.asIntN(64, l), BINARY32, mode);
  table[`ull2float_${mode}`] = (l: bigint) => intTo(BigInt.asUintN(64, l), BINARY32, mode);
  table[`ll2double_${mode}`] = (l: bigint) => intTo(BigInt.asIntN(64, l), BINARY64, mode);
  table[`ull2double_${mode}`] = (l: bigint) => intTo(BigInt.asUintN(64, l), BINARY64, mode);
}

const half = new Float16Array(1);
const halfBits = new Uint16Array(half.buffer);

export const CONVERSION = {
  ...(table as Record<string, never>),
  int2double_rn: (i: number) => i | 0,
  uint2double_rn: (i: number) => i >>> 0,
  double2hiint: (d: number) => Number(f64Bits(d) >> 32n) | 0,
  double2loint: (d: number) => Number(f64Bits(d) & 0xffffffffn) | 0,
  hiloint2double: (x: number, y: number) => f64FromBits((BigInt(x >>> 0) << 32n) | BigInt(y >>> 0)),
  double_as_longlong: (x: number) => BigInt.asIntN(64, f64Bits(x)),
  longlong_as_double: (x: bigint) => f64FromBits(x),
  float_as_int: (x: number) => f32Bits(x) | 0,
  int_as_float: (x: number) => f32FromBits(x),
  // NaN → 0x7fff, the GPU's canonical half NaN (cvt.rn.f16.f32)
  float2half_rn: (f: number) => {
    if (Number.isNaN(f)) return 0x7fff;
    half[0] = f;
    return (halfBits[0]! << 16) >> 16;
  },
  half2float: (h: number) => {
    halfBits[0] = h & 0xffff;
    return half[0]!;
  },
} as Record<string, (...args: never[]) => unknown>;

export { roundRational };
