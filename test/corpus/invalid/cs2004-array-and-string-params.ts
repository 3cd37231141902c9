import { cuda, f32, i32 } from "cudascript";

/** Plain JS arrays and strings cannot be kernel parameters: use typed arrays and numbers. */
export const sumRows = cuda.jit(
  (
    x: number[], // @expect CS2004
    rows: Array<number>, // @expect CS2004
    out: Float32Array,
  ) => {
    const r = cuda.grid(1);
    if (r < out.length) out[r] = 0;
  },
);

export const labelled = cuda.jit((label: string, x: Float32Array) => { // @expect CS2004
  const i = cuda.grid(1);
  if (i < x.length) x[i] = 0;
});

export const sumRowsOk = cuda.jit((x: Float32Array, cols: i32, out: Float32Array) => {
  const r = cuda.grid(1);
  if (r >= out.length) return;
  let s: f32 = 0;
  for (let c = 0; c < cols; c++) s += x[r * cols + c];
  out[r] = s;
});
