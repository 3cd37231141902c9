import { cuda } from "cudascript";

/**
 * Integer division and remainder at their edges, defined alike on every backend (issue 28,
 * docs/kernel-language.md#semantics): MIN / -1 wraps to MIN and MIN % -1 is 0 (C++'s plain `/` `%`
 * trap there: SIGFPE on a CPU, undefined on a GPU), and a division or remainder by zero is 0.
 */
export const divI32 = cuda.jit((a: Int32Array, b: Int32Array, q: Int32Array, r: Int32Array, t: Int32Array) => {
  const i = cuda.grid(1);
  if (i < a.length) {
    q[i] = (a[i] / b[i]) | 0;
    r[i] = a[i] % b[i];
    t[i] = Math.trunc(a[i] / b[i]);
  }
});

export const divU32 = cuda.jit((a: Uint32Array, b: Uint32Array, q: Uint32Array, r: Uint32Array) => {
  const i = cuda.grid(1);
  if (i < a.length) {
    q[i] = Math.trunc(a[i] / b[i]);
    r[i] = a[i] % b[i];
  }
});

export const divI64 = cuda.jit((a: BigInt64Array, b: BigInt64Array, q: BigInt64Array, r: BigInt64Array) => {
  const i = cuda.grid(1);
  if (i < a.length) {
    q[i] = a[i] / b[i];
    r[i] = a[i] % b[i];
    let c = a[i];
    c /= b[i];
    c %= b[i] | 2n;
    q[i] += c;
  }
});

export const divU64 = cuda.jit((a: BigUint64Array, b: BigUint64Array, q: BigUint64Array, r: BigUint64Array) => {
  const i = cuda.grid(1);
  if (i < a.length) {
    q[i] = a[i] / b[i];
    r[i] = a[i] % b[i];
  }
});
