import { cuda, i32 } from "cudascript";

const WIDTH = 8192;

/** A hash with a constant that overflows 32 bits when folded. */
export const hashCells = cuda.jit((keys: Int32Array, out: Int32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const area = WIDTH * WIDTH * 64; // @expect CS2009
  out[i] = keys[i] % area;
});

/** Same, with a constant that fits. */
export const hashCellsOk = cuda.jit((keys: Int32Array, out: Int32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const area: i32 = WIDTH * WIDTH;
  out[i] = keys[i] % area;
});
