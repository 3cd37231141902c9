import { cuda, f32 } from "cudascript";
import type { BugCase } from "./case";

/** `<=` instead of `<`: thread n writes out[n]. */
export const scale = cuda.jit((x: Float32Array, out: Float32Array, k: f32) => {
  const i = cuda.grid(1);
  if (i <= x.length) {
    out[i] = k * (i < x.length ? x[i] : 0); // @bug out-of-bounds
  }
});

export const bug: BugCase = { kernel: "scale", grid: 2, block: 64, args: () => [new Float32Array(100), new Float32Array(100), 2], needsSanitizer: false };
