import { cuda, f32, Array2D } from "cudascript";

export const scale = cuda.jit((x: Float32Array, s: f32) => {
  const i = cuda.grid(1);
  if (i < x.length) x[i] *= s;
});

export const scale2d = cuda.jit((m: Array2D<f32>, s: f32) => {
  const [r, c] = cuda.grid(2);
  if (r < m.shape[0] && c < m.shape[1]) m[r][c] *= s;
});

export function run(x: Float32Array, m: Array2D<f32>): void {
  scale.launch(0, 128)(x, 2); // @expect CS4002
  scale.launch(4, -32)(x, 2); // @expect CS4002
  scale2d.launch([8, 8], [16, 0])(m, 2); // @expect CS4002
  scale2d.launch([8, 8], [16, 16])(m, 2);
}
