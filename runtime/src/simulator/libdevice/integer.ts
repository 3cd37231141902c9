// Integer functions (bit counts, halving adds, high products, 24-bit products, sums of absolute
// differences, min/max): exact. i32 values are int32 numbers, i64 values bigints; the unsigned
// variants read the same bits as unsigned and return their result with Numba's signed typing.
import { brev64, clz64, ffs64, popc64 } from "../int64";

const u64 = (x: bigint) => BigInt.asUintN(64, x);
const i64 = (x: bigint) => BigInt.asIntN(64, x);

function brev32(x: number): number {
  let v = x >>> 0;
  v = ((v >>> 1) & 0x55555555) | ((v & 0x55555555) << 1);
  v = ((v >>> 2) & 0x33333333) | ((v & 0x33333333) << 2);
  v = ((v >>> 4) & 0x0f0f0f0f) | ((v & 0x0f0f0f0f) << 4);
  v = ((v >>> 8) & 0x00ff00ff) | ((v & 0x00ff00ff) << 8);
  return ((v >>> 16) | (v << 16)) | 0;
}
function popc32(x: number): number {
  let v = x >>> 0;
  v = v - ((v >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) | 0;
}

export const INTEGER = {
  abs: (x: number) => Math.abs(x) | 0,
  llabs: (x: bigint) => (x < 0n ? i64(-x) : x),
  brev: brev32,
  brevll: (x: bigint) => i64(brev64(u64(x))),
  /** Byte i of the result is byte (z >> 4i) & 7 of the eight bytes y:x (x the low four). */
  byte_perm: (x: number, y: number, z: number) => {
    let r = 0;
    for (let i = 0; i < 4; i++) {
      const s = (z >>> (4 * i)) & 7;
      const byte = s < 4 ? (x >>> (8 * s)) & 0xff : (y >>> (8 * (s - 4))) & 0xff;
      r |= byte << (8 * i);
    }
    return r | 0;
  },
  clz: (x: number) => Math.clz32(x),
  clzll: (x: bigint) => clz64(u64(x)),
  ffs: (x: number) => (x === 0 ? 0 : 32 - Math.clz32(x & -x)),
  ffsll: (x: bigint) => ffs64(u64(x)),
  popc: popc32,
  popcll: (x: bigint) => popc64(u64(x)),
  hadd: (x: number, y: number) => Math.floor(((x | 0) + (y | 0)) / 2) | 0,
  rhadd: (x: number, y: number) => Math.floor(((x | 0) + (y | 0) + 1) / 2) | 0,
  uhadd: (x: number, y: number) => Math.floor(((x >>> 0) + (y >>> 0)) / 2) | 0,
  urhadd: (x: number, y: number) => Math.floor(((x >>> 0) + (y >>> 0) + 1) / 2) | 0,
  mulhi: (x: number, y: number) => Number((BigInt(x | 0) * BigInt(y | 0)) >> 32n) | 0,
  umulhi: (x: number, y: number) => Number((BigInt(x >>> 0) * BigInt(y >>> 0)) >> 32n) | 0,
  mul64hi: (x: bigint, y: bigint) => i64((i64(x) * i64(y)) >> 64n),
  umul64hi: (x: bigint, y: bigint) => i64((u64(x) * u64(y)) >> 64n),
  mul24: (x: number, y: number) => Math.imul((x << 8) >> 8, (y << 8) >> 8),
  umul24: (x: number, y: number) => Math.imul(x & 0xffffff, y & 0xffffff),
  sad: (x: number, y: number, z: number) => (Math.abs((x | 0) - (y | 0)) + (z >>> 0)) | 0,
  usad: (x: number, y: number, z: number) => (Math.abs((x >>> 0) - (y >>> 0)) + (z >>> 0)) | 0,
  max: (x: number, y: number) => Math.max(x | 0, y | 0),
  min: (x: number, y: number) => Math.min(x | 0, y | 0),
  umax: (x: number, y: number) => ((x >>> 0) >= (y >>> 0) ? x | 0 : y | 0),
  umin: (x: number, y: number) => ((x >>> 0) <= (y >>> 0) ? x | 0 : y | 0),
  llmax: (x: bigint, y: bigint) => (x >= y ? x : y),
  llmin: (x: bigint, y: bigint) => (x <= y ? x : y),
  ullmax: (x: bigint, y: bigint) => (u64(x) >= u64(y) ? x : y),
  ullmin: (x: bigint, y: bigint) => (u64(x) <= u64(y) ? x : y),
};
