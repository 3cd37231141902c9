/**
 * The CUDA Array Interface (version 3) on the simulator, both ways: device arrays describe themselves
 * with `__cuda_array_interface__` (pointers in the simulated device's address space), and
 * `cuda.isCudaArray` / `asCudaArray` / `fromCudaArrayInterface` and kernel launches take any object
 * with one. Ported from Numba's test_cuda_array_interface.py (what makes sense in TypeScript).
 */
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cuda, f32, f64, i32, u8, c64, type CudaArrayInterface } from "cudascript";
import { currentBackend } from "cudascript/dist/host/device";
import { compileSource, kernel, throwsCode } from "./helpers";

const artifact = compileSource(`
import { cuda, type Array2D, type f32, type f64 } from "cudascript";
export const mutate = cuda.jit((arr: Float64Array, val: f64) => {
  const i = cuda.grid(1);
  if (i < arr.length) arr[i] += val;
});
export const addOne = cuda.jit((arr: Float64Array) => {
  const i = cuda.grid(1);
  if (i < arr.length) arr[i] += 1;
});
export const fill2 = cuda.jit((m: Array2D<f32>) => {
  const [r, c] = cuda.grid(2);
  if (r < m.shape[0] && c < m.shape[1]) m[r][c] = r * 10 + c;
});
export const both = cuda.jit((x: Float64Array, y: Float64Array) => {
  const i = cuda.grid(1);
  if (i < x.length) y[i] = x[i];
});
`);
const ufuncs = compileSource(`
import { cuda, type Array1D, type f64 } from "cudascript";
export const vadd = cuda.vectorize((a: f64, b: f64): f64 => a + b);
export const gvadd = cuda.guvectorize((inp: f64, val: f64, out: Array1D<f64>): void => {
  out[0] = inp + val;
}, "(),()->()");
export const total = cuda.reduce((a: f64, b: f64): f64 => a + b);
`);
type AnyCall = (...args: unknown[]) => any;
const vadd = (cuda.vectorize as unknown as (fn: unknown, a: unknown, n: string) => AnyCall)(null, ufuncs, "vadd_vectorize");
const gvadd = (cuda.guvectorize as unknown as (fn: unknown, l: string, a: unknown, n: string) => AnyCall)(null, "(),()->()", ufuncs, "gvadd_guvectorize");
const total = (cuda.reduce as unknown as (fn: unknown, a: unknown, n: string) => AnyCall)(null, ufuncs, "total_reduce");
const mutate = kernel(artifact, "mutate");
const addOne = kernel(artifact, "addOne");
const fill2 = kernel(artifact, "fill2");
const both = kernel(artifact, "both");

/** Numba's ForeignArray: another library's array, known only through its interface. */
class ForeignArray {
  constructor(readonly arr: { readonly __cuda_array_interface__: CudaArrayInterface }, private readonly stream: number | null = null) {}
  get __cuda_array_interface__(): CudaArrayInterface {
    return { ...this.arr.__cuda_array_interface__, stream: this.stream };
  }
}

const arange = (n: number) => Float64Array.from({ length: n }, (_, i) => i);
const pointerOf = (a: { __cuda_array_interface__: CudaArrayInterface }) => a.__cuda_array_interface__.data[0];

