import { cuda } from "cudascript";
import type { BugCase } from "./case";

/** Off by one: the last thread reads x[n]. */
export const shiftLeft = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = x[i + 1]; // @bug out-of-bounds
  }
});

export const bug: BugCase = { kernel: "shiftLeft", grid: 4, block: 32, args: () => [new Float32Array(128), new Float32Array(128)], needsSanitizer: false };
