import { cuda, f32, i32 } from "cudascript";

export const shapes = cuda.jit((x: Float32Array, out: Float32Array) => {
  const empty = cuda.local.array(0, f32); // @expect CS3004
  const neg = cuda.shared.array(-4, f32); // @expect CS3004
  const half = cuda.local.array(2.5, i32); // @expect CS3004
  const i = cuda.grid(1);
  if (i < out.length) out[i] = x[i];
});

export const shapes2d = cuda.jit((x: Float32Array, out: Float32Array) => {
  const grid = cuda.local.array([4, -1], f32); // @expect CS3004
  const i = cuda.grid(1);
  if (i < out.length) out[i] = x[i];
});

/** Zero means "dynamic" only for shared arrays. */
export const dynamicOk = cuda.jit((x: Float32Array, out: Float32Array) => {
  const buf = cuda.shared.array(0, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  buf[t] = i < x.length ? x[i] : 0;
  cuda.syncthreads();
  if (i < out.length) out[i] = buf[t];
});
