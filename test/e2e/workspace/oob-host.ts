// Host program whose kernel writes past the end of its output (n is one more than out holds): the run
// fails with CSR020, and the results panel lists the failed launch.
import { cuda, i32 } from "cudascript";

export const fill = cuda.jit((out: Float32Array, n: i32) => {
  const i = cuda.grid(1);
  if (i < n) out[i] = 1;
});

const out = new Float32Array(32);
fill.launch(1, 64)(out, 33);
console.log("not reached");