describe("__cuda_array_interface__ (produced)", () => {
  it("describes a device array: shape, typestr, a bigint pointer (256-byte aligned), strides null when C-contiguous, version 3, no stream", () => {
    const d = cuda.toDevice(new Float32Array(6));
    const face = d.__cuda_array_interface__;
    assert.deepEqual(face.shape, [6]);
    assert.equal(face.typestr, "<f4");
    assert.equal(typeof face.data[0], "bigint");
    assert.equal(face.data[0] % 256n, 0n, "cudaMalloc's alignment");
    assert.equal(face.data[1], false);
    assert.equal(face.strides, null);
    assert.equal(face.version, 3);
    assert.equal(face.stream, null, "test_produce_no_stream");
    const other = cuda.deviceArray(6, f32);
    assert.notEqual(pointerOf(other), face.data[0], "every allocation has its own address");
  });

  it("gives each dtype its NumPy typestr", () => {
    const expect: [unknown, string][] = [[f32, "<f4"], [f64, "<f8"], [i32, "<i4"], [u8, "|u1"], [c64, "<c8"]];
    for (const [dt, ts] of expect) assert.equal(cuda.deviceArray(2, dt as typeof f32).__cuda_array_interface__.typestr, ts);
  });

  it("test_strides: a C-contiguous array has strides null, a non-contiguous view its byte strides", () => {
    const c = cuda.deviceArray([2, 3, 4], f32);
    assert.equal(c.__cuda_array_interface__.strides, null);
    const t = cuda.deviceArray([3, 4], f32).T;
    assert.deepEqual(t.__cuda_array_interface__.strides, [4, 16]);
    const stepped = cuda.deviceArray(10, f64).slice(0, undefined, 2);
    assert.deepEqual(stepped.__cuda_array_interface__.strides, [16]);
  });

  it("a view's pointer is its base's plus the view's byte offset (test_negative_strided_issue's offset check)", () => {
    const d = cuda.toDevice(arange(10));
    assert.equal(pointerOf(d.slice(3)) - pointerOf(d), 24n);
    const m = cuda.deviceArray([4, 5], f32);
    assert.equal(pointerOf(m.row(2)) - pointerOf(m), 40n);
  });

  it("test_zero_size_array: an empty array's pointer is 0, and a kernel takes it through a foreign wrapper", () => {
    const c = cuda.deviceArray(0, f64);
    assert.equal(c.__cuda_array_interface__.data[0], 0n);
    addOne.launch(1, 10)(new ForeignArray(c));
    const back = cuda.fromCudaArrayInterface(c.__cuda_array_interface__);
    assert.equal(back.size, 0);
  });

  it("a freed array has no interface (CSR010)", () => {
    const d = cuda.deviceArray(4, f32);
    d.free();
    throwsCode(() => d.__cuda_array_interface__, "CSR010");
  });
});

