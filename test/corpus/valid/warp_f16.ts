import { cuda, f16, Float16Array, u32 } from "cudascript";

/**
 * f16 values through warp shuffles and matches, which move and compare their 16 bits (0 and -0 differ,
 * NaN matches NaN, subnormals and infinities pass unchanged), under masks a float cannot hold: 0x7fffffff
 * and 0xfffffffe once became 0x80000000 and 0xffffffff in the PTX. Each lane calls with a mask that names
 * it and reads only lanes of that mask (or itself). blockDim.x must be a multiple of 32; lanes past the end
 * hold 1.
 */
export const halfShuffles = cuda.jit(
  (x: Float16Array, idx: Float16Array, up: Float16Array, down: Float16Array, xor: Float16Array, peers: Uint32Array) => {
    const i = cuda.grid(1);
    const lane = cuda.laneid;
    const v: f16 = i < x.length ? x[i] : 1;
    let a: f16 = 0, b: f16 = 0, c: f16 = 0, d: f16 = 0;
    // Lanes 0…30 reverse their values and read the lane below; lane 31 keeps its own.
    if (lane < 31) {
      a = cuda.shflSync(0x7fffffff, v, 30 - lane);
      b = cuda.shflUpSync(0x7fffffff, v, 1);
    } else {
      a = cuda.shflSync(0x80000000, v, 31);
      b = cuda.shflUpSync(0x80000000, v, 0);
    }
    // Lanes 1…31 read the lane above (lane 31: past the warp, its own value); lane 0 keeps its own.
    if (lane > 0) c = cuda.shflDownSync(0xfffffffe, v, 1);
    else c = cuda.shflDownSync(0x00000001, v, 0);
    // Lanes 1…30 swap with lane 31 - lane; lanes 0 and 31 swap with each other.
    if (lane > 0 && lane < 31) d = cuda.shflXorSync(0x7ffffffe, v, 31);
    else d = cuda.shflXorSync(0x80000001, v, 31);
    // The lanes whose reversed value has the same bits as this lane's.
    const same: u32 = cuda.matchAnySync(0xffffffff, a);
    if (i < x.length) {
      idx[i] = a;
      up[i] = b;
      down[i] = c;
      xor[i] = d;
      peers[i] = same;
    }
  },
);

/**
 * matchAnySync / matchAllSync of f16 keys (Numba compares a float's bits): the full warp, then lanes
 * 1…31 alone (mask 0xfffffffe) while lane 0 matches by itself.
 */
export const halfMatch = cuda.jit((x: Float16Array, any: Uint32Array, all: Uint32Array, anyPartial: Uint32Array, allPartial: Uint32Array) => {
  const i = cuda.grid(1);
  const v: f16 = i < x.length ? x[i] : 1;
  const whole = cuda.matchAnySync(0xffffffff, v);
  const every = cuda.matchAllSync(0xffffffff, v);
  let some: u32 = 0, each: u32 = 0;
  if (cuda.laneid > 0) {
    some = cuda.matchAnySync(0xfffffffe, v);
    each = cuda.matchAllSync(0xfffffffe, v);
  } else {
    some = cuda.matchAnySync(0x00000001, v);
    each = cuda.matchAllSync(0x00000001, v);
  }
  if (i < x.length) {
    any[i] = whole;
    all[i] = every;
    anyPartial[i] = some;
    allPartial[i] = each;
  }
});
