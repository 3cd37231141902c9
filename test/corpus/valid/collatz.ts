import { cuda } from "cudascript";

/** Collatz: steps to reach 1 and the largest value on the way (a `while` loop with `continue`). */
export const collatzSteps = cuda.jit((start: Int32Array, steps: Int32Array, peak: Int32Array) => {
  const i = cuda.grid(1);
  if (i < start.length) {
    let v = start[i];
    let n = 0;
    let top = v;
    while (v !== 1) {
      n++;
      if ((v & 1) === 0) {
        v = v >> 1;
        continue;
      }
      v = 3 * v + 1;
      if (v > top) {
        top = v;
      }
    }
    steps[i] = n;
    peak[i] = top;
  }
});

/** Decimal digit count and digit sum of |x| (a `do…while` loop: 0 has one digit). */
export const digitStats = cuda.jit((x: Int32Array, digits: Int32Array, sums: Int32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) {
    let v = x[i];
    if (v < 0) {
      v = -v;
    }
    let count = 0;
    let sum = 0;
    do {
      sum += v % 10;
      v = (v / 10) | 0;
      count++;
    } while (v > 0);
    digits[i] = count;
    sums[i] = sum;
  }
});
