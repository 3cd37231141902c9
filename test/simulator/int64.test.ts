/**
 * i64/u64 on the simulator against TypeScript's own bigint arithmetic (wrapped to 64 bits with
 * BigInt.asIntN/asUintN, which is what CUDA C++ computes): values past 2^53 stay exact.
 */
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CudaScriptError } from "cudascript";
import { compileSource, kernel } from "./helpers";

const art = compileSource(`
import { cuda, i64, u64 } from "cudascript";

const BIG = 1n << 40n;

export const i64Ops = cuda.jit((a: BigInt64Array, b: BigInt64Array, out: BigInt64Array, k: i64) => {
  const i = cuda.grid(1);
  if (i >= a.length) return;
  const x = a[i];
  const y = b[i];
  const o = i * 12;
  out[o + 0] = x + y;
  out[o + 1] = x - y;
  out[o + 2] = x * y;
  out[o + 3] = y !== 0n ? x / y : 0n;
  out[o + 4] = y !== 0n ? x % y : 0n;
  out[o + 5] = x & y;
  out[o + 6] = x | y;
  out[o + 7] = x ^ ~y;
  out[o + 8] = x << (y & 63n);
  out[o + 9] = x >> (y & 63n);
  out[o + 10] = -x + k * BIG;
  out[o + 11] = x < y ? BigInt(i) : BigInt(Number(x) > 0 ? 1 : 2);
});

export const u64Ops = cuda.jit((a: BigUint64Array, b: BigUint64Array, out: BigUint64Array) => {
  const i = cuda.grid(1);
  if (i >= a.length) return;
  const x: u64 = a[i];
  const y: u64 = b[i];
  const o = i * 6;
  out[o + 0] = x + y;
  out[o + 1] = x - y;
  out[o + 2] = x * y;
  out[o + 3] = y !== 0n ? x / y : 0n;
  out[o + 4] = x >> (y & 63n);
  out[o + 5] = BigInt.asUintN(64, BigInt.asIntN(64, x) >> 1n);
});

/** Numba's test_intrinsics simple_popc / simple_brev / simple_clz / simple_ffs, with 64-bit arguments. */
export const numbaPopc = cuda.jit((ary: Int32Array, c: u64) => { ary[0] = cuda.popc(c); });
export const numbaBrev = cuda.jit((ary: BigUint64Array, c: u64) => { ary[0] = cuda.brev(c); });
export const numbaClz = cuda.jit((ary: Int32Array, c: i64) => { ary[0] = cuda.clz(c); });
export const numbaFfs = cuda.jit((ary: Int32Array, c: i64) => { ary[0] = cuda.ffs(c); });

export const gridIndex64 = cuda.jit((out: BigInt64Array) => {
  const i = cuda.grid64(1);
  if (i < BigInt(out.length)) out[Number(i)] = i * 3000000000n;
});

export const indexWith64 = cuda.jit((a: Int32Array, out: Int32Array) => {
  const i = BigInt(cuda.grid(1));
  if (i >= BigInt(out.length)) return;
  out[Number(i)] = a[Number(i)] * 2;
});
`);

const I64_VALUES = [0n, 1n, -1n, 7n, -7n, 3n, 2n ** 53n, 2n ** 53n + 1n, -(2n ** 53n) - 3n, 2n ** 62n + 5n, 2n ** 63n - 1n, -(2n ** 63n), 123456789012345n, -98765432109n];
const U64_VALUES = [0n, 1n, 5n, 2n ** 53n + 1n, 2n ** 63n, 2n ** 64n - 1n, 0xdeadbeefcafebaben, 12345n];

