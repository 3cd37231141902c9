import { cuda, i32, i64 } from "cudascript";

// Recursion in device functions (issue 31 item 3): Numba's recursion_usecases, ported. A recursive
// function's result type is written (as TypeScript asks of one: TS7023, here CS1007).

/** recursion_usecases.fib3: self-recursion with an explicit signature. */
const fib3 = cuda.device((n: i32): i64 => {
  if (n < 2) return 1n;
  return fib3(n - 1) + fib3(n - 2);
});

/** Mutual recursion (recursion_usecases' make_mutual_recursion / is_even-is_odd style). */
const isEven: (n: i32) => boolean = cuda.device((n: i32): boolean => (n === 0 ? true : isOdd(n - 1)));
const isOdd: (n: i32) => boolean = cuda.device((n: i32): boolean => (n === 0 ? false : isEven(n - 1)));

/** Ackermann's function, whose depth grows faster than its arguments (kept small). */
const ackermann = cuda.device((m: i32, n: i32): i32 => {
  if (m === 0) return n + 1;
  if (n === 0) return ackermann(m - 1, 1);
  return ackermann(m - 1, ackermann(m, n - 1));
});

export const fibKernel = cuda.jit((n: Int32Array, out: BigInt64Array) => {
  const i = cuda.grid(1);
  if (i < n.length) out[i] = fib3(n[i]);
});

export const parity = cuda.jit((n: Int32Array, even: Int32Array) => {
  const i = cuda.grid(1);
  if (i < n.length) even[i] = isEven(n[i]) ? 1 : 0;
});

export const ackermannKernel = cuda.jit((m: Int32Array, n: Int32Array, out: Int32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = ackermann(m[i], n[i]);
});
