import { cuda, i32 } from "cudascript";

/** Maps each thread to a triangle row: row = floor((sqrt(8i + 1) - 1) / 2); Math results are floats. */
export const triangleRow = cuda.jit((rowStart: Int32Array, out: Int32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const start = rowStart[Math.sqrt(i)]; // @expect CS2002
  out[i] = i - start;
});

export const triangleRowOk = cuda.jit((rowStart: Int32Array, out: Int32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const row: i32 = ((Math.sqrt(8 * i + 1) - 1) / 2) | 0;
  out[i] = i - rowStart[row];
});
