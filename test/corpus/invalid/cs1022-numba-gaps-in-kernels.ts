import { cuda, f32, u32 } from "cudascript";

/** Numba features known but not supported: named as such, with what to write instead. */
export const gaps = cuda.jit((x: Float32Array, out: Float32Array, mask: u32) => {
  const i = cuda.grid(1);
  if (i >= x.length) return;
  const g = cuda.cg.this_grid(); // @expect CS1014
  const r = cuda.random.xoroshiro128p_uniform_float32(mask, i); // @expect CS1014
  out[i] = cuda.float16(x[i]) + cuda.selp(x[i] > 0, x[i], 0); // @expect CS1022
  out[i] += cuda.shfl_down_sync(mask, x[i], 1); // @expect CS1014
});