describe("i64 and u64 on the simulator", () => {
  it("i64 + - * / % & | ^ ~ << >> wrap modulo 2^64 exactly as bigint arithmetic wrapped with BigInt.asIntN(64)", () => {
    const pairs = I64_VALUES.flatMap((x) => I64_VALUES.map((y) => [x, y] as const));
    const a = BigInt64Array.from(pairs.map((p) => p[0])), b = BigInt64Array.from(pairs.map((p) => p[1]));
    const out = new BigInt64Array(pairs.length * 12);
    const k = 3n;
    kernel(art, "i64Ops").launch(Math.ceil(pairs.length / 64), 64)(a, b, out, k);
    const w = (v: bigint) => BigInt.asIntN(64, v);
    pairs.forEach(([x, y], i) => {
      const want = [
        w(x + y), w(x - y), w(x * y), y !== 0n ? w(x / y) : 0n, y !== 0n ? w(x % y) : 0n, x & y, x | y, x ^ ~y,
        w(x << (y & 63n)), x >> (y & 63n), w(-x + k * (1n << 40n)), x < y ? BigInt(i) : Number(x) > 0 ? 1n : 2n,
      ];
      assert.deepEqual([...out.subarray(i * 12, i * 12 + 12)], want, `x=${x} y=${y}`);
    });
  });

  it("u64 + - * / >> wrap modulo 2^64 as bigint arithmetic wrapped with BigInt.asUintN(64)", () => {
    const pairs = U64_VALUES.flatMap((x) => U64_VALUES.map((y) => [x, y] as const));
    const a = BigUint64Array.from(pairs.map((p) => p[0])), b = BigUint64Array.from(pairs.map((p) => p[1]));
    const out = new BigUint64Array(pairs.length * 6);
    kernel(art, "u64Ops").launch(Math.ceil(pairs.length / 32), 32)(a, b, out);
    const w = (v: bigint) => BigInt.asUintN(64, v);
    pairs.forEach(([x, y], i) => {
      const want = [w(x + y), w(x - y), w(x * y), y !== 0n ? x / y : 0n, x >> (y & 63n), w(BigInt.asIntN(64, x) >> 1n)];
      assert.deepEqual([...out.subarray(i * 6, i * 6 + 6)], want, `x=${x} y=${y}`);
    });
  });

  it("Numba's test_intrinsics 64-bit cases: test_popc_u8, test_brev_u8, test_clz_i8, test_ffs_i8", () => {
    const run = (name: string, ary: Int32Array | BigUint64Array, c: bigint) => {
      kernel(art, name).launch(1, 1)(ary, c);
      return ary[0];
    };
    assert.equal(run("numbaPopc", new Int32Array(1), 0xf00000000000n), 4);
    assert.equal(run("numbaBrev", new BigUint64Array(1), 0x000030f0000030f0n), 0x0f0c00000f0c0000n);
    assert.equal(run("numbaClz", new Int32Array(1), 0x000000000010000n), 47);
    assert.equal(run("numbaFfs", new Int32Array(1), 0x000000000010000n), 17);
    assert.equal(run("numbaFfs", new Int32Array(1), 0x100000000n), 33);
  });

  it("cuda.grid64(1) is the global index as an i64 (its products with big numbers stay exact)", () => {
    const out = new BigInt64Array(300);
    kernel(art, "gridIndex64").launch(3, 128)(out);
    assert.deepEqual([...out], Array.from({ length: 300 }, (_, i) => BigInt(i) * 3000000000n));
  });

  it("a[Number(i)] indexes with an i64 index", () => {
    const a = Int32Array.from({ length: 100 }, (_, i) => i - 50), out = new Int32Array(100);
    kernel(art, "indexWith64").launch(4, 32)(a, out);
    assert.deepEqual([...out], [...a].map((v) => v * 2));
  });

  it("an i64 scalar parameter given a number is CSR004 saying to pass a bigint", () => {
    const a = new BigInt64Array(1), out = new BigInt64Array(12);
    assert.throws(() => kernel(art, "i64Ops").launch(1, 1)(a, a, out, 3), (e: unknown) => e instanceof CudaScriptError && e.code === "CSR004" && /pass 3n/.test(e.message));
  });

  it("an i64 scalar parameter out of range is CSR012", () => {
    const a = new BigInt64Array(1), out = new BigInt64Array(12);
    assert.throws(() => kernel(art, "i64Ops").launch(1, 1)(a, a, out, 2n ** 63n), (e: unknown) => e instanceof CudaScriptError && e.code === "CSR012");
  });
});
