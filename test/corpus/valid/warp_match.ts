import { cuda, u32 } from "cudascript";

/**
 * Warp match intrinsics, the warp-aggregation pattern: each thread finds the lanes of its warp holding
 * the same key (matchAnySync) and its rank among them (popc of that mask & lanemaskLt); whether the
 * whole warp holds one key (matchAllSync: the mask or 0) and whether "key > 0" is uniform over the warp
 * (eqSync). Lanes past the end take key -1. blockDim.x must be a multiple of 32.
 */
export const warpGroups = cuda.jit(
  (keys: Int32Array, peers: Uint32Array, rank: Int32Array, wholeWarp: Uint32Array, sameSign: Int32Array) => {
    const i = cuda.grid(1);
    const inRange = i < keys.length;
    const key = inRange ? keys[i] : -1;
    const group = cuda.matchAnySync(0xffffffff, key);
    const all = cuda.matchAllSync(0xffffffff, key);
    const uniform = cuda.eqSync(0xffffffff, key > 0);
    if (inRange) {
      peers[i] = group;
      rank[i] = cuda.popc(group & cuda.lanemaskLt());
      wholeWarp[i] = all;
      sameSign[i] = uniform ? 1 : 0;
    }
  },
);

/**
 * Float values compared by their bits (0 and -0 differ, NaN matches NaN), each half-warp on its own in
 * a divergent branch with its own partial mask. Every lane of the block takes part.
 */
export const halfWarpFloatMatch = cuda.jit((x: Float32Array, peers: Uint32Array, whole: Uint32Array) => {
  const i = cuda.grid(1);
  const v = i < x.length ? x[i] : 1;
  let group: u32 = 0;
  let all: u32 = 0;
  if (cuda.laneid < 16) {
    group = cuda.matchAnySync(0x0000ffff, v);
    all = cuda.matchAllSync(0x0000ffff, v);
  } else {
    group = cuda.matchAnySync(0xffff0000, v);
    all = cuda.matchAllSync(0xffff0000, v);
  }
  if (i < x.length) {
    peers[i] = group;
    whole[i] = all;
  }
});
