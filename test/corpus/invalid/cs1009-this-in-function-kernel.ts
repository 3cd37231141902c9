import { cuda, f32 } from "cudascript";

/** A `function` kernel that reads a field through `this`, as if it were a method. */
export const scaleBy = cuda.jit(function (x: Float32Array, out: Float32Array) {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = x[i] * this.factor; // @expect CS1009
  }
});

/** Pass the value as a kernel parameter. */
export const scaleByOk = cuda.jit(function (x: Float32Array, factor: f32, out: Float32Array) {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = x[i] * factor;
  }
});
