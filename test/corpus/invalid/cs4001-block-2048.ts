import { cuda, f32 } from "cudascript";

export const saxpy = cuda.jit((a: f32, x: Float32Array, y: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = a * x[i] + y[i];
});

export function run(x: Float32Array, y: Float32Array): Float32Array {
  const out = new Float32Array(x.length);
  saxpy.launch(10, 2048)(2, x, y, out); // @expect CS4001
  saxpy.launch(Math.ceil(x.length / 1024), 1024)(2, x, y, out);
  return out;
}
