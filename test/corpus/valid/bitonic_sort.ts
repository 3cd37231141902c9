import { cuda, i32 } from "cudascript";

/**
 * One compare-exchange step (j, k) of a bitonic sort of a power-of-two length array, ascending.
 * The host launches it for k = 2, 4, …, n and, within each k, j = k/2, k/4, …, 1.
 */
export const bitonicStep = cuda.jit((a: Int32Array, j: i32, k: i32) => {
  const i = cuda.grid(1);
  if (i >= a.length) {
    return;
  }
  const partner = i ^ j;
  if (partner > i) {
    const ai = a[i];
    const ap = a[partner];
    const ascending = (i & k) === 0;
    if ((ascending && ai > ap) || (!ascending && ai < ap)) {
      a[i] = ap;
      a[partner] = ai;
    }
  }
});
