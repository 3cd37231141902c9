import { cuda, i64, u64 } from "cudascript";

/**
 * Every 64-bit atomic on one global and one shared element per op: sums past 2^53 (exact), bit
 * operations on high bits, max/min of negative i64s, exchange and compare-and-swap.
 */
export const atomics64 = cuda.jit((x: BigInt64Array, s: BigInt64Array, u: BigUint64Array, race: BigInt64Array, old: BigInt64Array) => {
  const i = cuda.grid(1);
  const acc = cuda.shared.array(2, i64);
  if (cuda.threadIdx.x === 0) {
    acc[0] = 0n;
    acc[1] = 0n;
  }
  cuda.syncthreads();
  if (i < x.length) {
    const v = x[i];
    cuda.atomic.add(s, 0, v);
    cuda.atomic.sub(s, 1, v);
    cuda.atomic.max(s, 2, v);
    cuda.atomic.min(s, 3, v);
    cuda.atomic.and(s, 4, v | 0x100000000n);
    cuda.atomic.or(s, 5, v & 0x7ff0000000000000n);
    cuda.atomic.xor(s, 6, v);
    cuda.atomic.add(acc, 0, v >> 4n);
    const w: u64 = BigInt.asUintN(64, v);
    cuda.atomic.add(u, 0, w);
    cuda.atomic.max(u, 1, w);
    cuda.atomic.min(u, 2, w);
    cuda.atomic.nanmax(u, 3, w >> 1n);
    // Exactly one thread wins the swap from 0; every thread's exch returns a distinct previous value.
    old[i] = cuda.atomic.compareAndSwap(race, 0, 0n, BigInt(i) + 1n);
    cuda.atomic.exch(race, 1, v);
  }
  cuda.syncthreads();
  if (cuda.threadIdx.x === 0) cuda.atomic.add(s, 7, acc[0]);
});
