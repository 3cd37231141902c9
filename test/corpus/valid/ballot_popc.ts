import { cuda } from "cudascript";

/**
 * Per warp (global warp w = i / 32): how many of its elements are positive (ballot + popc), the lane of
 * the first positive element or -1 (ffs), whether any element is negative and whether all are in range.
 * blockDim.x must be a multiple of 32; every lane takes part in the votes.
 */
export const warpVotes = cuda.jit(
  (x: Float32Array, positives: Int32Array, firstLane: Int32Array, anyNegative: Int32Array, allInRange: Int32Array) => {
    const i = cuda.grid(1);
    const inRange = i < x.length;
    const mask = cuda.ballotSync(0xffffffff, inRange && x[i] > 0);
    const neg = cuda.anySync(0xffffffff, inRange && x[i] < 0);
    const full = cuda.allSync(0xffffffff, inRange);
    const warp = (i / cuda.warpsize) | 0;
    if (cuda.laneid === 0 && warp < positives.length) {
      positives[warp] = cuda.popc(mask);
      firstLane[warp] = cuda.ffs(mask) - 1;
      anyNegative[warp] = neg ? 1 : 0;
      allInRange[warp] = full ? 1 : 0;
    }
  },
);

/** Bit intrinsics on u32 values: popc, clz, ffs, brev. */
export const bitIntrinsics = cuda.jit(
  (x: Uint32Array, pop: Int32Array, lead: Int32Array, first: Int32Array, rev: Uint32Array) => {
    const i = cuda.grid(1);
    if (i < x.length) {
      const v = x[i];
      pop[i] = cuda.popc(v);
      lead[i] = cuda.clz(v);
      first[i] = cuda.ffs(v);
      rev[i] = cuda.brev(v);
    }
  },
);
