import { cuda, f32, i32 } from "cudascript";

/**
 * 1-D heat equation, `steps` Jacobi sweeps in one block, ping-ponging two shared buffers the way Numba
 * programs do: `let src = a, dst = b; … const t = src; src = dst; dst = t;` (ends hold their values).
 */
export const heatInBlock = cuda.jit((u: Float32Array, out: Float32Array, steps: i32) => {
  const a = cuda.shared.array(256, f32);
  const b = cuda.shared.array(256, f32);
  const t = cuda.threadIdx.x;
  const n = u.length;
  if (t < n) {
    a[t] = u[t];
    b[t] = u[t];
  }
  cuda.syncthreads();
  let src = a;
  let dst = b;
  for (let it = 0; it < steps; it++) {
    if (t > 0 && t < n - 1) dst[t] = 0.25 * src[t - 1] + 0.5 * src[t] + 0.25 * src[t + 1];
    cuda.syncthreads();
    const tmp = src;
    src = dst;
    dst = tmp;
  }
  if (t < n) out[t] = src[t];
});

/**
 * One sweep per launch over global arrays, the buffers chosen by the step's parity with ?:, plus an
 * atomic through the chosen array and its length.
 */
export const sweepByParity = cuda.jit((x: Float32Array, y: Float32Array, count: Int32Array, it: i32) => {
  const i = cuda.grid(1);
  const src = it % 2 === 0 ? x : y;
  const dst = it % 2 === 0 ? y : x;
  if (i > 0 && i < src.length - 1) {
    dst[i] = (src[i - 1] + src[i] + src[i + 1]) / 3;
    cuda.atomic.add(count, it % 2, 1);
  }
});
