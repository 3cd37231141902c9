import { cuda, f32 } from "cudascript";
import { fill } from "./cs4001-helpers";

export const saxpy = cuda.jit((a: f32, x: Float32Array, y: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = a * x[i] + y[i];
});

export function run(x: Float32Array, y: Float32Array): Float32Array {
  const out = new Float32Array(x.length);
  const blocks = Math.ceil(x.length / 128);
  saxpy.launch(blocks, 128)(x, y); // @expect CS4004
  saxpy.launch(blocks, 128)(2, x, y, out, out); // @expect CS4004
  fill.launch(blocks, 128)(out); // @expect CS4004
  saxpy.launch(blocks, 128)(2, x, y, out);
  return out;
}
