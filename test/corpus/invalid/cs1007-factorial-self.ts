import { cuda, i32 } from "cudascript";

/** n! by recursion: its result type must be written (TS7023 too), so that the recursive call has one. */
const fact: (n: i32) => i32 = cuda.device((n: i32) => {
  if (n <= 1) return 1;
  return n * fact(n - 1); // @expect CS1007
});

/** The loop version. */
const factLoop = cuda.device((n: i32) => {
  let r = 1;
  for (let k = 2; k <= n; k++) r *= k;
  return r;
});

export const factorials = cuda.jit((n: Int32Array, out: Int32Array, outLoop: Int32Array) => {
  const i = cuda.grid(1);
  if (i < n.length) {
    out[i] = fact(n[i]);
    outLoop[i] = factLoop(n[i]);
  }
});
