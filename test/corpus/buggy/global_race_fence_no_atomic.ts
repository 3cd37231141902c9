import { cuda, f32 } from "cudascript";
import type { BugCase } from "./case";

/**
 * The "last block" reduction with a plain counter where CUDA's threadFenceReduction has an atomic: the
 * fence orders this block's writes, but nothing makes the next block see them in order — the blocks
 * race on the counter itself.
 */
export const lastBlockPlainFlag = cuda.jit((partial: Float32Array, count: Int32Array, out: Float32Array) => {
  const b = cuda.blockIdx.x;
  if (cuda.threadIdx.x === 0) {
    partial[b] = b + 1;
    cuda.threadfence();
    const seen = count[0] + 1; // @bug grid-race
    count[0] = seen;
    if (seen === cuda.gridDim.x) {
      let s: f32 = 0;
      for (let j = 0; j < cuda.gridDim.x; j++) s += partial[j];
      out[0] = s;
    }
  }
});

export const bug: BugCase = { kernel: "lastBlockPlainFlag", grid: 4, block: 32, args: () => [new Float32Array(4), new Int32Array(1), new Float32Array(1)], needsSanitizer: true };
