import { cuda, f32 } from "cudascript";
import type { BugCase } from "./case";

const TPB = 64;

/** Tree reduction that forgot the barrier inside the loop. */
export const sumNoSync = cuda.jit((x: Float32Array, partial: Float32Array) => {
  const tile = cuda.shared.array(TPB, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  tile[t] = i < x.length ? x[i] : 0;
  cuda.syncthreads();
  for (let s = TPB >> 1; s > 0; s >>= 1) {
    if (t < s) {
      tile[t] += tile[t + s]; // @bug race
    }
  }
  cuda.syncthreads();
  if (t === 0) {
    partial[cuda.blockIdx.x] = tile[0];
  }
});

export const bug: BugCase = { kernel: "sumNoSync", grid: 2, block: TPB, args: () => [Float32Array.from({ length: 128 }, (_, k) => k), new Float32Array(2)], needsSanitizer: true };
