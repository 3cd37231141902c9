import { cuda } from "cudascript";
import type { BugCase } from "./case";

/**
 * A cooperative kernel that reads its neighbour block's element before the grid barrier that would order
 * it: block 1 overwrites a[32..63] after block 0 read them (on a GPU block 0 may read either value).
 */
export const shiftBeforeSync = cuda.jit((a: Float32Array, out: Float32Array) => {
  const g = cuda.cg.thisGrid();
  const i = cuda.grid(1);
  if (i < a.length) a[i] = i; // @bug grid-race
  if (i < out.length) out[i] = a[(i + 32) % a.length];
  g.sync();
  if (i < out.length) out[i] += a[i];
});

export const bug: BugCase = { kernel: "shiftBeforeSync", grid: 4, block: 32, args: () => [new Float32Array(128), new Float32Array(128)], needsSanitizer: true };
