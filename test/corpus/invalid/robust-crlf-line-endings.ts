import { cuda, f32, i32 } from "cudascript";

// This file uses CRLF line endings; line numbers must still match.
const TPB = 64;

export const scale = cuda.jit((x: Float32Array, s: f32) => {
  const i = cuda.grid(1);
  if (i < x.length) x[i] *= s;
});

export const windowed = cuda.jit((x: Float32Array, n: i32, out: Float32Array) => {
  const buf = cuda.local.array(n, f32); // @expect CS3001
  const i = cuda.grid(1);
  if (i < out.length) out[i] = x[i];
});

export function run(x: Float32Array): void {
  scale.launch(Math.ceil(x.length / TPB), TPB)(x, 2);
  scale.launch(1, 4096)(x, 2); // @expect CS4001
}
