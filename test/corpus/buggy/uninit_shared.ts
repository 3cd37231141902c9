import { cuda, f32 } from "cudascript";
import type { BugCase } from "./case";

const TPB = 64;

/** Only even threads fill the tile, but every thread reads its right neighbour and stores the sum (CSR068 at the store). */
export const pairs = cuda.jit((x: Float32Array, out: Float32Array) => {
  const tile = cuda.shared.array(TPB, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  if (t % 2 === 0) {
    tile[t] = i < x.length ? x[i] : 0;
  }
  cuda.syncthreads();
  if (i < out.length && t < TPB - 1) {
    out[i] = tile[t] + tile[t + 1]; // @bug undefined-value
  }
});

export const bug: BugCase = { kernel: "pairs", grid: 1, block: TPB, args: () => [new Float32Array(64), new Float32Array(64)], needsSanitizer: true };
