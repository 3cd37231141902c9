/**
 * F-order and strided arrays on the host side (Numba's `order` and `strides`): host NDArrays index
 * their layout, device arrays report their strides and contiguity, views (`T`, `transpose`, F-order
 * `reshape`/`ravel`, rows) are views where Numba's are, copies between layouts move each element to its
 * place, kernels index every layout, and what cannot work is a coded error. On the simulator.
 */
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cuda, f32, i32 } from "cudascript";
import { compileSource, kernel, throwsCode } from "./helpers";

const artifact = compileSource(`
import { cuda, type Array2D, type f32 } from "cudascript";
export const mark = cuda.jit((m: Array2D<f32>) => {
  const [r, c] = cuda.grid(2);
  if (r < m.shape[0] && c < m.shape[1]) m[r][c] = r * 10 + c;
});
export const addOne = cuda.jit((a: Float32Array) => {
  const i = cuda.grid(1);
  if (i < a.length) a[i] += 1;
});
`);
const mark = kernel(artifact, "mark");
const addOne = kernel(artifact, "addOne");

/** The elements of a 2-D host array by logical index, row by row. */
function rows(a: { shape: readonly number[]; [i: number]: any }): number[][] {
  return Array.from({ length: a.shape[0]! }, (_, r) => Array.from({ length: a.shape[1]! }, (_, c) => a[r][c] as number));
}
const MARKED_2x3 = [[0, 1, 2], [10, 11, 12]];

