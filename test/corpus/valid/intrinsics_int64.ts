import { cuda, i32, i64, u64 } from "cudascript";

/** cuda.popc/brev/clz/ffs on 64-bit values (Numba's test_intrinsics *_u8 / *_i8 cases, and more). */
export const bits64 = cuda.jit((x: BigUint64Array, y: BigInt64Array, popc: Int32Array, brev: BigUint64Array, clz: Int32Array, ffs: Int32Array) => {
  const i = cuda.grid(1);
  if (i >= x.length) return;
  popc[i] = cuda.popc(x[i]);
  brev[i] = cuda.brev(x[i]);
  clz[i] = cuda.clz(y[i]);
  ffs[i] = cuda.ffs(y[i]);
});

/** A warp sum of i64 values with shflDownSync, and a u64 butterfly xor with shflXorSync. */
export const warpShuffles64 = cuda.jit((x: BigInt64Array, sums: BigInt64Array, xors: BigUint64Array) => {
  const i = cuda.grid(1);
  const lane = cuda.laneid;
  let v: i64 = i < x.length ? x[i] : 0n;
  let w: u64 = BigInt.asUintN(64, v);
  for (let offset: i32 = 16; offset > 0; offset >>= 1) {
    v += cuda.shflDownSync(0xffffffff, v, offset);
    w ^= cuda.shflXorSync(0xffffffff, w, offset);
  }
  const warp = (i / 32) | 0;
  if (lane === 0 && warp < sums.length) sums[warp] = v;
  if (i < xors.length) xors[i] = w;
});
