/**
 * i64/u64 corners of the simulator's bigint representation (compiler/src/js/int64.ts,
 * runtime/src/simulator/int64.ts): the branches the inline BigInt.asIntN code leaves to helpers
 * (shift counts, division by zero, float → i64), the wraps of unary operators, and values held in
 * per-thread storage across a barrier, each against TypeScript's bigint arithmetic wrapped to 64 bits.
 */
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CudaScriptError } from "cudascript";
import { compileSource, kernel } from "./helpers";

const art = compileSource(`
import { cuda, i64, u64 } from "cudascript";

export const shifts = cuda.jit((a: BigInt64Array, n: BigInt64Array, out: BigInt64Array) => {
  const i = cuda.grid(1);
  if (i >= a.length) return;
  out[2 * i] = a[i] << n[i];
  out[2 * i + 1] = a[i] >> n[i];
});

export const ushifts = cuda.jit((a: BigUint64Array, n: BigUint64Array, out: BigUint64Array) => {
  const i = cuda.grid(1);
  if (i >= a.length) return;
  out[2 * i] = a[i] << n[i];
  out[2 * i + 1] = a[i] >> n[i];
});

export const divisions = cuda.jit((a: BigInt64Array, b: BigInt64Array, out: BigInt64Array) => {
  const i = cuda.grid(1);
  if (i >= a.length) return;
  out[2 * i] = a[i] / b[i];
  out[2 * i + 1] = a[i] % b[i];
});

export const unaryU64 = cuda.jit((a: BigUint64Array, out: BigUint64Array) => {
  const i = cuda.grid(1);
  if (i >= a.length) return;
  out[2 * i] = -a[i];
  out[2 * i + 1] = ~a[i];
});

export const fromFloat = cuda.jit((x: Float64Array, out: BigInt64Array, outU: BigUint64Array) => {
  const i = cuda.grid(1);
  if (i >= x.length) return;
  out[i] = BigInt(Math.trunc(x[i]));
  outU[i] = BigInt.asUintN(64, BigInt(Math.trunc(x[i])));
});

export const truthiness = cuda.jit((a: BigInt64Array, out: Int32Array) => {
  const i = cuda.grid(1);
  if (i >= a.length) return;
  const x = a[i];
  let r = 0;
  if (x) r += 1;
  if (!x) r += 10;
  r += x && x > 0n ? 100 : 0;
  out[i] = r;
});

/** Values live across a barrier sit in per-thread storage (a scalar and a local array). */
export const acrossBarrier = cuda.jit((k: i64, out: BigInt64Array) => {
  const s = cuda.shared.array(64, i64);
  const t = cuda.threadIdx.x;
  const acc: i64 = BigInt(t) * k;
  const l = cuda.local.array(2, u64);
  l[0] = BigInt.asUintN(64, acc) + 1n;
  s[t] = acc;
  cuda.syncthreads();
  out[t] = acc + s[63 - t] + BigInt.asIntN(64, l[0]);
});

export const index64 = cuda.jit((i: i64, out: Int32Array) => {
  out[Number(i)] = 1;
});
`);

const MIN = -(2n ** 63n), MAX = 2n ** 63n - 1n;
const wI = (v: bigint) => BigInt.asIntN(64, v), wU = (v: bigint) => BigInt.asUintN(64, v);

