import { cuda, f32 } from "cudascript";
import type { BugCase } from "./case";

const TPB = 64;
const HALF = TPB >> 1;

/** Only the first half of the block reaches the barrier. */
export const halfSync = cuda.jit((x: Float32Array, out: Float32Array) => {
  const tile = cuda.shared.array(TPB, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  tile[t] = i < x.length ? x[i] : 0;
  if (t < HALF) {
    cuda.syncthreads(); // @bug divergent-barrier
    tile[t] += tile[t + HALF];
  }
  if (i < out.length) {
    out[i] = tile[t];
  }
});

export const bug: BugCase = { kernel: "halfSync", grid: 1, block: TPB, args: () => [new Float32Array(64), new Float32Array(64)], needsSanitizer: true };
