import { cuda, f32 } from "cudascript";

/**
 * Sum of x with warp shuffles: each warp reduces its 32 values with shflDownSync, then lane 0 adds the
 * warp's sum to result[0] atomically. Every lane takes part in the shuffles (lanes past the end hold 0).
 * blockDim.x must be a multiple of 32.
 */
export const warpSum = cuda.jit((x: Float32Array, result: Float32Array) => {
  const i = cuda.grid(1);
  let v: f32 = i < x.length ? x[i] : 0;
  for (let offset = cuda.warpsize >> 1; offset > 0; offset >>= 1) {
    v += cuda.shflDownSync(0xffffffff, v, offset);
  }
  if (cuda.laneid === 0) {
    cuda.atomic.add(result, 0, v);
  }
});

/** Integer variant with a butterfly (xor) shuffle: every lane ends with the warp total. */
export const warpSumI32 = cuda.jit((x: Int32Array, result: Int32Array, perWarp: Int32Array) => {
  const i = cuda.grid(1);
  let v = i < x.length ? x[i] : 0;
  for (let mask = 16; mask >= 1; mask = mask >> 1) {
    v += cuda.shflXorSync(0xffffffff, v, mask);
  }
  const warp = (i / 32) | 0;
  // Lane 31 holds the same total as lane 0 after the butterfly.
  if ((cuda.threadIdx.x & 31) === 31 && warp < perWarp.length) {
    perWarp[warp] = v;
  }
  if (cuda.laneid === 0) {
    cuda.atomic.add(result, 0, v);
  }
});
