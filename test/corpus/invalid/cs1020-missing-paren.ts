// A kernel with a TypeScript syntax error (a missing ')'): check, compile and run stop with CS1020 here.
import { cuda } from "cudascript";

export const scale = cuda.jit((x: Float32Array) => {
  const i = cuda.grid(1; // @expect CS1020
  if (i < x.length) x[i] = x[i] * 2;
});

scale.launch(1, 32)(new Float32Array(4));
