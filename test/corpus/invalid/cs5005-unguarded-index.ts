import { cuda, f32 } from "cudascript";

/** No bounds check: the last block's extra threads read and write past the end. */
export const square = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  const v: f32 = x[i]; // @expect CS5005
  out[i] = v * v; // @expect CS5005
});

/** Per-block partial results indexed from threadIdx without a check. */
export const scatterBlock = cuda.jit((x: Float32Array, out: Float32Array) => {
  const t = cuda.threadIdx.x;
  const base = cuda.blockIdx.x * cuda.blockDim.x;
  out[base + t] = 0; // @expect CS5005
  if (t === 0) out[base] = x[cuda.blockIdx.x];
});

/** Every common form of guard. */
export const squareOk = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = x[i] * x[i];
});

export const earlyReturnOk = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= x.length || i >= out.length) return;
  out[i] = x[i] + 1;
});

export const ternaryOk = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  const v: f32 = i < x.length ? x[i] : 0;
  if (i < out.length) out[i] = v;
});

export const stridedOk = cuda.jit((x: Float32Array, out: Float32Array) => {
  const stride = cuda.gridsize(1);
  for (let k = cuda.grid(1); k < out.length; k += stride) out[k] = x[k % x.length];
});

export const clampedOk = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  const j = Math.min(i, x.length - 1);
  if (i < out.length) out[i] = x[j];
});
