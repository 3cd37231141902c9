import { cuda, f32 } from "cudascript";
import type { BugCase } from "./case";

const NX = 64, NY = 48;

/**
 * PolyBench/GPU's atax, first kernel, ported faithfully: launched with 32×8 blocks but indexed by
 * threadIdx.x only, so the 8 threads of a column (y = 0..7) all reset and accumulate the same tmp[i].
 * The simulator runs them one after the other to the right sum; a GPU interleaves them.
 */
export const ataxKernel1 = cuda.jit((A: Float32Array, x: Float32Array, tmp: Float32Array) => {
  const i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x;
  if (i < NX) {
    tmp[i] = 0; // @bug global-race
    for (let j = 0; j < NY; j++) {
      tmp[i] += A[i * NY + j] * x[j];
    }
  }
});

const A = () => Float32Array.from({ length: NX * NY }, (_, k) => ((k * 7) % 13) / 13);
export const bug: BugCase = { kernel: "ataxKernel1", grid: [2, 1], block: [32, 8], args: () => [A(), Float32Array.from({ length: NY }, (_, j) => j / NY), new Float32Array(NX)], needsSanitizer: true };
void f32;
