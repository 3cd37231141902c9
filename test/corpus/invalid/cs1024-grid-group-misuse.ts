import { cuda, f64, i32 } from "cudascript";

/** Numba habits with cooperative groups that CudaScript spells differently. */
const relax = cuda.device((a: Float64Array, i: i32): void => {
  a[i] *= 0.5;
  cuda.cg.thisGrid().sync(); // @expect CS1024
});

export const solver = cuda.jit((a: Float64Array, steps: i32) => {
  const grid = cuda.cg.thisGrid();
  const rank = grid.thread_rank(); // @expect CS1024
  const same = grid; // @expect CS1024
  let other = cuda.cg.thisGrid(); // @expect CS1024
  for (let t = 0; t < steps; t++) {
    if (rank < a.length) relax(a, rank);
    grid.sync();
  }
});

export const okSolver = cuda.jit((a: Float64Array, steps: i32, k: f64) => {
  const grid = cuda.cg.thisGrid();
  const i = cuda.grid(1);
  for (let t = 0; t < steps; t++) {
    if (i < a.length) a[i] *= k;
    grid.sync();
  }
});
