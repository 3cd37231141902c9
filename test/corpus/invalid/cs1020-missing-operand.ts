// A missing operand: the parser invents an empty name for it, which must not come back as CS1015.
import { cuda, f32 } from "cudascript";

export const scale = cuda.jit((x: Float32Array, k: f32) => {
  const i = cuda.grid(1);
  if (i < x.length) {
    x[i] = x[i] * ; // @expect CS1020
  }
});
