/**
 * Numba's memory-management API on device arrays: views (`reshape`, `ravel`, `slice`, `row`) share the
 * array's memory, kernels accept them and write through them, and what would need strides is CSR057;
 * `cuda.toDevice` / `copyToHost` take Numba's keywords; `stream.autoSynchronize`. On the simulator.
 */
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cuda, f32, i32 } from "cudascript";
import { compileSource, kernel, throwsCode } from "./helpers";


const artifact = compileSource(`
import { cuda, type Array2D, type f32 } from "cudascript";
export const addIndex = cuda.jit((a: Float32Array) => {
  const i = cuda.grid(1);
  if (i < a.length) a[i] += i;
});
export const markRows = cuda.jit((m: Array2D<f32>) => {
  const [r, c] = cuda.grid(2);
  if (r < m.shape[0] && c < m.shape[1]) m[r][c] = r * 100 + c;
});
`);
const addIndex = kernel(artifact, "addIndex");
const markRows = kernel(artifact, "markRows");

describe("device-array views", () => {
  it("slice(begin, end) is a view: a kernel writing through it changes only those elements of the array", () => {
    const d = cuda.toDevice(new Float32Array(10));
    const v = d.slice(3, 7);
    assert.deepEqual(v.shape, [4]);
    assert.equal(v.base, d);
    addIndex.launch(1, 32)(v);
    assert.deepEqual([...d.copyToHost()], [0, 0, 0, 0, 1, 2, 3, 0, 0, 0]);
    assert.deepEqual([...v.copyToHost()], [0, 1, 2, 3]);
  });

  it("slice follows Array.prototype.slice for negative and missing bounds, and a view of a view starts where it says", () => {
    const d = cuda.toDevice(Float32Array.from({ length: 10 }, (_, i) => i));
    assert.deepEqual([...d.slice(-3).copyToHost()], [7, 8, 9]);
    assert.deepEqual([...d.slice(undefined, 2).copyToHost()], [0, 1]);
    assert.deepEqual([...d.slice(8, 3).copyToHost()], []);
    assert.deepEqual([...d.slice(2, 9).slice(1, 3).copyToHost()], [3, 4]);
    assert.equal(d.slice(2, 9).slice(1, 3).base, d, "a view's base is the array that owns the memory");
  });

  it("copyToDevice into a view writes only its part of the array", () => {
    const d = cuda.toDevice(new Float32Array(6));
    d.slice(2, 4).copyToDevice(Float32Array.of(5, 6));
    assert.deepEqual([...d.copyToHost()], [0, 0, 5, 6, 0, 0]);
  });

  it("reshape and ravel are views with another shape; -1 is inferred; a kernel sees the new shape", () => {
    const d = cuda.deviceArray(12, f32);
    const m = d.reshape(3, -1);
    assert.deepEqual(m.shape, [3, 4]);
    assert.deepEqual(d.reshape([2, 2, 3]).shape, [2, 2, 3]);
    markRows.launch([1, 1], [8, 8])(m);
    assert.deepEqual([...d.copyToHost()], [0, 1, 2, 3, 100, 101, 102, 103, 200, 201, 202, 203]);
    assert.deepEqual([...m.ravel().copyToHost()], [...d.copyToHost()]);
  });

  it("row(i) of a 2-D array is a 1-D view of that row; of a 3-D array a 2-D view", () => {
    const m = cuda.toDevice(cuda.ndarray(Float32Array.from({ length: 12 }, (_, i) => i), [3, 4]));
    assert.deepEqual([...m.row(1).copyToHost()], [4, 5, 6, 7]);
    assert.deepEqual([...m.row(-1).copyToHost()], [8, 9, 10, 11]);
    addIndex.launch(1, 32)(m.row(2));
    assert.deepEqual([...m.copyToHost().data], [0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14]);
    assert.deepEqual(cuda.deviceArray([2, 3, 4], f32).row(1).shape, [3, 4]);
  });

  it("what would need strides is CSR057 saying what to do instead; wrong sizes are CSR011", () => {
    const d = cuda.deviceArray([3, 4], f32);
    throwsCode(() => d.slice(3, 0, -1), "CSR057", /negative step \(-1\).*a\[n - 1 - k\]/);
    throwsCode(() => d.reshape(4, 3, { order: "F" }), "CSR057", /Fortran order of a \[3, 4\] array that is not F-contiguous would need a copy: reshape it with \{ order: "C" \}/);
    throwsCode(() => d.ravel("F"), "CSR057", /ravel\("F"\).*use ravel\("C"\)/);
    throwsCode(() => d.reshape(5, -1), "CSR011", /12 elements.*cannot hold/);
    throwsCode(() => d.reshape(-1, -1), "CSR013", /only one dimension can be -1/);
    throwsCode(() => d.row(3), "CSR013", /\[-3, 3\)/);
    throwsCode(() => cuda.deviceArray(4, f32).row(0), "CSR006", /2-D or 3-D/);
    // Where Fortran order is the same as C order, it is a view.
    assert.deepEqual(cuda.deviceArray([1, 6], f32).reshape([6, 1], { order: "F" }).shape, [6, 1]);
  });

  it("a C-order array is C-contiguous, and F-contiguous too when at most one dimension exceeds 1", () => {
    assert.equal(cuda.deviceArray([3, 4], f32).isCContiguous(), true);
    assert.equal(cuda.deviceArray([3, 4], f32).isFContiguous(), false);
    assert.equal(cuda.deviceArray([1, 4], f32).isFContiguous(), true);
    assert.equal(cuda.deviceArray(7, f32).isFContiguous(), true);
  });

  it("freeing the array makes its views unusable (CSR010); freeing a view leaves the array alone", () => {
    const d = cuda.toDevice(Float32Array.of(1, 2, 3, 4));
    const v = d.slice(1);
    v.free();
    assert.deepEqual([...d.copyToHost()], [1, 2, 3, 4]);
    throwsCode(() => v.copyToHost(), "CSR010");
    const w = d.slice(2);
    d.free();
    assert.equal(w.freed, true);
    throwsCode(() => w.copyToHost(), "CSR010", /view of a f32 array with shape \[4\], which was freed/);
    throwsCode(() => addIndex.launch(1, 32)(w), "CSR010");
  });
});