describe("i64/u64 corners on the simulator", () => {
  it("shift counts outside 0…63 give 0 for << and 0 or -1 (the sign) for >>, as PTX's shl/shr; counts inside shift as bigints do", () => {
    const cases: [bigint, bigint][] = [[5n, 0n], [-5n, 63n], [MAX, 1n], [MIN, 62n], [3n, 64n], [-3n, 64n], [7n, 100n], [-7n, -1n], [MIN, MIN]];
    const out = new BigInt64Array(cases.length * 2);
    kernel(art, "shifts").launch(1, 32)(BigInt64Array.from(cases.map((c) => c[0])), BigInt64Array.from(cases.map((c) => c[1])), out);
    cases.forEach(([a, n], i) => {
      const inRange = n >= 0n && n <= 63n;
      assert.deepEqual([out[2 * i], out[2 * i + 1]], [inRange ? wI(a << n) : 0n, inRange ? a >> n : a < 0n ? -1n : 0n], `a=${a} n=${n}`);
    });
    const ucases: [bigint, bigint][] = [[2n ** 64n - 1n, 63n], [2n ** 64n - 1n, 64n], [12345n, 2n ** 64n - 1n], [1n << 63n, 1n]];
    const uout = new BigUint64Array(ucases.length * 2);
    kernel(art, "ushifts").launch(1, 32)(BigUint64Array.from(ucases.map((c) => c[0])), BigUint64Array.from(ucases.map((c) => c[1])), uout);
    ucases.forEach(([a, n], i) => {
      assert.deepEqual([uout[2 * i], uout[2 * i + 1]], n <= 63n ? [wU(a << n), a >> n] : [0n, 0n], `a=${a} n=${n}`);
    });
  });

  it("/ and % truncate as bigints do, -2^63 / -1 wraps to -2^63, and division by zero is 0 (the simulator's rule)", () => {
    const cases: [bigint, bigint][] = [[7n, 2n], [-7n, 2n], [7n, -2n], [MIN, -1n], [MIN, 3n], [MAX, 0n], [0n, 0n], [-5n, 0n]];
    const out = new BigInt64Array(cases.length * 2);
    kernel(art, "divisions").launch(1, 32)(BigInt64Array.from(cases.map((c) => c[0])), BigInt64Array.from(cases.map((c) => c[1])), out);
    cases.forEach(([a, b], i) => {
      assert.deepEqual([out[2 * i], out[2 * i + 1]], b === 0n ? [0n, 0n] : [wI(a / b), a % b], `a=${a} b=${b}`);
    });
  });

  it("u64 negation and ~ wrap modulo 2^64", () => {
    const values = [0n, 1n, 2n ** 63n, 2n ** 64n - 1n, 0xdeadbeefn];
    const out = new BigUint64Array(values.length * 2);
    kernel(art, "unaryU64").launch(1, 32)(BigUint64Array.from(values), out);
    values.forEach((a, i) => assert.deepEqual([out[2 * i], out[2 * i + 1]], [wU(-a), wU(~a)], `a=${a}`));
  });

  it("BigInt(Math.trunc(x)) of a double is exact past 2^53 and wraps negative values to u64", () => {
    const xs = [0, -0, 3.9, -3.9, 2 ** 53 + 2, -(2 ** 60), 2 ** 62, 1e18];
    const out = new BigInt64Array(xs.length), outU = new BigUint64Array(xs.length);
    kernel(art, "fromFloat").launch(1, 32)(Float64Array.from(xs), out, outU);
    assert.deepEqual([...out], xs.map((x) => BigInt(Math.trunc(x))));
    assert.deepEqual([...outU], xs.map((x) => wU(BigInt(Math.trunc(x)))));
  });

  it("a bigint is true when not 0n in if, ! and &&", () => {
    const values = [0n, 1n, -1n, 2n ** 62n, MIN];
    const out = new Int32Array(values.length);
    kernel(art, "truthiness").launch(1, 32)(BigInt64Array.from(values), out);
    assert.deepEqual([...out], values.map((x) => (x !== 0n ? 1 : 10) + (x !== 0n && x > 0n ? 100 : 0)));
  });

  it("i64 values (a scalar parameter past 2^53, a scalar and a local array) survive a barrier in per-thread storage", () => {
    const k = 2n ** 57n + 3n;
    const out = new BigInt64Array(64);
    kernel(art, "acrossBarrier").launch(1, 64)(k, out);
    const acc = (t: number) => wI(BigInt(t) * k);
    assert.deepEqual([...out], Array.from({ length: 64 }, (_, t) => wI(acc(t) + acc(63 - t) + wI(wU(acc(t)) + 1n))));
  });

  it("an i64 index past the array (even past 2^53) is the out-of-bounds error CSR020, not a wrapped index", () => {
    const out = new Int32Array(4);
    kernel(art, "index64").launch(1, 1)(3n, out);
    assert.deepEqual([...out], [0, 0, 0, 1]);
    for (const i of [4n, -1n, 2n ** 53n + 1n, 2n ** 32n + 1n])
      assert.throws(() => kernel(art, "index64").launch(1, 1)(i, out), (e: unknown) => e instanceof CudaScriptError && e.code === "CSR020", `i=${i}`);
  });
});
