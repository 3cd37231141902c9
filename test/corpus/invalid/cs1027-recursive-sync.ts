import { cuda, f32, i32 } from "cudascript";

/** A recursive function that synchronises: every thread would have to reach the barrier at the same depth. */
const sum: (a: Float32Array, n: i32) => f32 = cuda.device((a: Float32Array, n: i32): f32 => {
  cuda.syncthreads(); // @expect CS1027
  return n === 0 ? 0 : a[n - 1] + sum(a, n - 1);
});

export const k = cuda.jit((a: Float32Array, out: Float32Array) => {
  const s = sum(a, a.length);
  if (cuda.grid(1) === 0) out[0] = s;
});