describe("Numba's keywords for copies, and stream.autoSynchronize", () => {
  it("toDevice(a, { copy: false }) allocates without copying; { to } copies into an existing array and returns it", () => {
    const host = Float32Array.of(1, 2, 3);
    assert.deepEqual([...cuda.toDevice(host, { copy: false }).copyToHost()], [0, 0, 0]);
    const target = cuda.deviceArray(3, f32);
    assert.equal(cuda.toDevice(host, { to: target }), target);
    assert.deepEqual([...target.copyToHost()], [1, 2, 3]);
    throwsCode(() => cuda.toDevice(host, { to: cuda.deviceArray(3, i32) }), "CSR005");
  });

  it("copyToHost and copyToDevice take { stream } as well as a stream", () => {
    const s = cuda.stream();
    const d = cuda.toDevice(Float32Array.of(1, 2), { stream: s });
    const out = new Float32Array(2);
    d.copyToHost(out, { stream: s });
    s.synchronize();
    assert.deepEqual([...out], [1, 2]);
    d.copyToDevice(Float32Array.of(3, 4), s);
    assert.deepEqual([...d.copyToHost(undefined, s)], [3, 4]);
    throwsCode(() => d.copyToHost(undefined, { stream: {} as never }), "CSR014");
  });

  it("stream.autoSynchronize(work) returns work's result; without work it is a disposable for `using`", () => {
    const s = cuda.stream();
    const d = cuda.deviceArray(4, f32);
    const r = s.autoSynchronize(() => {
      addIndex.launch(1, 32, { stream: s })(d);
      return "done";
    });
    assert.equal(r, "done");
    assert.deepEqual([...d.copyToHost()], [0, 1, 2, 3]);
    const scope = s.autoSynchronize();
    assert.equal(typeof scope[Symbol.dispose], "function");
    scope[Symbol.dispose]();
    throwsCode(() => s.autoSynchronize(42 as never), "CSR004", /takes a function/);
  });
});

