import { cuda, f32, i32 } from "cudascript";

/** Dot product of a row with a vector, iterating the vector with for-of. */
export const rowDot = cuda.jit((m: Float32Array, v: Float32Array, cols: i32, out: Float32Array) => {
  const r = cuda.grid(1);
  if (r >= out.length) return;
  let acc: f32 = 0;
  let c = 0;
  for (const vc of v) { // @expect CS1011
    acc += m[r * cols + c] * vc;
    c++;
  }
  out[r] = acc;
});

export const rowDotOk = cuda.jit((m: Float32Array, v: Float32Array, cols: i32, out: Float32Array) => {
  const r = cuda.grid(1);
  if (r >= out.length) return;
  let acc: f32 = 0;
  for (let c = 0; c < cols; c++) {
    acc += m[r * cols + c] * v[c];
  }
  out[r] = acc;
});

// for-of is fine on the host.
export function hostSum(v: Float32Array): number {
  let s = 0;
  for (const x of v) s += x;
  return s;
}
