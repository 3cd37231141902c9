/**
 * Host arrays of complex numbers, like the f32 ones: `cuda.ndarray(complexArray, shape)` (rows, toDevice,
 * kernel arguments of Array2D<c64>), `cuda.deviceArrayLike(complex array or ndarray)` and
 * `cuda.pinnedArray(shape, c64)` of any rank; wrong inputs are coded errors.
 */
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { c128, c64, Complex128Array, Complex64Array, cuda, CudaScriptError, NDArray } from "cudascript";
import { compileSource, kernel } from "./helpers";

const art = compileSource(`
import { cuda, type Array1D, type Array2D, type c64 } from "cudascript";

/** a[i] = conj(a[i]). */
export const conjugate = cuda.jit((a: Array1D<c64>) => {
  const i = cuda.grid(1);
  if (i < a.length) a[i] = cuda.complex.conj(a[i]);
});

/** out[i][j] = m[i][j] * (0 + 1i): rotates every element by 90°. */
export const rotate = cuda.jit((m: Array2D<c64>, out: Array2D<c64>) => {
  const [x, y] = cuda.grid(2);
  if (y < m.shape[0] && x < m.shape[1]) out[y][x] = cuda.complex.mul(m[y][x], cuda.complex.c64(0, 1));
});
`);

const parts = (z: Complex64Array | Complex128Array): number[] => Array.from(z.data);
const code = (c: string, re: RegExp) => (e: unknown) => e instanceof CudaScriptError && e.code === c && re.test(e.message);

describe("host complex N-D arrays", () => {
  it("cuda.ndarray(Complex64Array, [2, 3]) has the complex dtype and shape; a[i] is a row view (a Complex64Array), a[i].get(j) an element", () => {
    const z = Complex64Array.wrap(Float32Array.from({ length: 12 }, (_, k) => k));
    const m = cuda.ndarray(z, [2, 3]);
    assert.ok(m instanceof NDArray);
    assert.deepEqual([m.dtype.name, m.shape, m.size], ["c64", [2, 3], 6]);
    const row = m[1] as Complex64Array;
    assert.ok(row instanceof Complex64Array);
    assert.deepEqual(parts(row), [6, 7, 8, 9, 10, 11]);
    row.set(0, { re: -1, im: -2 }); // a view: writes reach the data
    assert.deepEqual([z.data[6], z.data[7]], [-1, -2]);
    assert.deepEqual((m[0] as Complex64Array).get(2), { re: 4, im: 5 });
    const cube = cuda.ndarray(new Complex128Array(8), [2, 2, 2]);
    assert.deepEqual([cube.dtype.name, (cube[1] as NDArray).shape], ["c128", [2, 2]]);
  });

  it("a kernel takes host and device 2-D complex arrays; toDevice and deviceArrayLike keep shape and dtype", () => {
    const m = cuda.ndarray(Complex64Array.wrap(Float32Array.of(1, 0, 0, 1, 2, 3, -1, -1, 5, 0, 0, 0)), [2, 3]);
    const out = cuda.ndarray(new Complex64Array(6), [2, 3]);
    kernel(art, "rotate").launch([1, 1], [4, 4])(m, out);
    // (a + bi) * (0 + 1i) = (a·0 − b·1) + (a·1 + b·0)i
    const input = Array.from(m.data.data);
    const want = input.flatMap((_, k) => (k % 2 ? [] : [input[k]! * 0 - input[k + 1]! * 1, input[k]! * 1 + input[k + 1]! * 0]));
    assert.deepEqual(Array.from(out.data.data), want);
    const d = cuda.toDevice(m);
    assert.deepEqual([d.dtype.name, d.shape], ["c64", [2, 3]]);
    const dOut = cuda.deviceArrayLike(m);
    assert.deepEqual([dOut.dtype.name, dOut.shape], ["c64", [2, 3]]);
    kernel(art, "rotate").launch([1, 1], [4, 4])(d, dOut);
    const back = cuda.ndarray(new Complex64Array(6), [2, 3]);
    dOut.copyToHost(back);
    assert.deepEqual(Array.from(back.data.data), Array.from(out.data.data));
    const flat = cuda.deviceArrayLike(new Complex128Array(5));
    assert.deepEqual([flat.dtype.name, flat.shape], ["c128", [5]]);
  });

  it("cuda.pinnedArray of a complex dtype: 1-D a Complex64Array, 2-D/3-D an NDArray over one", () => {
    const p1 = cuda.pinnedArray(4, c64);
    assert.ok(p1 instanceof Complex64Array);
    assert.equal(p1.length, 4);
    const p2 = cuda.pinnedArray([2, 2], c128);
    assert.ok(p2 instanceof NDArray);
    assert.ok(p2.data instanceof Complex128Array);
    assert.deepEqual([p2.dtype.name, p2.shape], ["c128", [2, 2]]);
  });

  it("wrong shapes, parts instead of complex data and mismatched dtypes are coded errors", () => {
    const z = new Complex64Array(6);
    assert.throws(() => cuda.ndarray(z, [4, 2]), code("CSR011", /shape \[4, 2\] holds 8 elements but the data has 6/));
    assert.throws(() => cuda.toDevice(cuda.ndarray(z, [2, 3])).copyToDevice(cuda.ndarray(new Complex128Array(6), [2, 3])), code("CSR029", /use a Complex64Array/));
    assert.throws(() => kernel(art, "rotate").launch(1, 1)(cuda.ndarray(new Complex128Array(6), [2, 3]), cuda.ndarray(z, [2, 3])), code("CSR029", /expects Array2D<c64>.*Complex128Array/));
    assert.throws(() => kernel(art, "rotate").launch(1, 1)(z, cuda.ndarray(z, [2, 3])), code("CSR029", /expects Array2D<c64>, got a Complex64Array of 6 elements: pass cuda\.ndarray\(Complex64Array\.wrap\(parts\), \[n0, n1\]\)/));
    assert.throws(() => kernel(art, "rotate").launch(1, 1)(cuda.ndarray(z, [1, 2, 3]), cuda.ndarray(z, [2, 3])), code("CSR006", /expects a 2-D array \(Array2D<c64>\), but the cuda\.ndarray has shape \[1, 2, 3\]/));
  });

  it("a view of a complex device array (d.slice) is launched at its own elements, not at the start of the array", () => {
    const d = cuda.toDevice(Complex64Array.wrap(Float32Array.from({ length: 12 }, (_, k) => k + 1)));
    kernel(art, "conjugate").launch(1, 32)(d.slice(2, 4));
    assert.deepEqual(parts(d.copyToHost() as Complex64Array), [1, 2, 3, 4, 5, -6, 7, -8, 9, 10, 11, 12]);
  });
});
