import { cuda, f32 } from "cudascript";
import type { BugCase } from "./case";

/** A 2 × 3 constant table; row 0, column 3 is inside the 6 elements but past the row. */
const TABLE = cuda.ndarray(new Float32Array([1, 2, 3, 4, 5, 6]), [2, 3]);

/** Sums row 0 of the table, but the loop runs one column past it (each dimension is checked). */
export const rowTotal = cuda.jit((out: Float32Array) => {
  const t = cuda.const.arrayLike(TABLE);
  const i = cuda.grid(1);
  if (i >= out.length) return;
  let s: f32 = 0;
  for (let c = 0; c <= t.shape[1]; c++) {
    s += t[0][c]; // @bug out-of-bounds
  }
  out[i] = s;
});

export const bug: BugCase = { kernel: "rowTotal", grid: 1, block: 16, args: () => [new Float32Array(16)], needsSanitizer: false };
