import { cuda, u32 } from "cudascript";

const NBINS = 64;

/**
 * Privatized histogram: each block counts into a shared-memory histogram with shared atomics, then
 * merges it into the global one. Grid-stride loop, so any grid size works. Bin = value & (NBINS - 1).
 */
export const histogramShared = cuda.jit((values: Int32Array, hist: Uint32Array) => {
  const local = cuda.shared.array(NBINS, u32);
  const t = cuda.threadIdx.x;
  for (let b = t; b < NBINS; b += cuda.blockDim.x) {
    local[b] = 0;
  }
  cuda.syncthreads();
  const stride = cuda.gridsize(1);
  for (let i = cuda.grid(1); i < values.length; i += stride) {
    cuda.atomic.add(local, values[i] & (NBINS - 1), 1);
  }
  cuda.syncthreads();
  for (let b = t; b < NBINS; b += cuda.blockDim.x) {
    const count = local[b];
    if (count > 0) {
      cuda.atomic.add(hist, b, count);
    }
  }
});
