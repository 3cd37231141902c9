import { cuda, i32 } from "cudascript";
import type { BugCase } from "./case";

/** Doubling from zero never reaches the limit: thread 0 spins forever. */
export const spin = cuda.jit((out: Int32Array, limit: i32) => {
  const i = cuda.grid(1);
  let k = i;
  while (k < limit) { // @bug timeout
    k = k * 2;
  }
  if (i < out.length) {
    out[i] = k;
  }
});

export const bug: BugCase = { kernel: "spin", grid: 1, block: 32, args: () => [new Int32Array(32), 1000], needsSanitizer: true };
