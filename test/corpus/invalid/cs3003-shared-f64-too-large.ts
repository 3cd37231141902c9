import { cuda, f64 } from "cudascript";

const N = 16384;

/** Caches a whole 16384-element f64 vector per block: 128 KiB of shared memory. */
export const dotCached = cuda.jit((x: Float64Array, y: Float64Array, out: Float64Array) => { // @expect CS3003
  const cache = cuda.shared.array(N, f64);
  const t = cuda.threadIdx.x;
  for (let k = t; k < N && k < x.length; k += cuda.blockDim.x) cache[k] = x[k];
  cuda.syncthreads();
  const i = cuda.grid(1);
  if (i < out.length && i < N) out[i] = cache[i] * y[i];
});

const CHUNK = 4096;

/** Stage the vector in 32 KiB chunks instead. */
export const dotChunked = cuda.jit((x: Float64Array, y: Float64Array, out: Float64Array) => {
  const cache = cuda.shared.array(CHUNK, f64);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  for (let base = 0; base < x.length; base += CHUNK) {
    for (let k = t; k < CHUNK && base + k < x.length; k += cuda.blockDim.x) cache[k] = x[base + k];
    cuda.syncthreads();
    if (i >= base && i < base + CHUNK && i < out.length) out[i] = cache[i - base] * y[i];
    cuda.syncthreads();
  }
});
