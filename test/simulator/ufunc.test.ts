/**
 * cuda.vectorize and cuda.reduce (Numba's `@vectorize(target="cuda")` and `cuda.reduce`) on the
 * simulator: NumPy broadcasting, numbers, host and device arrays, `{ out, stream }`, Numba's host/device
 * result rule, the reduction's init/size/res, and the coded errors (CSR037–CSR039). Every expected value
 * is computed here in plain TypeScript.
 */
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cuda, DeviceNDArray, f16round, f32, Float16Array, i32, NDArray } from "cudascript";
import { compileSource, throwsCode, type TestKernel } from "./helpers";
import type { KernelArtifact } from "@cudascript/compiler";


const artifact = compileSource(`
import { cuda, bool, f16, f32, f64, i32, i64 } from "cudascript";
export const add = cuda.vectorize((a: f32, b: f32): f32 => a + b);
function discriminant(a: f64, b: f64, c: f64): f64 {
  return b * b - 4 * a * c;
}
export const discriminants = cuda.vectorize(discriminant);
const clampTo = cuda.device((x: i32, hi: i32): i32 => (x > hi ? hi : x));
export const clamp = cuda.vectorize(clampTo);
export const sum = cuda.reduce((a: f32, b: f32): f32 => a + b);
export const isum = cuda.reduce((a: i32, b: i32): i32 => a + b);
export const max = cuda.reduce((a: i32, b: i32): i32 => (a > b ? a : b));
export const last = cuda.reduce((a: i32, b: i32): i32 => b);
export const positive = cuda.vectorize((a: f32): bool => a > 0);
export const mul64 = cuda.vectorize((a: i64, b: i64): i64 => a * b);
export const square16 = cuda.vectorize((a: f16): f16 => a * a);
export const sum64 = cuda.reduce((a: i64, b: i64): i64 => a + b);
`);

/** What the build's rewrite makes of `cuda.vectorize(fn)`: `cuda.vectorize(fn, artifact, "<name>_vectorize")`. */
function ufunc(name: string): (...args: unknown[]) => any {
  return (cuda.vectorize as unknown as (fn: unknown, a: KernelArtifact, n: string) => (...args: unknown[]) => any)(null, artifact, `${name}_vectorize`);
}
function reducer(name: string): (arr: unknown, options?: object) => any {
  return (cuda.reduce as unknown as (fn: unknown, a: KernelArtifact, n: string) => (arr: unknown, options?: object) => any)(null, artifact, `${name}_reduce`);
}
const add = ufunc("add");
const discriminants = ufunc("discriminants");
const clamp = ufunc("clamp");
const f = Math.fround;

function seq(n: number, scale = 1): Float32Array {
  return Float32Array.from({ length: n }, (_, i) => f(((i * 37) % 101) * scale - 50));
}

