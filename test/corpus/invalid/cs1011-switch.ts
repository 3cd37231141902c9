import { cuda, f32, i32 } from "cudascript";

/** Element-wise op picked by an integer code. */
export const elementwise = cuda.jit((op: i32, a: Float32Array, b: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  switch (op) { // @expect CS1011
    case 0:
      out[i] = a[i] + b[i];
      break;
    case 1:
      out[i] = a[i] * b[i];
      break;
    default:
      out[i] = 0;
  }
});

/** Write the same as an if/else chain. */
export const elementwiseOk = cuda.jit((op: i32, a: Float32Array, b: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  let v: f32 = 0;
  if (op === 0) {
    v = a[i] + b[i];
  } else if (op === 1) {
    v = a[i] * b[i];
  }
  out[i] = v;
});
