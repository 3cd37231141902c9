import { cuda, bool, Array1D, Array2D } from "cudascript";

/** flags[i] = x[i] > threshold: a 1-D bool output (Array1D<bool>; Uint8Array would be u8). */
export const positives = cuda.jit((x: Float32Array, flags: Array1D<bool>) => {
  const i = cuda.grid(1);
  if (i < flags.length) {
    flags[i] = x[i] > 0;
  }
});

/** Counts the set flags of each row of a 2-D bool mask, reading the 1-D flags as well. */
export const countRows = cuda.jit((mask: Array2D<bool>, keep: Array1D<bool>, counts: Int32Array) => {
  const r = cuda.grid(1);
  if (r < mask.shape[0]) {
    let n = 0;
    for (let c = 0; c < mask.shape[1]; c++) {
      if (mask[r][c] && keep[c]) n++;
    }
    counts[r] = n;
  }
});
