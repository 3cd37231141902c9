import { cuda, i32 } from "cudascript";
import type { BugCase } from "./case";

const TPB = 32;

/** A halo of one on the left, but the tile was declared without room for it. */
export const shiftRight = cuda.jit((x: Int32Array, out: Int32Array) => {
  const tile = cuda.shared.array(TPB, i32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  tile[t + 1] = i < x.length ? x[i] : 0; // @bug out-of-bounds
  cuda.syncthreads();
  if (i < out.length) {
    out[i] = tile[t];
  }
});

export const bug: BugCase = { kernel: "shiftRight", grid: 1, block: TPB, args: () => [new Int32Array(32), new Int32Array(32)], needsSanitizer: false };