describe("mapped and managed arrays, cuda.pinned (simulator)", () => {
  it("a kernel writes a mapped or managed array in place: the host sees the result without a copy back", () => {
    for (const make of [cuda.mappedArray, cuda.managedArray]) {
      const a = make(5, f32);
      assert.ok(a instanceof Float32Array);
      a.fill(10);
      addIndex.launch(1, 32)(a);
      assert.deepEqual([...a], [10, 11, 12, 13, 14]);
      const part = a.subarray(2);
      addIndex.launch(1, 32)(part);
      assert.deepEqual([...a], [10, 11, 12, 14, 16], "a subarray is the same memory, from its offset");
    }
    const m = cuda.managedArray([3, 4], f32);
    markRows.launch([1, 1], [8, 8])(m);
    assert.deepEqual([...m.data], [0, 1, 2, 3, 100, 101, 102, 103, 200, 201, 202, 203]);
  });

  it("cuda.pinned runs the work and returns its result (the simulator has nothing to pin); bad arguments are CSR004", () => {
    const a = new Float32Array(4);
    assert.equal(cuda.pinned(a, cuda.ndarray(new Int32Array(4), [2, 2]), () => 7), 7);
    const scope = cuda.pinned(a);
    scope[Symbol.dispose]();
    throwsCode(() => cuda.pinned([1, 2] as never, () => 0), "CSR004", /pass typed arrays/);
    throwsCode(() => cuda.mappedArray(-1, f32), "CSR013");
  });
});

describe("kernel.forall(n) (Numba's forall)", () => {
  const art = compileSource(`
import { cuda, type i32 } from "cudascript";
export const fill = cuda.jit((a: Int32Array, size: Int32Array) => {
  const i = cuda.grid(1);
  if (i === 0) { size[0] = cuda.gridsize(1); size[1] = cuda.blockDim.x; }
  if (i < a.length) a[i] = i;
});
export const bounded = cuda.jit((a: Int32Array, size: Int32Array) => {
  const i = cuda.grid(1);
  if (i === 0) { size[0] = cuda.gridsize(1); size[1] = cuda.blockDim.x; }
  if (i < a.length) a[i] = i;
}, { launchBounds: 64 });
`);
  type Forall = { forall(n: number, o?: object): (...a: unknown[]) => void };
  const fill = kernel(art, "fill") as unknown as Forall;
  const bounded = kernel(art, "bounded") as unknown as Forall;

  it("launches ceil(n / tpb) blocks: 256 threads per block on the simulator, tpb when given, within launchBounds", () => {
    const a = new Int32Array(1000), size = new Int32Array(2);
    fill.forall(1000)(a, size);
    assert.deepEqual([...size], [1024, 256]);
    assert.deepEqual([...a.subarray(995)], [995, 996, 997, 998, 999]);
    fill.forall(1000, { tpb: 100 })(a, size);
    assert.deepEqual([...size], [1000, 100]);
    bounded.forall(1000)(a, size);
    assert.deepEqual([...size], [1024, 64], "a kernel compiled with launchBounds 64 gets blocks of 64");
  });

  it("forall(0) launches nothing; a bad count or tpb is CSR007, a tpb over launchBounds CSR008", () => {
    const size = new Int32Array(2).fill(-1);
    fill.forall(0)(new Int32Array(0), size);
    assert.deepEqual([...size], [-1, -1]);
    throwsCode(() => fill.forall(2.5), "CSR007", /whole number ≥ 0/);
    throwsCode(() => fill.forall(-1), "CSR007");
    throwsCode(() => fill.forall(10, { tpb: 0 }), "CSR007", /tpb/);
    throwsCode(() => bounded.forall(10, { tpb: 128 }), "CSR008", /launchBounds 64/);
  });
});