describe("cuda.vectorize", () => {
  it("adds two host typed arrays element-wise and returns a host typed array", () => {
    const x = seq(1000), y = seq(1000, 0.5);
    const r = add(x, y);
    assert.ok(r instanceof Float32Array);
    assert.deepEqual([...r], [...x].map((v, i) => f(v + y[i]!)));
  });

  it("broadcasts a number against an array, and a number against a number gives a number", () => {
    const x = seq(10);
    assert.deepEqual([...add(x, 0.1)], [...x].map((v) => f(v + f(0.1))));
    assert.deepEqual([...add(0.1, x)], [...x].map((v) => f(f(0.1) + v)));
    assert.equal(add(1.5, 2.25), 3.75);
  });

  it("broadcasts N-D arrays by NumPy's rules: [2, 1, 4] with [3, 1] gives [2, 3, 4]", () => {
    const a = cuda.ndarray(seq(8), [2, 1, 4]);
    const b = cuda.ndarray(seq(3, 2), [3, 1]);
    const r = add(a, b) as NDArray<Float32Array>;
    assert.ok(r instanceof NDArray);
    assert.deepEqual(r.shape, [2, 3, 4]);
    const expected: number[] = [];
    for (let i = 0; i < 2; i++) for (let j = 0; j < 3; j++) for (let k = 0; k < 4; k++) expected.push(f(a.data[i * 4 + k]! + b.data[j]!));
    assert.deepEqual([...r.data], expected);
  });

  it("a 1-D array broadcasts along the rows of a 2-D one", () => {
    const m = cuda.ndarray(seq(6), [2, 3]);
    const v = Float32Array.from([10, 20, 30]);
    const r = add(m, v) as NDArray<Float32Array>;
    assert.deepEqual([...r.data], [...m.data].map((x, i) => f(x + v[i % 3]!)));
  });

  it("returns a device array when an input is on the device (Numba's rule), and writes into a device out", () => {
    const x = seq(300);
    const dx = cuda.toDevice(x);
    const r = add(dx, 1);
    assert.ok(r instanceof DeviceNDArray);
    assert.deepEqual([...(r.copyToHost() as Float32Array)], [...x].map((v) => f(v + 1)));
    const out = cuda.deviceArray(300, f32);
    assert.equal(add(dx, x, { out }), out);
    assert.deepEqual([...(out.copyToHost() as Float32Array)], [...x].map((v) => f(v + v)));
  });

  it("F-order and transposed inputs and an F-order out are read and written by their logical indices", () => {
    const c = cuda.ndarray(Float32Array.of(1, 2, 3, 4, 5, 6), [2, 3]);
    const fHost = cuda.ndarray(Float32Array.of(1, 4, 2, 5, 3, 6), [2, 3], { order: "F" }); // the same values as c
    const byIndex = (a: any) => [0, 1].map((i) => [0, 1, 2].map((j) => a[i][j] as number));
    assert.deepEqual(byIndex(add(fHost, c)), [[2, 4, 6], [8, 10, 12]]);
    const dT = cuda.toDevice(cuda.ndarray(Float32Array.of(1, 4, 2, 5, 3, 6), [3, 2])).T; // the transpose holds c's values too
    const out = cuda.deviceArray([2, 3], f32, { order: "F" });
    assert.equal(add(dT, 10, { out }), out);
    assert.deepEqual(byIndex(out.copyToHost()), [[11, 12, 13], [14, 15, 16]]);
    assert.equal(reducer("sum")(cuda.toDevice(cuda.ndarray(Float32Array.of(1, 2, 3, 4, 5, 6), [3, 2])).T.row(1)), 2 + 4 + 6, "a reduction over a strided column");
  });

  it("writes into a host out and returns it; on a stream too", () => {
    const x = seq(50);
    const out = new Float32Array(50);
    const stream = cuda.stream();
    assert.equal(add(x, x, { out, stream }), out);
    assert.deepEqual([...out], [...x].map((v) => f(v + v)));
  });

  it("a function declaration (Numba's discriminant) in f64 over 3000 elements, with scalars", () => {
    const n = 3000;
    const a = Float64Array.from({ length: n }, (_, i) => (i % 13) - 6);
    const b = Float64Array.from({ length: n }, (_, i) => (i % 7) * 0.5);
    const r = discriminants(a, b, 2.5) as Float64Array;
    assert.deepEqual([...r], [...a].map((ai, i) => b[i]! * b[i]! - 4 * ai * 2.5));
  });

  it("a cuda.device function on Int32Array", () => {
    const x = Int32Array.from({ length: 20 }, (_, i) => i - 5);
    assert.deepEqual([...(clamp(x, 7) as Int32Array)], [...x].map((v) => (v > 7 ? 7 : v)));
  });

  it("bool results, i64 (bigint) and f16 ufuncs, and an i64 reduction", () => {
    assert.deepEqual([...(ufunc("positive")(Float32Array.from([-1, 0, 2])) as Uint8Array)], [0, 0, 1]);
    const big = BigInt64Array.from([3n, -(2n ** 40n), 7n]);
    assert.deepEqual([...(ufunc("mul64")(big, 2n ** 20n) as BigInt64Array)], [...big].map((v) => BigInt.asIntN(64, v * 2n ** 20n)));
    const h = Float16Array.from([1.5, -3, 0.25]);
    assert.deepEqual([...(ufunc("square16")(h) as Float16Array)], [...h].map((v) => f16round(v * v)));
    assert.equal(reducer("sum64")(BigInt64Array.from([2n ** 40n, 5n, -1n]), { init: 1n }), 2n ** 40n + 5n);
    throwsCode(() => ufunc("mul64")(big, 3), "CSR037", /3n/);
  });

  it("an empty array gives an empty result without a launch", () => {
    assert.equal((add(new Float32Array(0), 1) as Float32Array).length, 0);
  });

  it("shapes that do not broadcast are CSR038, naming the shapes", () => {
    throwsCode(() => add(new Float32Array(3), new Float32Array(4)), "CSR038", /\[3\], \[4\] do not broadcast/);
    throwsCode(() => add(cuda.ndarray(seq(6), [2, 3]), cuda.ndarray(seq(4), [2, 2])), "CSR038");
  });

  it("an out of the wrong shape is CSR038, saying the shape to pass", () => {
    throwsCode(() => add(seq(4), 1, { out: new Float32Array(5) }), "CSR038", /shape \[5\].*broadcast to \[4\]/);
  });

  it("an f64 array to an f32 ufunc is CSR039 (no silent cast), a fraction to an integer one too", () => {
    throwsCode(() => add(new Float64Array(3), 1), "CSR039", /Float32Array\.from/);
    throwsCode(() => add(cuda.toDevice(new Int32Array(3)), 1), "CSR039", /holds i32/);
    throwsCode(() => clamp(Int32Array.from([1]), 2.5), "CSR039", /whole number/);
    throwsCode(() => add(seq(2), 1, { out: new Float64Array(2) }), "CSR039");
  });

  it("the wrong number of inputs, or a value of the wrong kind, is CSR037", () => {
    throwsCode(() => add(seq(2)), "CSR037", /takes 2 inputs/);
    throwsCode(() => add(seq(2), "1"), "CSR037");
    throwsCode(() => add(seq(2), [1, 2]), "CSR037", /Float32Array\.from/);
  });

  it("frees the copies it makes: a freed input device array is CSR010, and nothing leaks across calls", () => {
    const d = cuda.toDevice(seq(4));
    d.free();
    throwsCode(() => add(d, 1), "CSR010");
  });
});

