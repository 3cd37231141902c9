import { cuda } from "cudascript";

/** result[0] = max(x), result[1] = min(x) with atomic max / min (result pre-set to INT_MIN / INT_MAX). */
export const minMaxAtomic = cuda.jit((x: Int32Array, result: Int32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) {
    cuda.atomic.max(result, 0, x[i]);
    cuda.atomic.min(result, 1, x[i]);
  }
});

/** The same maximum with a compare-and-swap retry loop (result[0] pre-set to INT_MIN). */
export const casMax = cuda.jit((x: Int32Array, result: Int32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) {
    const v = x[i];
    let old = result[0];
    while (v > old) {
      const prev = cuda.atomic.compareAndSwap(result, 0, old, v);
      if (prev === old) {
        break;
      }
      old = prev;
    }
  }
});

/**
 * Distinct values in [0, seen.length): the first thread to flip seen[v] from 0 to 1 with a CAS counts
 * it. Independent of which thread wins.
 */
export const distinctCount = cuda.jit((values: Int32Array, seen: Int32Array, distinct: Int32Array) => {
  const i = cuda.grid(1);
  if (i < values.length) {
    const old = cuda.atomic.compareAndSwap(seen, values[i], 0, 1);
    if (old === 0) {
      cuda.atomic.add(distinct, 0, 1);
    }
  }
});

/** Order-independent bitwise and subtracting atomics: sub, or, and, xor. */
export const bitAtomics = cuda.jit((x: Int32Array, acc: Int32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) {
    const v = x[i];
    const bit = 1 << (v & 31);
    cuda.atomic.sub(acc, 0, v);
    cuda.atomic.or(acc, 1, bit);
    cuda.atomic.and(acc, 2, ~bit);
    cuda.atomic.xor(acc, 3, v);
  }
});
