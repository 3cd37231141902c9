import { cuda, f64, i32, type Array1D } from "cudascript";

/**
 * Cooperative groups' grid sync (docs/kernel-language.md#grid-synchronisation): Numba's 1-D heat
 * equation, every time step in one launch with g.sync() between steps and the buffers alternating by
 * parity; and a ring where each block reads what the previous block wrote before the barrier.
 */
const nextTemperature = cuda.device((data: Array1D<f64>, i: i32, k: f64): f64 => {
  const curr = data[i];
  if (i === 0) return curr + k * (data[i + 1] - 2 * curr);
  if (i === data.length - 1) return curr + k * (data[i - 1] - 2 * curr);
  return curr + k * (data[i - 1] - 2 * curr + data[i + 1]);
});

export const heatSteps = cuda.jit((buf0: Array1D<f64>, buf1: Array1D<f64>, timesteps: i32, k: f64) => {
  const g = cuda.cg.thisGrid();
  for (let step = 0; step < timesteps; step++) {
    // A grid-stride loop: the grid may be smaller than the data (co-residency).
    for (let i = cuda.grid(1); i < buf0.length; i += cuda.gridsize(1)) {
      if (step % 2 === 0) buf1[i] = nextTemperature(buf0, i, k);
      else buf0[i] = nextTemperature(buf1, i, k);
    }
    g.sync();
  }
});

export const blockRing = cuda.jit((published: Int32Array, seen: Int32Array, rounds: i32) => {
  const b = cuda.blockIdx.x;
  const nb = cuda.gridDim.x;
  for (let r = 0; r < rounds; r++) {
    if (cuda.threadIdx.x === 0) published[b] = (b + 1) * 100 + r;
    cuda.cg.thisGrid().sync();
    if (cuda.threadIdx.x === 0) seen[r * nb + b] = published[(b + nb - 1) % nb];
    cuda.cg.thisGrid().sync();
  }
});
