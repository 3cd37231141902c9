import { cuda, i32 } from "cudascript";

const K = 8;

/**
 * Each thread sorts its own group of K consecutive values with an insertion sort in a per-thread local
 * array. Thread g handles x[g*K .. g*K+K); a tail shorter than K is left untouched.
 */
export const sortGroupsOf8 = cuda.jit((x: Int32Array, out: Int32Array) => {
  const buf = cuda.local.array(K, i32);
  const g = cuda.grid(1);
  const groups = (x.length / K) | 0;
  if (g < groups) {
    const base = g * K;
    for (let k = 0; k < K; k++) {
      buf[k] = x[base + k];
    }
    for (let a = 1; a < K; a++) {
      const key = buf[a];
      let b = a - 1;
      while (b >= 0 && buf[b] > key) {
        buf[b + 1] = buf[b];
        b--;
      }
      buf[b + 1] = key;
    }
    for (let k = 0; k < K; k++) {
      out[base + k] = buf[k];
    }
  }
});
