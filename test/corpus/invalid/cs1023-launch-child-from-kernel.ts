import { cuda, f32 } from "cudascript";

/** Dynamic parallelism: a kernel (or a device function) launching a kernel, ported from CUDA C++. */
export const refine = cuda.jit((cells: Float32Array, factor: f32) => {
  const i = cuda.grid(1);
  if (i < cells.length) cells[i] *= factor;
});

const refineAll = cuda.device((cells: Float32Array): void => {
  refine.forall(cells.length)(cells, 2); // @expect CS1023
});

export const coarse = cuda.jit((cells: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= cells.length) return;
  if (cells[i] > 1) refine.launch(Math.ceil(cells.length / 256), 256)(cells, 0.5); // @expect CS1023
  if (i === 0) refineAll(cells);
});