describe("F-order and strided arrays", () => {
  it("an F-order host NDArray reads a[i][j] from column-major data; its rows are strided views", () => {
    const a = cuda.ndarray(Float32Array.of(1, 2, 3, 4, 5, 6), [2, 3], { order: "F" });
    assert.deepEqual(rows(a), [[1, 3, 5], [2, 4, 6]]);
    assert.deepEqual(a.strides, [4, 8]);
    assert.equal(a.isFContiguous(), true);
    assert.equal(a.isCContiguous(), false);
    assert.equal(a[1][2], 6);
    // Byte strides with gaps: every other element of every other row.
    const g = cuda.ndarray(Float32Array.from({ length: 12 }, (_, i) => i), [2, 3], { strides: [24, 8] });
    assert.deepEqual(rows(g), [[0, 2, 4], [6, 8, 10]]);
  });

  it("device arrays in F order or with byte strides: strides, contiguity, allocation, and kernels index them", () => {
    const f = cuda.deviceArray([2, 3], f32, { order: "F" });
    assert.deepEqual(f.strides, [4, 8]);
    assert.equal(f.isFContiguous(), true);
    assert.equal(f.isCContiguous(), false);
    mark.launch([1, 1], [2, 3])(f);
    const back = f.copyToHost();
    assert.deepEqual([...back.data], [0, 10, 1, 11, 2, 12], "column-major bytes");
    assert.deepEqual(rows(back), MARKED_2x3);

    const s = cuda.deviceArray([2, 3], f32, { strides: [32, 8] });
    assert.deepEqual(s.strides, [32, 8]);
    assert.equal(s.isCContiguous() || s.isFContiguous(), false);
    mark.launch([1, 1], [2, 3])(s);
    assert.deepEqual(rows(s.copyToHost()), MARKED_2x3);
    assert.deepEqual(cuda.deviceArray([2, 3], f32).strides, [12, 4]);
    // A [3, 1] column with gaps is not C-contiguous though its inner stride is 1 (the simulator's
    // row-major emission of the kernel must not run it).
    const col = cuda.deviceArray([3, 1], f32, { strides: [8, 4] });
    mark.launch([1, 1], [3, 1])(col);
    assert.deepEqual(rows(col.copyToHost()), [[0], [10], [20]]);
  });

  it("d.T and d.transpose(axes) are views: a kernel writing through the transpose changes d", () => {
    const d = cuda.deviceArray([3, 2], f32);
    const t = d.T;
    assert.deepEqual(t.shape, [2, 3]);
    assert.deepEqual(t.strides, [4, 8]);
    assert.equal(t.isFContiguous(), true);
    mark.launch([1, 1], [2, 3])(t);
    assert.deepEqual(rows(d.copyToHost()), [[0, 10], [1, 11], [2, 12]]);
    const cube = cuda.deviceArray([2, 3, 4], i32);
    assert.deepEqual(cube.transpose([1, 0, 2]).shape, [3, 2, 4]);
    assert.deepEqual(cube.transpose([1, 0, 2]).strides, [16, 48, 4]);
    throwsCode(() => cube.transpose([0, 0, 1]), "CSR013", /permutation of the 3 axes/);
  });

  it("reshape and ravel in the order the array is contiguous in are views; otherwise CSR057 says what to write", () => {
    const f = cuda.deviceArray([2, 3], f32, { order: "F" });
    const r = f.reshape(3, 2, { order: "F" });
    mark.launch([1, 1], [3, 2])(r);
    assert.deepEqual([...f.copyToHost().data], [0, 10, 20, 1, 11, 21], "written through the F-order reshape");
    const flat = f.ravel("F");
    addOne.launch(1, 6)(flat);
    assert.deepEqual([...flat.copyToHost()], [1, 11, 21, 2, 12, 22]);
    throwsCode(() => f.reshape(3, 2), "CSR057", /C order of a \[2, 3\] array that is not C-contiguous would need a copy: reshape it with \{ order: "F" \}/);
    throwsCode(() => f.ravel(), "CSR057", /use ravel\("F"\)/);
    throwsCode(() => cuda.deviceArray([2, 3], f32, { strides: [32, 8] }).ravel(), "CSR057", /copy it into a C-order array first/);
  });

  it("deviceArrayLike keeps the order (Numba's rule); pinned, mapped and managed arrays take { order }", () => {
    assert.equal(cuda.deviceArrayLike(cuda.deviceArray([2, 3], f32, { order: "F" })).isFContiguous(), true);
    assert.equal(cuda.deviceArrayLike(cuda.deviceArray([3, 2], f32).T).isCContiguous(), false);
    assert.equal(cuda.deviceArrayLike(cuda.deviceArray([2, 3], f32, { strides: [32, 8] })).isCContiguous(), true, "a strided array's copy is dense, C order");
    assert.equal(cuda.deviceArrayLike(cuda.ndarray(new Float32Array(6), [2, 3], { order: "F" })).isFContiguous(), true);
    const p = cuda.pinnedArray([2, 3], f32, { order: "F" });
    assert.deepEqual(p.strides, [4, 8]);
    for (const m of [cuda.mappedArray([2, 3], f32, { order: "F" }), cuda.managedArray([2, 3], f32, { order: "F" })]) {
      mark.launch([1, 1], [2, 3])(m);
      assert.deepEqual([...m.data], [0, 10, 1, 11, 2, 12], "the kernel wrote the host memory in F order, in place");
      assert.deepEqual(rows(m), MARKED_2x3);
    }
  });

  it("copies between layouts move every element to its place, both ways and device to device", () => {
    const cHost = cuda.ndarray(Float32Array.of(1, 2, 3, 4, 5, 6), [2, 3]);
    const f = cuda.deviceArray([2, 3], f32, { order: "F" });
    f.copyToDevice(cHost);
    assert.deepEqual([...f.copyToHost().data], [1, 4, 2, 5, 3, 6]);
    const outC = cuda.ndarray(new Float32Array(6), [2, 3]);
    f.copyToHost(outC);
    assert.deepEqual([...outC.data], [1, 2, 3, 4, 5, 6]);
    assert.deepEqual([...f.copyToHost<Float32Array>(new Float32Array(6))], [1, 2, 3, 4, 5, 6], "a flat typed array is C order");
    const c = cuda.toDevice(cHost);
    const f2 = cuda.deviceArray([2, 3], f32, { order: "F" });
    f2.copyToDevice(c);
    assert.deepEqual([...f2.copyToHost().data], [1, 4, 2, 5, 3, 6]);
    const fHost = cuda.ndarray(Float32Array.of(1, 4, 2, 5, 3, 6), [2, 3], { order: "F" });
    assert.deepEqual([...cuda.toDevice(fHost, { to: cuda.deviceArray([2, 3], f32) }).copyToHost().data], [1, 2, 3, 4, 5, 6]);
    assert.equal(cuda.toDevice(fHost).isFContiguous(), true, "toDevice keeps an F-order host array's order");
    // A view with gaps: writing it changes only its own elements.
    const wide = cuda.toDevice(cuda.ndarray(new Float32Array(12).fill(9), [3, 4]));
    wide.T.row(1).copyToDevice(Float32Array.of(7, 8, 6));
    assert.deepEqual([...wide.copyToHost().data], [9, 7, 9, 9, 9, 8, 9, 9, 9, 6, 9, 9]);
    assert.deepEqual([...wide.T.row(1).copyToHost<Float32Array>()], [7, 8, 6]);
  });

  it("a strided 1-D array passed to a 1-D kernel parameter is CSR059; bad layouts are CSR028", () => {
    const m = cuda.deviceArray([3, 4], f32);
    throwsCode(() => addOne.launch(1, 4)(m.T.row(0)), "CSR059", /strided view \(every 4th element.*pass the 2-D array and index it in the kernel/);
    throwsCode(() => addOne.launch(1, 4)(cuda.ndarray(new Float32Array(6), [2, 3], { order: "F" })[0]), "CSR059", /host array is a strided view/);
    addOne.launch(1, 4)(m.row(1)); // a row of a C-order array is contiguous
    throwsCode(() => cuda.deviceArray([2, 3], f32, { strides: [12, 2] }), "CSR028", /positive multiple of the 4-byte item size of f32.*\[12, 4\]/);
    throwsCode(() => cuda.deviceArray([2, 3], f32, { strides: [12] }), "CSR028", /one per dimension \(2 for shape \[2, 3\]\)/);
    throwsCode(() => cuda.deviceArray([2, 3], f32, { order: "F", strides: [4, 8] }), "CSR028", /order or strides, not both/);
    throwsCode(() => cuda.deviceArray([2, 3], f32, { order: "K" as "C" }), "CSR028", /order is "C" \(row-major\) or "F"/);
    throwsCode(() => cuda.pinnedArray([2, 3], f32, { strides: [4, 8] } as { order?: "C" }), "CSR028", /dense/);
    throwsCode(() => cuda.ndarray(new Float32Array(5), [2, 3], { strides: [16, 4] }), "CSR011", /reaches element 6/);
    throwsCode(() => m.slice(0, 3, -2), "CSR057", /negative step/);
    throwsCode(() => m.slice(0, 3, 0), "CSR013", /step is a whole number ≥ 1/);
  });

  it("a slice with a step is a strided view: N-D kernels write through it, copies read every step-th row, a 1-D one is CSR059 for a 1-D parameter", () => {
    const d = cuda.deviceArray([5, 3], f32);
    const odd = d.slice(1, undefined, 2); // rows 1 and 3
    assert.deepEqual(odd.shape, [2, 3]);
    assert.equal(odd.isCContiguous(), false);
    mark.launch([1, 1], [4, 4])(odd);
    assert.deepEqual(rows(d.copyToHost()), [[0, 0, 0], [0, 1, 2], [0, 0, 0], [10, 11, 12], [0, 0, 0]]);
    assert.deepEqual(rows(odd.copyToHost()), MARKED_2x3);
    const v = cuda.toDevice(Float32Array.from([0, 1, 2, 3, 4, 5, 6]));
    const everyThird = v.slice(undefined, undefined, 3);
    assert.deepEqual([...(everyThird.copyToHost() as Float32Array)], [0, 3, 6]);
    assert.deepEqual(v.slice(-4, -1, 2).shape, [2]); // indices 3 and 5
    throwsCode(() => addOne.launch(1, 4)(everyThird), "CSR059", /strided/);
  });
});
