import { cuda, i32 } from "cudascript";
import type { BugCase } from "./case";

const TPB = 32;

/** A permutation loaded into shared memory, but the last thread's slot is never filled: it indexes with garbage. */
export const gather = cuda.jit((perm: Int32Array, x: Int32Array, out: Int32Array) => {
  const p = cuda.shared.array(TPB, i32);
  const t = cuda.threadIdx.x;
  if (t < TPB - 1) p[t] = perm[t];
  cuda.syncthreads();
  const k = p[t];
  out[t] = x[k]; // @bug undefined-value
});

export const bug: BugCase = { kernel: "gather", grid: 1, block: TPB, args: () => [new Int32Array(TPB).map((_, i) => TPB - 1 - i), new Int32Array(TPB).map((_, i) => i * 10), new Int32Array(TPB)], needsSanitizer: true };
