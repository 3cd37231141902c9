import { cuda, f32, Array2D } from "cudascript";

const TPB = 128;

/**
 * Row-wise softmax, one block per row (grid = rows, block = TPB). Each thread strides over the row's
 * columns; the row maximum and the sum of exponentials are tree-reduced in shared memory.
 */
export const softmaxRows = cuda.jit((x: Array2D<f32>, out: Array2D<f32>) => {
  const red = cuda.shared.array(TPB, f32);
  const row = cuda.blockIdx.x;
  const t = cuda.threadIdx.x;
  const cols = x.shape[1];

  let m: f32 = x[row][0];
  for (let c = t; c < cols; c += TPB) {
    m = Math.max(m, x[row][c]);
  }
  red[t] = m;
  cuda.syncthreads();
  for (let s = TPB >> 1; s > 0; s >>= 1) {
    if (t < s) {
      red[t] = Math.max(red[t], red[t + s]);
    }
    cuda.syncthreads();
  }
  const rowMax = red[0];
  cuda.syncthreads();

  let sum: f32 = 0;
  for (let c = t; c < cols; c += TPB) {
    const e = Math.exp(x[row][c] - rowMax);
    out[row][c] = e;
    sum += e;
  }
  red[t] = sum;
  cuda.syncthreads();
  for (let s = TPB >> 1; s > 0; s >>= 1) {
    if (t < s) {
      red[t] += red[t + s];
    }
    cuda.syncthreads();
  }
  const total = red[0];
  for (let c = t; c < cols; c += TPB) {
    out[row][c] = out[row][c] / total;
  }
});
