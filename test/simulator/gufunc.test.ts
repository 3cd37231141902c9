/**
 * cuda.guvectorize (Numba's `@guvectorize([...], "(m,n),(n,p)->(m,p)", target="cuda")`) on the simulator:
 * core dimensions bound by symbol, loop dimensions broadcast by NumPy's rules, numbers for () inputs,
 * host and device arrays, `{ out, stream }`, several outputs, Numba's host/device result rule, and the
 * coded errors (CSR026, CSR027, CSR037–CSR039). Every expected value is computed here in plain TypeScript.
 */
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cuda, DeviceNDArray, f32, NDArray } from "cudascript";
import { compileSource, throwsCode } from "./helpers";
import type { KernelArtifact } from "@cudascript/compiler";

const artifact = compileSource(`
import { cuda, f32, f64, i32, i64, type Array1D, type Array2D } from "cudascript";
export const matmul = cuda.guvectorize((a: Array2D<f32>, b: Array2D<f32>, c: Array2D<f32>): void => {
  for (let i = 0; i < c.shape[0]; i++)
    for (let j = 0; j < c.shape[1]; j++) {
      let s: f32 = 0;
      for (let k = 0; k < a.shape[1]; k++) s += a[i][k] * b[k][j];
      c[i][j] = s;
    }
}, "(m,n),(n,p)->(m,p)");
export const dot = cuda.guvectorize((a: Array1D<f64>, b: Array1D<f64>, out: Array1D<f64>): void => {
  let s = 0;
  for (let k = 0; k < a.length; k++) s += a[k] * b[k];
  out[0] = s;
}, "(n),(n)->()");
function addScalar(x: Array1D<i32>, y: i32, res: Array1D<i32>): void {
  for (let i = 0; i < x.length; i++) res[i] = x[i] + y;
}
export const addRows = cuda.guvectorize(addScalar, "(n),()->(n)");
export const minMax = cuda.guvectorize((x: Array1D<f32>, lo: Array1D<f32>, hi: Array1D<f32>): void => {
  let a = x[0];
  let b = x[0];
  for (let i = 1; i < x.length; i++) {
    a = Math.min(a, x[i]);
    b = Math.max(b, x[i]);
  }
  lo[0] = a;
  hi[0] = b;
}, "(n)->(),()");
export const sum64 = cuda.guvectorize((a: Array1D<i64>, out: Array1D<i64>): void => {
  let s: i64 = 0n;
  for (let k = 0; k < a.length; k++) s += a[k];
  out[0] = s;
}, "(n)->()");
export const scale = cuda.guvectorize((x: f64, k: f64, out: Array1D<f64>): void => {
  out[0] = x * k;
}, "(),()->()");
export const fill = cuda.guvectorize((v: f32, res: Array1D<f32>): void => {
  for (let i = 0; i < res.length; i++) res[i] = v;
}, "()->(k)");
`);

/** What the build's rewrite makes of `cuda.guvectorize(fn, layout)`: `(fn, layout, artifact, "<name>_guvectorize")`. */
function gufunc(name: string, layout: string): (...args: unknown[]) => any {
  return (cuda.guvectorize as unknown as (fn: unknown, l: string, a: KernelArtifact, n: string) => (...args: unknown[]) => any)(null, layout, artifact, `${name}_guvectorize`);
}
const matmul = gufunc("matmul", "(m,n),(n,p)->(m,p)");
const dot = gufunc("dot", "(n),(n)->()");
const addRows = gufunc("addRows", "(n),()->(n)");
const minMax = gufunc("minMax", "(n)->(),()");
const fill = gufunc("fill", "()->(k)");
const sum64 = gufunc("sum64", "(n)->()");
const scale = gufunc("scale", "(),()->()");
const f = Math.fround;

function seq(n: number, scale = 1): Float32Array {
  return Float32Array.from({ length: n }, (_, i) => f((((i * 37) % 23) - 11) * scale));
}

/** Plain TypeScript matmul of row-major [m, n] x [n, p] in f32. */
function matmulRef(a: Float32Array, b: Float32Array, m: number, n: number, p: number): number[] {
  const c: number[] = [];
  for (let i = 0; i < m; i++)
    for (let j = 0; j < p; j++) {
      let s = 0;
      for (let k = 0; k < n; k++) s = f(s + f(a[i * n + k]! * b[k * p + j]!));
      c.push(s);
    }
  return c;
}