describe("cuda.isCudaArray / asCudaArray / fromCudaArrayInterface (consumed)", () => {
  it("test_as_cuda_array: host arrays are not CUDA arrays; device arrays and foreign ones are; the view has the same pointer and values", () => {
    const h = arange(10);
    assert.equal(cuda.isCudaArray(h), false);
    const d = cuda.toDevice(h);
    assert.equal(cuda.isCudaArray(d), true);
    const mine = new ForeignArray(d);
    assert.equal(cuda.isCudaArray(mine), true);
    const wrapped = cuda.asCudaArray(mine);
    assert.equal(cuda.isCudaArray(wrapped), true);
    assert.deepEqual([...wrapped.copyToHost()], [...h]);
    assert.equal(pointerOf(wrapped), pointerOf(d), "the same memory");
  });

  it("isCudaArray is false for everything that is not an array with the interface", () => {
    for (const v of [null, undefined, 1, "x", 1n, {}, [], new Float32Array(2), cuda.ndarray(new Float32Array(4), [2, 2]), () => 0]) assert.equal(cuda.isCudaArray(v), false, String(v));
  });

  it("test_ownership: the view keeps its owner; freeing the view does not free the owner's memory", () => {
    const d = cuda.toDevice(arange(100));
    const v = cuda.asCudaArray(d);
    v.free();
    assert.deepEqual([...d.copyToHost()].slice(0, 3), [0, 1, 2]);
    const w = cuda.asCudaArray(d);
    d.free();
    throwsCode(() => w.copyToHost(), "CSR010", /freed/);
  });

  it("test_kernel_arg: a kernel launched on a foreign array writes the original's memory", () => {
    const h = arange(10);
    const d = cuda.toDevice(h);
    const wrapped = cuda.asCudaArray(new ForeignArray(d));
    mutate.launch(1, 32)(wrapped, 7);
    assert.deepEqual([...wrapped.copyToHost()], [...h].map((x) => x + 7));
    assert.deepEqual([...d.copyToHost()], [...h].map((x) => x + 7));
    // and the foreign object itself as the argument, as Numba takes it
    mutate.launch(1, 32)(new ForeignArray(d), 1);
    assert.deepEqual([...d.copyToHost()], [...h].map((x) => x + 8));
  });

  it("test_array_views: slices, strided slices and views of strided arrays through the interface read and write the original", () => {
    const h = arange(10);
    const c = cuda.toDevice(h);
    const arr = cuda.asCudaArray(c);
    assert.deepEqual([...arr.copyToHost()], [...h]);
    assert.deepEqual([...arr.slice(0, 5).copyToHost()], [0, 1, 2, 3, 4]);
    assert.deepEqual([...arr.slice(undefined, undefined, 2).copyToHost()], [0, 2, 4, 6, 8]);
    const strided = cuda.asCudaArray(c.slice(undefined, undefined, 2));
    assert.deepEqual([...strided.copyToHost()], [0, 2, 4, 6, 8]);
    assert.deepEqual(strided.shape, arr.slice(undefined, undefined, 2).shape);
    assert.deepEqual(strided.strides, arr.slice(undefined, undefined, 2).strides);
    // writes through an offset view of the interface land in the original
    arr.slice(5).copyToDevice(Float64Array.of(-1, -2, -3, -4, -5));
    assert.deepEqual([...c.copyToHost()], [0, 1, 2, 3, 4, -1, -2, -3, -4, -5]);
    // a kernel writing a sliced interface (offset 3 elements) is seen through the original
    const sliced = cuda.fromCudaArrayInterface(c.slice(3, 6).__cuda_array_interface__, c);
    addOne.launch(1, 32)(sliced);
    assert.deepEqual([...c.copyToHost()], [0, 1, 2, 4, 5, 0, -2, -3, -4, -5]);
  });

  it("2-D: a kernel writes a strided (transposed) view made from an interface, seen through the original", () => {
    const m = cuda.deviceArray([3, 4], f32);
    const t = cuda.fromCudaArrayInterface(m.T.__cuda_array_interface__, m);
    assert.deepEqual(t.shape, [4, 3]);
    fill2.launch([1, 1], [8, 8])(t);
    const host = m.copyToHost() as unknown as { data: Float32Array };
    // t[r][c] = 10r + c is m[c][r]
    assert.deepEqual([...host.data], [0, 10, 20, 30, 1, 11, 21, 31, 2, 12, 22, 32]);
  });

  it("test_consuming_strides: strides null and explicit C strides read the same array", () => {
    const h = cuda.ndarray(Float64Array.from({ length: 10 }, (_, i) => i), [2, 5]);
    const d = cuda.toDevice(h);
    const face = d.__cuda_array_interface__;
    assert.equal(face.strides, null);
    const a = cuda.fromCudaArrayInterface(face).copyToHost() as unknown as { data: Float64Array };
    assert.deepEqual([...a.data], [...h.data]);
    const b = cuda.fromCudaArrayInterface({ ...face, strides: [40, 8] }).copyToHost() as unknown as { data: Float64Array };
    assert.deepEqual([...b.data], [...h.data]);
    assert.ok(cuda.fromCudaArrayInterface({ ...face, strides: [40, 8] }).isCContiguous());
  });

  it("takes a pointer given as a number as well as a bigint, and '=' (native) byte order", () => {
    const d = cuda.toDevice(arange(4));
    const face = d.__cuda_array_interface__;
    const v = cuda.fromCudaArrayInterface({ ...face, data: [Number(face.data[0]) as unknown as bigint, false], typestr: "=f8" });
    assert.deepEqual([...v.copyToHost()], [0, 1, 2, 3]);
  });
});

