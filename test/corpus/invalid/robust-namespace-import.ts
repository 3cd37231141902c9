// Kernels written against a namespace import are checked like any other.
import * as cs from "cudascript";

export const copy = cs.cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cs.cuda.grid(1);
  if (i < out.length) out[i] = x[i];
});

export const copyAndReport = cs.cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cs.cuda.grid(1);
  if (i >= out.length) return;
  out[i] = x[i];
  return out[i]; // @expect CS2001
});

export function run(x: Float32Array): Float32Array {
  const out = new Float32Array(x.length);
  copy.launch(Math.ceil(x.length / 128), 128)(x, out);
  copy.launch(1, 1025)(x, out); // @expect CS4001
  return out;
}
