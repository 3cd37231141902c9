import { cuda, i32 } from "cudascript";

/** A "generic" kernel that takes the dimensionality as a parameter. */
export const linearIndex = cuda.jit((ndim: i32, out: Int32Array) => {
  const i = cuda.grid(ndim); // @expect CS2010
  if (i < out.length) out[i] = i;
});

/** There is no 4-D grid. */
export const fourD = cuda.jit((out: Int32Array) => {
  const i = cuda.grid(4); // @expect CS2010
  if (i < out.length) out[i] = 1;
});

const DIMS = 1;

/** A module constant is fine. */
export const linearIndexOk = cuda.jit((out: Int32Array) => {
  const i = cuda.grid(DIMS);
  const stride = cuda.gridsize(DIMS);
  for (let k = i; k < out.length; k += stride) out[k] = k;
});