describe("ufuncs, gufuncs and reductions take foreign arrays (test_ufunc_arg, test_gufunc_arg)", () => {
  it("cuda.vectorize: a foreign array as an argument, and as out", () => {
    const h = arange(10);
    const r = vadd(new ForeignArray(cuda.toDevice(h)), 6);
    assert.deepEqual([...(r.copyToHost() as Float64Array)], [...h].map((x) => x + 6));
    const target = cuda.deviceArray(10, f64);
    const returned = vadd(h, 6, { out: new ForeignArray(target) });
    assert.equal(pointerOf(returned), pointerOf(target), "the result is in the foreign array's memory");
    assert.deepEqual([...(target.copyToHost() as Float64Array)], [...h].map((x) => x + 6));
  });
  it("cuda.guvectorize: a foreign array as an argument, and as out", () => {
    const h = arange(10);
    const r = gvadd(new ForeignArray(cuda.toDevice(h)), 7);
    assert.deepEqual([...(r.copyToHost() as Float64Array)], [...h].map((x) => x + 7));
    const target = cuda.deviceArray(10, f64);
    const returned = gvadd(h, 7, { out: new ForeignArray(target) });
    assert.equal(pointerOf(returned), pointerOf(target));
    assert.deepEqual([...(target.copyToHost() as Float64Array)], [...h].map((x) => x + 7));
  });
  it("cuda.reduce: a foreign array, and a foreign res", () => {
    assert.equal(total(new ForeignArray(cuda.toDevice(arange(10)))), 45);
    const res = cuda.deviceArray(1, f64);
    assert.equal(total(new ForeignArray(cuda.toDevice(arange(4))), { res: new ForeignArray(res) }), undefined);
    assert.deepEqual([...(res.copyToHost() as Float64Array)], [6]);
  });
});

describe("the interface's stream", () => {
  function spySync<T>(work: () => T): { calls: bigint[]; result: T } {
    const backend = currentBackend() as { synchronizeRawStream?: (h: bigint) => void };
    const original = backend.synchronizeRawStream;
    const calls: bigint[] = [];
    backend.synchronizeRawStream = (h) => void calls.push(h);
    try {
      return { calls, result: work() };
    } finally {
      backend.synchronizeRawStream = original;
    }
  }

  it("test_consume_no_sync / test_consume_sync: a stream is synchronised once, none is not", () => {
    const d = cuda.deviceArray(10, f64);
    assert.deepEqual(spySync(() => cuda.asCudaArray(new ForeignArray(d))).calls, []);
    assert.deepEqual(spySync(() => cuda.asCudaArray(new ForeignArray(d, 0x1234))).calls, [0x1234n]);
    assert.deepEqual(spySync(() => cuda.asCudaArray({ __cuda_array_interface__: { ...d.__cuda_array_interface__, stream: 7n } })).calls, [7n]);
  });

  it("test_consume_sync_disabled: { sync: false } and CUDASCRIPT_ARRAY_INTERFACE_SYNC=0 leave it to the caller", () => {
    const d = cuda.deviceArray(10, f64);
    assert.deepEqual(spySync(() => cuda.asCudaArray(new ForeignArray(d, 5), { sync: false })).calls, []);
    process.env.CUDASCRIPT_ARRAY_INTERFACE_SYNC = "0";
    try {
      assert.deepEqual(spySync(() => cuda.asCudaArray(new ForeignArray(d, 5))).calls, []);
    } finally {
      delete process.env.CUDASCRIPT_ARRAY_INTERFACE_SYNC;
    }
  });

  it("test_launch_sync / test_launch_no_sync / two streams: a launch synchronises each foreign argument's stream", () => {
    const x = cuda.toDevice(arange(4)), y = cuda.deviceArray(4, f64);
    assert.deepEqual(spySync(() => both.launch(1, 4)(new ForeignArray(x), new ForeignArray(y))).calls, []);
    assert.deepEqual(spySync(() => both.launch(1, 4)(new ForeignArray(x, 11), new ForeignArray(y, 12))).calls, [11n, 12n]);
    assert.deepEqual([...y.copyToHost()], [0, 1, 2, 3]);
  });
});

