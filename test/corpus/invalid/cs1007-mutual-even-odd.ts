import { cuda, i32 } from "cudascript";

// isEven -> isOdd -> isEven: the cycle closes at the call in isOdd.
const isEven: (n: i32) => i32 = cuda.device((n: i32) => {
  if (n === 0) return 1;
  return isOdd(n - 1);
});

const isOdd: (n: i32) => i32 = cuda.device((n: i32) => {
  if (n === 0) return 0;
  return isEven(n - 1); // @expect CS1007
});

export const parity = cuda.jit((x: Int32Array, out: Int32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) {
    out[i] = isEven(x[i]);
  }
});

/** What to write: `1 - (n & 1)`. */
export const parityBits = cuda.jit((x: Int32Array, out: Int32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) {
    out[i] = 1 - (x[i] & 1);
  }
});
