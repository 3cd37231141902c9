// Recursion across files: isEven (here) calls isOdd (cs1007-cross-file-odd.ts), which calls isEven.
// Each file reports CS1007 at its own call into the cycle, and `run` stops before launching.
import { cuda, i32 } from "cudascript";
import { isOdd } from "./cs1007-cross-file-odd";

export const isEven: (n: i32) => i32 = cuda.device((n: i32) => {
  if (n === 0) return 1;
  return isOdd(n - 1); // @expect CS1007
});

export const parity = cuda.jit((x: Int32Array, out: Int32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) out[i] = isEven(x[i]);
});

const out = new Int32Array(3);
parity.launch(1, 32)(Int32Array.of(3, 4, 7), out);
console.log(`parity: ${out.join(",")}`);
