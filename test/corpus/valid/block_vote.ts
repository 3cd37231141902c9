import { cuda, f32 } from "cudascript";

/**
 * Block-wide votes: per block, how many elements exceed the threshold (syncthreadsCount), whether any
 * element is negative (syncthreadsOr), and whether every thread of the block had an element
 * (syncthreadsAnd). Thread 0 writes the block's results.
 */
export const blockVote = cuda.jit(
  (x: Float32Array, threshold: f32, counts: Int32Array, anyNegative: Uint8Array, allInRange: Int32Array) => {
    const i = cuda.grid(1);
    const inRange = i < x.length;
    const v = inRange ? x[i] : 0;
    const count = cuda.syncthreadsCount(inRange && v > threshold);
    const anyNeg = cuda.syncthreadsOr(v < 0);
    const all = cuda.syncthreadsAnd(inRange);
    if (cuda.threadIdx.x === 0) {
      const b = cuda.blockIdx.x;
      counts[b] = count;
      anyNegative[b] = anyNeg !== 0 ? 1 : 0;
      allInRange[b] = all !== 0 ? 1 : 0;
    }
  },
);
