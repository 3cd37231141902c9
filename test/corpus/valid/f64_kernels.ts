import { cuda, f64 } from "cudascript";

const TPB = 128;

/** y = a * x + y in double precision. */
export const daxpy = cuda.jit((a: f64, x: Float64Array, y: Float64Array) => {
  const i = cuda.grid(1);
  if (i < y.length) {
    y[i] = a * x[i] + y[i];
  }
});

/** Per-block sums of squares in f64 shared memory, plus the grand total via a f64 atomic add. */
export const dsumSquares = cuda.jit((x: Float64Array, partial: Float64Array, total: Float64Array) => {
  const tile = cuda.shared.array(TPB, f64);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  let v: f64 = 0;
  if (i < x.length) {
    v = x[i] * x[i];
  }
  tile[t] = v;
  cuda.syncthreads();
  for (let s = TPB >> 1; s > 0; s >>= 1) {
    if (t < s) {
      tile[t] += tile[t + s];
    }
    cuda.syncthreads();
  }
  if (t === 0) {
    partial[cuda.blockIdx.x] = tile[0];
    cuda.atomic.add(total, 0, tile[0]);
  }
});

/** Euclidean norms of consecutive 3-vectors with Math.sqrt in f64. */
export const dnorm3 = cuda.jit((v: Float64Array, norms: Float64Array) => {
  const i = cuda.grid(1);
  if (i < norms.length) {
    const a = v[3 * i];
    const b = v[3 * i + 1];
    const c = v[3 * i + 2];
    norms[i] = Math.sqrt(a * a + b * b + c * c);
  }
});