describe("bad descriptors get CSR061 / CSR062", () => {
  const d = cuda.toDevice(arange(10));
  const face = () => d.__cuda_array_interface__;

  it("test_masked_array: a mask is refused", () => {
    throwsCode(() => cuda.fromCudaArrayInterface({ ...face(), mask: cuda.deviceArray(10, u8) }), "CSR061", /masked arrays are not supported/);
  });
  it("an unknown typestr, a big-endian one", () => {
    throwsCode(() => cuda.fromCudaArrayInterface({ ...face(), typestr: "<f3" }), "CSR061", /typestr "<f3" is not a dtype/);
    throwsCode(() => cuda.fromCudaArrayInterface({ ...face(), typestr: ">f8" }), "CSR061", /big-endian/);
    throwsCode(() => cuda.fromCudaArrayInterface({ ...face(), typestr: "<M8" }), "CSR061", /is not a dtype/);
  });
  it("negative, misaligned and zero strides", () => {
    throwsCode(() => cuda.fromCudaArrayInterface({ ...face(), strides: [-8] }), "CSR061", /negative/);
    throwsCode(() => cuda.fromCudaArrayInterface({ ...face(), strides: [12] }), "CSR061", /not a multiple of the 8-byte item size/);
    throwsCode(() => cuda.fromCudaArrayInterface({ ...face(), strides: [0] }), "CSR061", /broadcast/);
    throwsCode(() => cuda.fromCudaArrayInterface({ ...face(), strides: [8, 8] }), "CSR061", /one whole number per dimension/);
  });
  it("a null pointer with a non-empty shape, a misaligned pointer, a pointer that is not a number", () => {
    throwsCode(() => cuda.fromCudaArrayInterface({ ...face(), data: [0n, false] }), "CSR061", /null pointer/);
    throwsCode(() => cuda.fromCudaArrayInterface({ ...face(), data: [face().data[0] + 4n, false] }), "CSR061", /not aligned/);
    throwsCode(() => cuda.fromCudaArrayInterface({ ...face(), data: ["0x10" as unknown as bigint, false] }), "CSR061", /device pointer/);
  });
  it("version, shape, stream 0, and a non-object", () => {
    throwsCode(() => cuda.fromCudaArrayInterface({ ...face(), version: 4 }), "CSR061", /version/);
    throwsCode(() => cuda.fromCudaArrayInterface({ ...face(), shape: [2, 2, 2, 2] }), "CSR061", /1 to 3 dimensions/);
    throwsCode(() => cuda.fromCudaArrayInterface({ ...face(), shape: [-1] }), "CSR061", /shape/);
    throwsCode(() => cuda.fromCudaArrayInterface({ ...face(), stream: 0 }), "CSR061", /stream is 0/);
    throwsCode(() => cuda.fromCudaArrayInterface(null as unknown as CudaArrayInterface), "CSR061", /descriptor is an object/);
    throwsCode(() => cuda.asCudaArray(new Float32Array(3)), "CSR061", /not a CUDA array/);
  });
  it("CSR062: a pointer outside every allocation, past the end of one, or into a freed one", () => {
    throwsCode(() => cuda.fromCudaArrayInterface({ ...face(), data: [0x1000n, false] }), "CSR062", /outside every live allocation/);
    throwsCode(() => cuda.fromCudaArrayInterface({ ...face(), shape: [11] }), "CSR062", /outside every live allocation/);
    throwsCode(() => cuda.fromCudaArrayInterface({ ...face(), data: [face().data[0] + 8n, false] }), "CSR062");
    const gone = cuda.deviceArray(4, f64);
    const stale = gone.__cuda_array_interface__;
    gone.free();
    throwsCode(() => cuda.fromCudaArrayInterface(stale), "CSR062");
  });
  it("a foreign kernel argument with a bad interface fails the launch with its code, not a crash", () => {
    throwsCode(() => addOne.launch(1, 1)({ __cuda_array_interface__: { ...face(), typestr: "<f4" } }), "CSR005");
    throwsCode(() => addOne.launch(1, 1)({ __cuda_array_interface__: { ...face(), mask: 1 } }), "CSR061");
  });
});
