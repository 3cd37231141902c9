import { cuda, f32, i32 } from "cudascript";

/** Copies each row of a row-major matrix and finds a key; written with host-style typed-array methods. */
export const copyRows = cuda.jit((src: Float32Array, dst: Float32Array, cols: i32) => {
  const r = cuda.grid(1);
  if (r * cols >= src.length) return;
  const row = src.subarray(r * cols, r * cols + cols); // a view: fine in kernels
  dst.set(row, r * cols); // @expect CS1004
});

export const findKey = cuda.jit((keys: Int32Array, queries: Int32Array, found: Int32Array) => {
  const q = cuda.grid(1);
  if (q >= queries.length) return;
  found[q] = keys.indexOf(queries[q]); // @expect CS1004
});

/** The fix: explicit loops. */
export const findKeyLoop = cuda.jit((keys: Int32Array, queries: Int32Array, found: Int32Array) => {
  const q = cuda.grid(1);
  if (q >= queries.length) return;
  let at = -1;
  for (let k = 0; k < keys.length; k++) {
    if (keys[k] === queries[q]) {
      at = k;
      break;
    }
  }
  found[q] = at;
});

export const copyRowsLoop = cuda.jit((src: Float32Array, dst: Float32Array, cols: i32) => {
  const r = cuda.grid(1);
  if (r * cols >= src.length) return;
  for (let c = 0; c < cols; c++) {
    const v: f32 = src[r * cols + c];
    dst[r * cols + c] = v;
  }
});
