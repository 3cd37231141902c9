import { cuda, i32 } from "cudascript";

/** For each query, the first (row, col) of a matrix equal to it, as row * cols + col; -1 if absent. */
export const findFirst = cuda.jit((m: Int32Array, rows: i32, cols: i32, queries: Int32Array, out: Int32Array) => {
  const q = cuda.grid(1);
  if (q >= queries.length) return;
  let at = -1;
  search: for (let r = 0; r < rows; r++) { // @expect CS1011
    for (let c = 0; c < cols; c++) {
      if (m[r * cols + c] === queries[q]) {
        at = r * cols + c;
        break search;
      }
    }
  }
  out[q] = at;
});

/** Without labels: one flat loop (or a flag tested by the outer loop). */
export const findFirstOk = cuda.jit((m: Int32Array, rows: i32, cols: i32, queries: Int32Array, out: Int32Array) => {
  const q = cuda.grid(1);
  if (q >= queries.length) return;
  let at = -1;
  for (let k = 0; k < rows * cols; k++) {
    if (m[k] === queries[q]) {
      at = k;
      break;
    }
  }
  out[q] = at;
});
