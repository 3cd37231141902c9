import { cuda, u32 } from "cudascript";

/**
 * Every shuffle and match on the value dtypes that have their own CUDA overloads (i64, u64, f64) and on
 * bool, under the mask 0x7fffffff (lanes 0…30; lane 31 calls alone with 0x80000000): the values move
 * and compare whole, the mask stays an integer. Each lane reads only lanes of its own mask. blockDim.x
 * must be a multiple of 32; the arrays are as long as the grid.
 */
export const shuffleI64 = cuda.jit((x: BigInt64Array, out: BigInt64Array, peers: Uint32Array) => {
  const i = cuda.grid(1);
  const lane = cuda.laneid;
  const v = i < x.length ? x[i] : 0n;
  let a = v, b = v, c = v;
  let same: u32 = 0;
  if (lane < 31) {
    a = cuda.shflSync(0x7fffffff, v, 30 - lane);
    b = cuda.shflUpSync(0x7fffffff, v, 1);
    c = cuda.shflXorSync(0x7fffffff, v, lane < 30 ? 1 : 0) + cuda.shflDownSync(0x7fffffff, v, lane < 29 ? 2 : 0);
    same = cuda.matchAnySync(0x7fffffff, v);
  } else {
    same = cuda.matchAllSync(0x80000000, v);
  }
  if (i < x.length) {
    out[3 * i] = a;
    out[3 * i + 1] = b;
    out[3 * i + 2] = c;
    peers[i] = same;
  }
});

export const shuffleU64 = cuda.jit((x: BigUint64Array, out: BigUint64Array, peers: Uint32Array) => {
  const i = cuda.grid(1);
  const lane = cuda.laneid;
  const v = i < x.length ? x[i] : 0n;
  let a = v, b = v, c = v;
  let same: u32 = 0;
  if (lane < 31) {
    a = cuda.shflSync(0x7fffffff, v, 30 - lane);
    b = cuda.shflUpSync(0x7fffffff, v, 1);
    c = cuda.shflXorSync(0x7fffffff, v, lane < 30 ? 1 : 0) + cuda.shflDownSync(0x7fffffff, v, lane < 29 ? 2 : 0);
    same = cuda.matchAnySync(0x7fffffff, v);
  } else {
    same = cuda.matchAllSync(0x80000000, v);
  }
  if (i < x.length) {
    out[3 * i] = a;
    out[3 * i + 1] = b;
    out[3 * i + 2] = c;
    peers[i] = same;
  }
});

export const shuffleF64 = cuda.jit((x: Float64Array, out: Float64Array, peers: Uint32Array) => {
  const i = cuda.grid(1);
  const lane = cuda.laneid;
  const v = i < x.length ? x[i] : 0;
  let a = v, b = v, c = v;
  let same: u32 = 0;
  if (lane < 31) {
    a = cuda.shflSync(0x7fffffff, v, 30 - lane);
    b = cuda.shflUpSync(0x7fffffff, v, 1);
    c = cuda.shflXorSync(0x7fffffff, v, lane < 30 ? 1 : 0) * cuda.shflDownSync(0x7fffffff, v, lane < 29 ? 2 : 0);
    same = cuda.matchAnySync(0x7fffffff, v);
  } else {
    same = cuda.matchAllSync(0x80000000, v);
  }
  if (i < x.length) {
    out[3 * i] = a;
    out[3 * i + 1] = b;
    out[3 * i + 2] = c;
    peers[i] = same;
  }
});

/** bool: matched (as an int) and voted on over lanes 0…30 (ballot, any, all, eq); shuffled as 0 or 1. */
export const shuffleBool = cuda.jit((x: Int32Array, out: Int32Array, votes: Uint32Array) => {
  const i = cuda.grid(1);
  const lane = cuda.laneid;
  const p = i < x.length && x[i] > 0;
  let q = p;
  let ballot: u32 = 0, same: u32 = 0, all: u32 = 0, reduced = 0;
  if (lane < 31) {
    q = cuda.shflSync(0x7fffffff, p ? 1 : 0, 30 - lane) !== 0;
    ballot = cuda.ballotSync(0x7fffffff, q);
    same = cuda.matchAnySync(0x7fffffff, p);
    reduced = (cuda.anySync(0x7fffffff, p) ? 1 : 0) + (cuda.allSync(0x7fffffff, p) ? 2 : 0) + (cuda.eqSync(0x7fffffff, p) ? 4 : 0);
    all = cuda.matchAllSync(0x7fffffff, p);
  } else {
    ballot = cuda.ballotSync(0x80000000, p);
    same = cuda.matchAnySync(0x80000000, p);
    reduced = (cuda.anySync(0x80000000, p) ? 1 : 0) + (cuda.allSync(0x80000000, p) ? 2 : 0) + (cuda.eqSync(0x80000000, p) ? 4 : 0);
    all = cuda.matchAllSync(0x80000000, p);
  }
  if (i < x.length) {
    out[i] = q ? 1 : 0;
    votes[4 * i] = ballot;
    votes[4 * i + 1] = same;
    votes[4 * i + 2] = reduced;
    votes[4 * i + 3] = all;
  }
});
