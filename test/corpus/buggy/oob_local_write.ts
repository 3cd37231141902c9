import { cuda, i32 } from "cudascript";
import type { BugCase } from "./case";

/** Digit histogram per thread with 10 bins, but the value can be 10. */
export const digits = cuda.jit((x: Int32Array, out: Int32Array) => {
  const bins = cuda.local.array(10, i32);
  const i = cuda.grid(1);
  if (i >= x.length) return;
  let v = x[i];
  while (v > 0) {
    const d = v % 11;
    bins[d] = bins[d] + 1; // @bug out-of-bounds
    v = (v / 11) | 0;
  }
  out[i] = bins[0];
});

export const bug: BugCase = {
  kernel: "digits",
  grid: 1,
  block: 32,
  args: () => [Int32Array.from({ length: 32 }, (_, k) => 10 + k * 121), new Int32Array(32)],
  needsSanitizer: false,
};
