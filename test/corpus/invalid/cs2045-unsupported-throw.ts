import { cuda } from "cudascript";

/** A kernel throws an Error whose message is a string or template literal, and nothing else. */
export const k = cuda.jit((x: Int32Array) => {
  const i = cuda.grid(1);
  if (i >= x.length) return;
  if (x[i] < 0) throw x[i]; // @expect CS2045
  if (x[i] > 100) throw new Error(`x[${i}] = ${x[i]} is too large`);
});
