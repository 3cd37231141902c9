import { cuda, f16, Array2D, Float16Array } from "cudascript";

/** a·x + y in f16: the product and the sum each round to f16 (two roundings, as Numba's float16). */
export const halfAxpy = cuda.jit((a: f16, x: Float16Array, y: Float16Array, out: Float16Array) => {
  const i = cuda.grid(1);
  if (i < x.length) out[i] = a * x[i] + y[i];
});

/**
 * f16 in shared and local arrays, comparisons, Math functions (sqrt, abs, floor, max), literals, and
 * explicit conversions to and from f32 and i32.
 */
export const halfMix = cuda.jit((x: Float16Array, flags: Int32Array, wide: Float32Array, h: Float16Array) => {
  const tile = cuda.shared.array(64, f16);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  tile[t] = i < x.length ? x[i] : 0;
  cuda.syncthreads();
  if (i >= x.length) return;
  const parts = cuda.local.array(3, f16);
  const v = tile[t];
  parts[0] = Math.sqrt(Math.abs(v));
  parts[1] = Math.floor(v * 3);
  parts[2] = Math.max(v, tile[(t + 1) % 64]);
  let acc: f16 = 0;
  for (let k = 0; k < 3; k++) acc += parts[k];
  flags[i] = (v < 0.5 ? 1 : 0) + (v === parts[2] ? 2 : 0) + (Math.f16round(i) > v ? 4 : 0) + (v !== v ? 8 : 0);
  wide[i] = Math.fround(v) * 0.1;
  h[i] = Math.f16round(wide[i]) / 3 + acc - Math.f16round(t);
});

/** A 2-D f16 array, transposed and negated. */
export const halfTranspose = cuda.jit((m: Array2D<f16>, out: Array2D<f16>) => {
  const [r, c] = cuda.grid(2);
  if (r < m.shape[0] && c < m.shape[1]) out[c][r] = -m[r][c];
});
