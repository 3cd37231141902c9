import { cuda, f32 } from "cudascript";
import type { BugCase } from "./case";

/** Sums a per-thread window, but the loop runs one past the local array. */
export const windowSum = cuda.jit((x: Float32Array, out: Float32Array) => {
  const w = cuda.local.array(4, f32);
  const i = cuda.grid(1);
  if (i >= out.length) return;
  for (let k = 0; k < 4; k++) {
    w[k] = i + k < x.length ? x[i + k] : 0;
  }
  let s: f32 = 0;
  for (let k = 0; k <= 4; k++) {
    s += w[k]; // @bug out-of-bounds
  }
  out[i] = s;
});

export const bug: BugCase = { kernel: "windowSum", grid: 1, block: 16, args: () => [new Float32Array(16), new Float32Array(16)], needsSanitizer: false };
