import { cuda, f32, i32 } from "cudascript";

/** Row means; the author started on an accumulator class inside the kernel. */
export const rowMeans = cuda.jit((x: Float32Array, cols: i32, out: Float32Array) => {
  const r = cuda.grid(1);
  if (r >= out.length) return;
  class Acc { // @expect CS1009
    sum = 0;
    n = 0;
    add(v: number) {
      this.sum += v;
      this.n++;
    }
  }
  let sum: f32 = 0;
  for (let c = 0; c < cols; c++) sum += x[r * cols + c];
  out[r] = sum / cols;
});

/** The same with scalar locals only. */
export const rowMeansOk = cuda.jit((x: Float32Array, cols: i32, out: Float32Array) => {
  const r = cuda.grid(1);
  if (r >= out.length) return;
  let sum: f32 = 0;
  for (let c = 0; c < cols; c++) sum += x[r * cols + c];
  out[r] = sum / cols;
});

// Classes are fine on the host.
export class RowMeans {
  constructor(readonly cols: number) {}
  run(x: Float32Array): Float32Array {
    const rows = x.length / this.cols;
    const out = new Float32Array(rows);
    rowMeansOk.launch(Math.ceil(rows / 128), 128)(x, this.cols, out);
    return out;
  }
}
