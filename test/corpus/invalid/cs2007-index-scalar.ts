import { cuda, f32, i32 } from "cudascript";

/** The bias was declared as a scalar but indexed like an array. */
export const addBias = cuda.jit((x: Float32Array, bias: f32, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = x[i] + bias[i]; // @expect CS2007
  }
});

/** Indexing a local scalar copy of an element. */
export const firstOfRow = cuda.jit((m: Float32Array, cols: i32, out: Float32Array) => {
  const r = cuda.grid(1);
  if (r < out.length) {
    const row = m[r * cols];
    out[r] = row[0]; // @expect CS2007
  }
});

export const addBiasOk = cuda.jit((x: Float32Array, bias: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = x[i] + bias[i];
  }
});
