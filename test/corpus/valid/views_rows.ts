import { cuda, Array2D, Array3D, f32, i32 } from "cudascript";

/** Sum of a 1-D array: a whole array or a row view, alike. */
const rowTotal = cuda.device((r: Float32Array): f32 => {
  let s: f32 = 0;
  for (let k = 0; k < r.length; k++) s += r[k];
  return s;
});

/** Sum of a 2-D array: a whole matrix or a plane of a volume. */
const planeTotal = cuda.device((p: Array2D<f32>): f32 => {
  let s: f32 = 0;
  for (let y = 0; y < p.shape[0]; y++) s += rowTotal(p[y]);
  return s;
});

/**
 * Row sums through `m[i]` as a 1-D view (Numba's `m[i]`): summed in the kernel, through a device
 * function, and without its first and last element (`m[i].subarray(1, -1)`); the row's largest element
 * counted with an atomic on a row of a 2-D counts array.
 */
export const rowSums = cuda.jit((m: Array2D<f32>, sums: Float32Array, viaDevice: Float32Array, inner: Float32Array, hits: Array2D<i32>) => {
  const i = cuda.grid(1);
  if (i >= m.shape[0]) return;
  const row = m[i];
  let s: f32 = 0;
  for (let k = 0; k < row.length; k++) s += row[k];
  sums[i] = s;
  viaDevice[i] = rowTotal(m[i]);
  inner[i] = rowTotal(row.subarray(1, -1));
  let best = 0;
  for (let k = 1; k < row.length; k++) if (row[k] > row[best]) best = k;
  cuda.atomic.add(hits[i % hits.shape[0]], best, 1);
});

/** Plane sums of a volume through `t[z]` as a 2-D view, and a row of a shared 2-D tile per thread. */
export const planeSums = cuda.jit((t: Array3D<f32>, out: Float32Array, rowsOut: Array2D<f32>) => {
  const z = cuda.grid(1);
  const tile = cuda.shared.array([4, 8], f32);
  const tx = cuda.threadIdx.x;
  if (tx < 4) for (let k = 0; k < 8; k++) tile[tx][k] = tx * 8 + k;
  cuda.syncthreads();
  if (z >= t.shape[0]) return;
  const plane = t[z];
  out[z] = planeTotal(plane) + rowTotal(plane[0]) * 0;
  const mine = tile[z % 4];
  const dst = rowsOut[z];
  for (let k = 0; k < dst.length; k++) dst[k] = mine[k % mine.length] + plane.shape[0] * plane.shape[1];
});