describe("cuda.reduce", () => {
  const sum = reducer("sum");
  const isum = reducer("isum");
  const max = reducer("max");
  const last = reducer("last");

  it("sums 100 000 f32 values (two passes over 391 blocks' worth of data) like plain TypeScript", () => {
    const x = Float32Array.from({ length: 100_000 }, (_, i) => i % 7);
    assert.equal(sum(x), [...x].reduce((a, b) => a + b, 0));
  });

  it("max over a device array of i32, with init folded in once: f(init, total)", () => {
    const x = Int32Array.from({ length: 70_001 }, (_, i) => ((i * 7919) % 100_003) - 50_000);
    const d = cuda.toDevice(x);
    assert.equal(max(d, { init: -2147483648 }), Math.max(...x));
    assert.equal(max(d, { init: 1_000_000 }), 1_000_000);
    assert.equal(isum(Int32Array.from([1, 2, 3]), { init: 10 }), 16);
  });

  it("keeps the input's order: (a, b) => b (associative, not commutative) gives the last element", () => {
    for (const n of [1, 255, 257, 70_001]) {
      const x = Int32Array.from({ length: n }, (_, i) => i + 1);
      assert.equal(last(x), n);
    }
  });

  it("an empty array returns init (0 by default); size reduces a prefix", () => {
    assert.equal(sum(new Float32Array(0)), 0);
    assert.equal(sum(new Float32Array(0), { init: 5 }), 5);
    assert.equal(isum(Int32Array.from([1, 2, 3, 4]), { size: 2 }), 3);
  });

  it("res receives the result on the device and the call returns undefined", () => {
    const res = cuda.deviceArray(1, i32);
    assert.equal(isum(Int32Array.from([5, 6]), { res, stream: cuda.stream() }), undefined);
    assert.deepEqual([...(res.copyToHost() as Int32Array)], [11]);
  });

  it("wrong dtypes are CSR039; N-D arrays, bad sizes and options are CSR037", () => {
    throwsCode(() => sum(new Float64Array(3)), "CSR039");
    throwsCode(() => isum(Int32Array.from([1]), { res: cuda.deviceArray(1, f32) }), "CSR039");
    throwsCode(() => sum(cuda.ndarray(new Float32Array(4), [2, 2])), "CSR037", /ravel/);
    throwsCode(() => sum(new Float32Array(4), { size: 5 }), "CSR037");
    throwsCode(() => sum(3), "CSR037");
  });
});

export type { TestKernel };
