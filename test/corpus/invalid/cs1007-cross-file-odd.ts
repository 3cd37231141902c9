// The other half of the cycle in cs1007-cross-file-even.ts.
import { cuda, i32 } from "cudascript";
import { isEven } from "./cs1007-cross-file-even";

export const isOdd: (n: i32) => i32 = cuda.device((n: i32) => {
  if (n === 0) return 0;
  return isEven(n - 1); // @expect CS1007
});
