import { cuda } from "cudascript";

/** 2^32 elements: does not fit in a 32-bit integer. */
const MAX_ELEMS = 65536 * 65536; // @expect CS2009
const ROWS = 100000;
const COLS = 50000;
const CELLS = ROWS * COLS; // @expect CS2009

export const clampIndex = cuda.jit((idx: Int32Array, out: Int32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = idx[i] < MAX_ELEMS ? idx[i] : 0;
  }
});

export const cellOf = cuda.jit((lin: Int32Array, out: Int32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = lin[i] % CELLS;
  }
});

/** Host only: a large JS number is fine when no kernel uses it. */
export const HOST_BYTES = 65536 * 65536 * 4;
