import { cuda, f32, i32 } from "cudascript";

export const saxpy = cuda.jit((a: f32, x: Float32Array, y: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = a * x[i] + y[i];
});

export const shift = cuda.jit((x: Float32Array, k: i32, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i + k < x.length && i < out.length) out[i] = x[i + k];
});

export function run(x: Float32Array, y: Float32Array): Float32Array {
  const out = new Float32Array(x.length);
  const blocks = Math.ceil(x.length / 128);
  saxpy.launch(blocks, 128)("2", x, y, out); // @expect CS4005
  saxpy.launch(blocks, 128)(2, 0, y, out); // @expect CS4005
  shift.launch(blocks, 128)(x, { by: 1 }, out); // @expect CS4005
  shift.launch(blocks, 128)(x, 1, out);
  return out;
}
