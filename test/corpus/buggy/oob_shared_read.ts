import { cuda, f32 } from "cudascript";
import type { BugCase } from "./case";

const TPB = 64;

/** Neighbour difference through shared memory: the last thread reads tile[TPB]. */
export const diff = cuda.jit((x: Float32Array, out: Float32Array) => {
  const tile = cuda.shared.array(TPB, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  tile[t] = i < x.length ? x[i] : 0;
  cuda.syncthreads();
  if (i < out.length) {
    out[i] = tile[t + 1] - tile[t]; // @bug out-of-bounds
  }
});

export const bug: BugCase = { kernel: "diff", grid: 2, block: TPB, args: () => [new Float32Array(128), new Float32Array(128)], needsSanitizer: false };
