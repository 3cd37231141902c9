import { cuda, f32 } from "cudascript";

const N = 8192;

/** Two 32 KiB tiles: fine one at a time, 64 KiB together. */
export const pairwise = cuda.jit((a: Float32Array, b: Float32Array, out: Float32Array) => { // @expect CS3003
  const sa = cuda.shared.array(N, f32);
  const sb = cuda.shared.array(N, f32);
  const t = cuda.threadIdx.x;
  for (let k = t; k < N; k += cuda.blockDim.x) {
    sa[k] = k < a.length ? a[k] : 0;
    sb[k] = k < b.length ? b[k] : 0;
  }
  cuda.syncthreads();
  const i = cuda.grid(1);
  if (i < out.length && i < N) out[i] = sa[i] * sb[N - 1 - i];
});

const TILE = 128;

/** A 2-D tile of 128 x 128 f32 is 64 KiB on its own. */
export const bigTile = cuda.jit((a: Float32Array, out: Float32Array) => { // @expect CS3003
  const tile = cuda.shared.array([TILE, TILE], f32);
  const tx = cuda.threadIdx.x;
  const ty = cuda.threadIdx.y;
  const k = ty * TILE + tx;
  if (k < a.length) tile[ty][tx] = a[k];
  cuda.syncthreads();
  if (k < out.length) out[k] = tile[tx][ty];
});

/** 48 KiB exactly is allowed. */
export const exactLimit = cuda.jit((a: Float32Array, out: Float32Array) => {
  const sa = cuda.shared.array(8192, f32);
  const sb = cuda.shared.array(4096, f32);
  const t = cuda.threadIdx.x;
  if (t < a.length) {
    sa[t] = a[t];
    sb[t] = a[t];
  }
  cuda.syncthreads();
  if (t < out.length) out[t] = sa[t] + sb[t];
});