describe("cuda.guvectorize", () => {
  it("F-order, transposed and F-order out arrays are read and written by their layout (the kernel gets C-order copies)", () => {
    const a = seq(12), b = seq(20, 0.5); // row-major [3, 4] and [4, 5]
    const aF = Float32Array.from({ length: 12 }, (_, k) => a[(k % 3) * 4 + Math.floor(k / 3)]!); // a in Fortran order
    const bT = Float32Array.from({ length: 20 }, (_, k) => b[(k % 4) * 5 + Math.floor(k / 4)]!); // b transposed, row-major [5, 4]
    const dbT = cuda.toDevice(cuda.ndarray(bT, [5, 4]));
    const out = cuda.deviceArray([3, 5], f32, { order: "F" });
    matmul(cuda.ndarray(aF, [3, 4], { order: "F" }), dbT.T, { out });
    const r = out.copyToHost() as NDArray;
    const ref = matmulRef(a, b, 3, 4, 5);
    for (let i = 0; i < 3; i++) for (let j = 0; j < 5; j++) assert.equal(r[i][j], ref[i * 5 + j], `[${i}][${j}]`);
    const d = matmul(cuda.ndarray(aF, [3, 4], { order: "F" }), dbT.T) as DeviceNDArray;
    assert.deepEqual([...(d.copyToHost() as NDArray).data], ref, "a device result (one input on the device) in C order");
  });

  it("(m,n),(n,p)->(m,p): one matmul of 2-D host arrays gives an NDArray of shape [m, p]", () => {
    const a = seq(12), b = seq(20, 0.5);
    const r = matmul(cuda.ndarray(a, [3, 4]), cuda.ndarray(b, [4, 5]));
    assert.ok(r instanceof NDArray);
    assert.deepEqual(r.shape, [3, 5]);
    assert.deepEqual([...(r.data as Float32Array)], matmulRef(a, b, 3, 4, 5));
  });

  it("a stack of matmuls: [6, 3, 4] x [4, 2] broadcasts the second matrix over the loop dimension", () => {
    const a = seq(72), b = seq(8, 0.25);
    const r = matmul(cuda.ndarray(a, [6, 3, 4]), cuda.ndarray(b, [4, 2]));
    assert.deepEqual(r.shape, [6, 3, 2]);
    const want = Array.from({ length: 6 }, (_, l) => matmulRef(a.subarray(l * 12, l * 12 + 12), b, 3, 4, 2)).flat();
    assert.deepEqual([...(r.data as Float32Array)], want);
  });

  it("(n),(n)->(): dot products of the rows of [5, 7] with one vector give a Float64Array of 5; a single dot gives a number", () => {
    const a = Float64Array.from({ length: 35 }, (_, i) => i * 0.5 - 3), b = Float64Array.from({ length: 7 }, (_, i) => i - 2);
    const r = dot(cuda.ndarray(a, [5, 7]), b);
    assert.ok(r instanceof Float64Array);
    assert.deepEqual([...r], Array.from({ length: 5 }, (_, l) => b.reduce((s, v, k) => s + a[l * 7 + k]! * v, 0)));
    assert.equal(dot(b, b), b.reduce((s, v) => s + v * v, 0));
    const one = new Float64Array(1);
    assert.equal(dot(b, b, { out: one }), one, "a single () result goes into a one-element out");
    assert.equal(one[0], b.reduce((s, v) => s + v * v, 0));
  });

  it("loop dimensions broadcast by NumPy's rules: [2, 1, n] with [3, n] gives [2, 3]", () => {
    const a = Float64Array.from({ length: 8 }, (_, i) => i + 1), b = Float64Array.from({ length: 12 }, (_, i) => (i % 5) - 2);
    const r = dot(cuda.ndarray(a, [2, 1, 4]), cuda.ndarray(b, [3, 4]));
    assert.deepEqual(r.shape, [2, 3]);
    const want: number[] = [];
    for (let i = 0; i < 2; i++) for (let j = 0; j < 3; j++) want.push([0, 1, 2, 3].reduce((s, k) => s + a[i * 4 + k]! * b[j * 4 + k]!, 0));
    assert.deepEqual([...(r.data as Float64Array)], want);
  });

  it("(n),()->(n): a number for the () input, or an array of one value per row", () => {
    const x = Int32Array.from({ length: 12 }, (_, i) => i * 3 - 7);
    const r = addRows(cuda.ndarray(x, [3, 4]), 10);
    assert.deepEqual(r.shape, [3, 4]);
    assert.deepEqual([...(r.data as Int32Array)], [...x].map((v) => v + 10));
    const perRow = addRows(cuda.ndarray(x, [3, 4]), Int32Array.from([100, 200, 300]));
    assert.deepEqual([...(perRow.data as Int32Array)], [...x].map((v, i) => v + 100 * (1 + Math.floor(i / 4))));
  });

  it("device inputs give device results (Numba's rule), and a device out is written in place", () => {
    const a = seq(24), b = seq(4);
    const m = matmul(cuda.toDevice(cuda.ndarray(a, [6, 4])), cuda.ndarray(b, [4, 1]));
    assert.ok(m instanceof DeviceNDArray);
    assert.deepEqual(m.shape, [6, 1]);
    assert.deepEqual([...(m.copyToHost() as NDArray).data], matmulRef(a, b, 6, 4, 1));
    const out = cuda.deviceArray([2, 3, 1], f32);
    assert.equal(matmul(cuda.ndarray(a, [2, 3, 4]), cuda.toDevice(cuda.ndarray(b, [4, 1])), { out }), out);
    assert.deepEqual([...(out.copyToHost() as NDArray).data], matmulRef(a, b, 6, 4, 1));
  });

  it("several outputs come back as an array, and { out: [lo, hi] } on a stream fills host arrays", () => {
    const x = seq(30);
    const [lo, hi] = minMax(cuda.ndarray(x, [5, 6]));
    const rows = Array.from({ length: 5 }, (_, l) => [...x.subarray(l * 6, l * 6 + 6)]);
    assert.deepEqual([...lo], rows.map((r) => Math.min(...r)));
    assert.deepEqual([...hi], rows.map((r) => Math.max(...r)));
    const stream = cuda.stream();
    const outLo = new Float32Array(5), outHi = new Float32Array(5);
    const given = [outLo, outHi];
    assert.equal(minMax(cuda.ndarray(x, [5, 6]), { out: given, stream }), given);
    assert.deepEqual([...outLo], [...lo]);
    assert.deepEqual([...outHi], [...hi]);
  });

  it("an output-only dimension takes its size from out; without out it is CSR027 naming the symbol", () => {
    throwsCode(() => fill(Float32Array.from([1, 2])), "CSR027", /core dimension 'k' is named by no input.*\{ out \}.*\[2, k\]/);
    const out = cuda.ndarray(new Float32Array(6), [2, 3]);
    fill(Float32Array.from([1.5, -2]), { out });
    assert.deepEqual([...(out.data as Float32Array)], [1.5, 1.5, 1.5, -2, -2, -2]);
  });

  it("a core dimension bound to two sizes is CSR026 naming the symbol and both sizes; too few dimensions too", () => {
    throwsCode(() => matmul(cuda.ndarray(seq(12), [3, 4]), cuda.ndarray(seq(15), [5, 3])), "CSR026", /core dimension 'n' is 4 in input 1 \(shape \[3, 4\]\) but 5 in input 2 \(shape \[5, 3\]\)/);
    throwsCode(() => matmul(seq(4), cuda.ndarray(seq(8), [4, 2])), "CSR026", /input 1 has shape \[4\], but its core dimensions \(m,n\) need at least 2 dimensions/);
  });

  it("loop dimensions that do not broadcast, an out of the wrong shape, and a result past 3-D are CSR038", () => {
    throwsCode(() => dot(cuda.ndarray(new Float64Array(6), [2, 3]), cuda.ndarray(new Float64Array(9), [3, 3])), "CSR038", /do not broadcast/);
    throwsCode(() => dot(new Float64Array(3), new Float64Array(3), { out: new Float64Array(2) }), "CSR038", /'out' has shape \[2\], but output 1 has 0 dimensions/);
    throwsCode(() => dot(cuda.ndarray(new Float64Array(6), [2, 3]), new Float64Array(3), { out: new Float64Array(3) }), "CSR038", /'out' has shape \[3\], but output 1 has shape \[2\]/);
    throwsCode(() => fill(cuda.ndarray(new Float32Array(8), [2, 2, 2]), { out: new Float32Array(8) }), "CSR038", /4 dimensions/);
  });

  it("wrong dtypes are CSR039 (no silent cast); the wrong number of inputs or an out list of the wrong length is CSR037", () => {
    throwsCode(() => dot(new Float32Array(3), new Float64Array(3)), "CSR039", /input 1 .* is f64, but the array holds f32/);
    throwsCode(() => addRows(new Int32Array(3), 1.5), "CSR039", /integer type/);
    throwsCode(() => dot(new Float64Array(3)), "CSR037", /takes 2 inputs/);
    throwsCode(() => minMax(new Float32Array(3), { out: new Float32Array(1) }), "CSR037", /'out' is an array of 2 arrays/);
  });

  it("i64 rows (bigints), a 3-D loop of () inputs broadcast along the last dimension, and an empty core dimension", () => {
    assert.deepEqual([...sum64(cuda.ndarray(BigInt64Array.from([1n, 2n, 3n, 4n, 5n, 6n]), [2, 3]))], [6n, 15n]);
    const x = Float64Array.from({ length: 8 }, (_, i) => i + 1);
    const r = scale(cuda.ndarray(x, [2, 2, 2]), Float64Array.from([10, 100]));
    assert.deepEqual(r.shape, [2, 2, 2]);
    assert.deepEqual([...(r.data as Float64Array)], [...x].map((v, i) => v * (i % 2 === 0 ? 10 : 100)));
    assert.equal(scale(3, 4), 12, "only numbers: a number");
    assert.deepEqual([...dot(cuda.ndarray(new Float64Array(0), [3, 0]), new Float64Array(0))], [0, 0, 0], "n = 0: the function still runs per loop index");
  });

  it("an empty loop gives an empty result without a launch", () => {
    const r = dot(cuda.ndarray(new Float64Array(0), [0, 3]), new Float64Array(3));
    assert.ok(r instanceof Float64Array);
    assert.equal(r.length, 0);
  });
});
