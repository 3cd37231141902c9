import { cuda } from "cudascript";

/**
 * Numba's own warp tests (numba-cuda's test_warp_ops.py), ported. use_lanemask_lt: each thread stores
 * cuda.lanemaskLt() and reads nothing else of its lane (the simulator once gave 0 unless the kernel also
 * read cuda.laneid). The lane is threadIdx.x mod 32 in a 1-D block, whatever the grid index.
 */
export const useLanemaskLt = cuda.jit((x: Uint32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) x[i] = cuda.lanemaskLt();
});

/** The same in blocks of any shape: the lane is the linear thread index mod 32. */
export const useLanemaskLt3d = cuda.jit((x: Uint32Array) => {
  const t = (cuda.threadIdx.z * cuda.blockDim.y + cuda.threadIdx.y) * cuda.blockDim.x + cuda.threadIdx.x;
  if (t < x.length) x[t] = cuda.lanemaskLt();
});

/**
 * use_match_all_sync: the full mask in a block with fewer than 32 threads (or a partial last warp).
 * Only the lanes that exist take part, so the result is the mask of those lanes (0x3ff for 10 threads:
 * PTX's match.all gives "the non-exited threads in membermask"), or 0 when their values differ.
 * matchAnySync beside it, on the same rule.
 */
export const useMatchSync = cuda.jit((aryIn: Int32Array, all: Uint32Array, any: Uint32Array) => {
  const i = cuda.threadIdx.x;
  // Launched with one thread per element: every thread passes the test.
  if (i < aryIn.length) {
    all[i] = cuda.matchAllSync(0xffffffff, aryIn[i]);
    any[i] = cuda.matchAnySync(0xffffffff, aryIn[i]);
  }
});
