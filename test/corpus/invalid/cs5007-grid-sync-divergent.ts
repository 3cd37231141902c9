import { cuda, i32 } from "cudascript";

/** Numba's laplace example returns out-of-range threads before the loop: they never reach grid.sync(). */
export const heat = cuda.jit((buf0: Float64Array, buf1: Float64Array, steps: i32) => {
  const i = cuda.grid(1);
  if (i >= buf0.length) return;
  const grid = cuda.cg.thisGrid();
  for (let step = 0; step < steps; step++) {
    if (step % 2 === 0) buf1[i] = buf0[i];
    else buf0[i] = buf1[i];
    grid.sync(); // @expect CS5007
  }
});

/** Only block 0 waits: the other blocks never arrive. */
export const leader = cuda.jit((flags: Int32Array) => {
  const g = cuda.cg.thisGrid();
  if (cuda.blockIdx.x === 0) {
    flags[cuda.threadIdx.x] = 1;
    g.sync(); // @expect CS5007
  }
});

/** Guard the work, not the barrier. */
export const heatOk = cuda.jit((buf0: Float64Array, buf1: Float64Array, steps: i32) => {
  const i = cuda.grid(1);
  const grid = cuda.cg.thisGrid();
  for (let step = 0; step < steps; step++) {
    if (i < buf0.length) {
      if (step % 2 === 0) buf1[i] = buf0[i];
      else buf0[i] = buf1[i];
    }
    grid.sync();
  }
});
