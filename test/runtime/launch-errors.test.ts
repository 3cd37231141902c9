/**
 * Bad input at launch and in the host API: each is a CudaScriptError with its code and a message that
 * says what to pass instead — raised before anything runs.
 */
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bool, cuda, CudaScriptError, f32, i32 } from "cudascript";
import { DeviceNDArray } from "cudascript/dist/host/arrays";
import { dtypes } from "cudascript/dist/dtypes";
import { kernelSpanProblem } from "cudascript/dist/layout";
import { compileSource, kernel } from "../simulator/helpers";

const art = compileSource(`
import { cuda, f32, i32, u32, Array2D } from "cudascript";
export const saxpy = cuda.jit((a: f32, x: Float32Array, y: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = a * x[i] + y[i];
});
export const fill2d = cuda.jit((m: Array2D<f32>, v: f32) => {
  const [c, r] = cuda.grid(2);
  if (r < m.shape[0] && c < m.shape[1]) m[r][c] = v;
});
export const count = cuda.jit((n: i32, flags: Uint8Array, total: Uint32Array) => {
  const i = cuda.grid(1);
  if (i < n && flags[i] !== 0) cuda.atomic.add(total, 0, 1);
});
export const dyn = cuda.jit((out: Float32Array) => {
  const s = cuda.shared.array(0, f32);
  const t = cuda.threadIdx.x;
  s[t] = t;
  cuda.syncthreads();
  out[cuda.grid(1)] = s[t];
});
export const bounded = cuda.jit((out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = i;
}, { launchBounds: [128, 2] });
`);
const saxpy = kernel(art, "saxpy");
const fill2d = kernel(art, "fill2d");
const count = kernel(art, "count");
const dyn = kernel(art, "dyn");
const bounded = kernel(art, "bounded");

function throwsCode(f: () => unknown, code: string, pattern?: RegExp): void {
  assert.throws(f, (e: unknown) => {
    assert.ok(e instanceof CudaScriptError, `expected CudaScriptError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    assert.ok(e.message.startsWith(`${code}: `));
    if (pattern) assert.match(e.message, pattern);
    return true;
  });
}

const n = 100;
const x = () => new Float32Array(n).fill(1);

describe("launch arguments", () => {
  it("runs a correct launch (host arrays copied in and back)", () => {
    const out = new Float32Array(n);
    saxpy.launch(4, 32)(2, x(), x(), out);
    assert.equal(out[99], 3);
  });
  it("CSR003 wrong argument count, with the signature", () => {
    throwsCode(() => saxpy.launch(4, 32)(2, x(), x()), "CSR003", /saxpy\(a: f32, x: Float32Array, y: Float32Array, out: Float32Array\) takes 4 arguments, but was launched with 3/);
  });
  it("CSR004 array where a scalar goes, scalar where an array goes, plain JS arrays", () => {
    throwsCode(() => saxpy.launch(4, 32)(x(), x(), x(), x()), "CSR004", /argument 1 'a'.*not a Float32Array.*order of the arguments/);
    throwsCode(() => saxpy.launch(4, 32)(2, 5, x(), x()), "CSR004", /argument 2 'x'.*expects Float32Array.*got the number 5/);
    throwsCode(() => saxpy.launch(4, 32)(2, [1, 2, 3], x(), x()), "CSR004", /plain JavaScript array: pass Float32Array\.from\(values\)/);
    throwsCode(() => saxpy.launch(4, 32)("2", x(), x(), x()), "CSR004", /a string/);
    throwsCode(() => count.launch(1, 32)(n, 1, new Uint32Array(1)), "CSR004", /flags/);
  });
  it("CSR005 wrong dtype (host and device arrays)", () => {
    throwsCode(() => saxpy.launch(4, 32)(2, new Float64Array(n), x(), x()), "CSR005", /expects Float32Array, got a Float64Array \(f64\)/);
    throwsCode(() => saxpy.launch(4, 32)(2, cuda.toDevice(new Int32Array(n)), x(), x()), "CSR005", /device array holds i32/);
  });
  it("CSR006 wrong rank", () => {
    throwsCode(() => fill2d.launch([1, 1], [8, 8])(new Float32Array(64), 1), "CSR006", /2-D array \(Array2D<f32>\).*cuda\.ndarray\(data, \[rows, cols\]\)/);
    throwsCode(() => saxpy.launch(4, 32)(2, cuda.ndarray(new Float32Array(100), [10, 10]), x(), x()), "CSR006", /1-D array/);
    throwsCode(() => fill2d.launch([1, 1], [8, 8])(cuda.deviceArray(64, f32), 1), "CSR006", /device array is 1-D/);
  });
  it("CSR011 mismatched shapes", () => {
    throwsCode(() => cuda.ndarray(new Float32Array(10), [3, 4]), "CSR011", /holds 12 elements but the data has 10/);
    throwsCode(() => fill2d.launch([1, 1], [8, 8])({ data: new Float32Array(10), shape: [3, 4] }, 1), "CSR011");
    const d = cuda.toDevice(new Float32Array(8));
    throwsCode(() => d.copyToHost(new Float32Array(9)), "CSR011", /9 elements.*8/);
    throwsCode(() => d.copyToDevice(new Float32Array(7)), "CSR011");
    throwsCode(() => d.copyToDevice(new Int32Array(8)), "CSR005");
  });
  it("CSR010 freed device arrays", () => {
    const d = cuda.toDevice(x());
    d.free();
    throwsCode(() => saxpy.launch(4, 32)(2, d, x(), x()), "CSR010", /argument 2 'x'.*was freed/);
    throwsCode(() => d.copyToHost(), "CSR010");
  });
  it("CSR012 scalar values that do not fit the dtype", () => {
    throwsCode(() => count.launch(1, 32)(3.5, new Uint8Array(4), new Uint32Array(1)), "CSR012", /integer \(i32\), got 3\.5/);
    throwsCode(() => count.launch(1, 32)(2 ** 31, new Uint8Array(4), new Uint32Array(1)), "CSR012", /range/);
  });
  it("nothing runs when an argument is bad (outputs untouched)", () => {
    const out = new Float32Array(n).fill(7);
    assert.throws(() => saxpy.launch(4, 32)(2, x(), new Int32Array(n), out));
    assert.equal(out[0], 7);
  });
});

describe("launch configuration", () => {
  it("CSR008 too many threads per block, and per dimension", () => {
    throwsCode(() => saxpy.launch(1, 2048), "CSR008", /2048 threads.*at most 1024/);
    throwsCode(() => saxpy.launch(1, [32, 32, 2]), "CSR008", /2048 threads/);
    throwsCode(() => saxpy.launch(1, [1, 1, 128]), "CSR008", /block size z = 128/);
  });
  it("CSR008 a block with more threads than the kernel's launchBounds, which a GPU refuses too; a block at the bound runs", () => {
    throwsCode(() => bounded.launch(1, 256), "CSR008", /256 threads.*launchBounds 128.*at most 128 threads per block/);
    throwsCode(() => bounded.launch(1, [16, 16]), "CSR008", /launchBounds 128/);
    const out = new Float32Array(256);
    bounded.launch(2, 128)(out);
    assert.equal(out[255], 255);
  });
  it("CSR007 invalid grid and block sizes", () => {
    throwsCode(() => saxpy.launch(0, 32), "CSR007", /grid size x must be a whole number ≥ 1, got 0/);
    throwsCode(() => saxpy.launch(2.5, 32), "CSR007", /Math\.ceil/);
    throwsCode(() => saxpy.launch([1, 2, 3, 4] as never, 32), "CSR007", /4 dimensions/);
    throwsCode(() => saxpy.launch([1, 70000], 32), "CSR007", /grid size y = 70000/);
    throwsCode(() => saxpy.launch("4" as never, 32), "CSR007");
  });
  it("dynamic shared memory above 48 KiB runs (opted in, as on an sm_80 GPU); CSR009 over the 163 KiB opt-in limit; CSR020 when a dynamic-shared kernel gets none", () => {
    const big = new Float32Array(32);
    dyn.launch(1, 32, { sharedMem: 64 * 1024 })(big);
    assert.equal(big[31], 31);
    throwsCode(() => dyn.launch(1, 32, { sharedMem: 164 * 1024 }), "CSR009", /over the 163 KiB of shared memory a block can have on the simulator \(which models an sm_80 GPU\)/);
    throwsCode(() => dyn.launch(1, 32, { sharedMem: -4 }), "CSR007");
    throwsCode(() => dyn.launch(1, 32, { sharedMem: 1e12 }), "CSR009", /sharedMem 1000000000000 \(931 GiB\) is 931 GiB, over the 163 KiB of shared memory a block can have/);
    throwsCode(() => dyn.launch(1, 32, { sharedMem: Infinity }), "CSR007", /got the number Infinity/);
    throwsCode(() => dyn.launch(1, 32)(new Float32Array(32)), "CSR020", /sharedMem/);
    const out = new Float32Array(32);
    dyn.launch(1, 32, { sharedMem: 32 * 4 })(out);
    assert.equal(out[31], 31);
  });
  it("CSR060 a kernel called without a launch configuration says to write launch(blocks, threads) or forall; launch and forall still work", () => {
    const out = new Float32Array(n);
    const call = saxpy as unknown as (...args: unknown[]) => void;
    throwsCode(() => call(2, x(), x(), out), "CSR060", /kernel 'saxpy' was called without a launch configuration: write saxpy\.launch\(blocks, threadsPerBlock\)\(…\), e\.g\. saxpy\.launch\(Math\.ceil\(n \/ 256\), 256\)\(…\) for n threads, or saxpy\.forall\(n\)\(…\)/);
    assert.equal(out[0], 0);
    // A kernel compiled from source at its first launch (no build step) is callable the same way.
    const fromSource = cuda.jit((o: Float32Array) => {
      o[0] = 1;
    }) as unknown as (...args: unknown[]) => void;
    throwsCode(() => fromSource(out), "CSR060", /\.launch\(blocks, threadsPerBlock\)/);
    assert.equal(saxpy.name, "saxpy");
    assert.match(String(saxpy), /^Kernel saxpy\(/);
    saxpy.launch(4, 32)(2, x(), x(), out);
    assert.equal(out[99], 3);
    (saxpy as unknown as { forall(n: number): (...a: unknown[]) => void }).forall(n)(3, x(), x(), out);
    assert.equal(out[99], 4);
  });
  it("CSR014 a stream that is not a stream", () => {
    throwsCode(() => saxpy.launch(1, 32, { stream: {} }), "CSR014", /cuda\.stream\(\)/);
  });
});

describe("host API", () => {
  it("toDevice / deviceArray / deviceArrayLike / copyToHost / copyToDevice / pinnedArray / ndarray", () => {
    const d = cuda.toDevice(Float32Array.of(1, 2, 3));
    assert.deepEqual([...d.copyToHost()], [1, 2, 3]);
    assert.deepEqual(d.shape, [3]);
    assert.equal(d.dtype.name, "f32");
    const z = cuda.deviceArray([2, 3], i32);
    const host = z.copyToHost();
    assert.deepEqual(host.shape, [2, 3]);
    assert.equal(host[1][2], 0);
    const like = cuda.deviceArrayLike(d);
    like.copyToDevice(d);
    assert.deepEqual([...like.copyToHost()], [1, 2, 3]);
    const p = cuda.pinnedArray([2, 2], f32);
    p.data.set([1, 2, 3, 4]);
    assert.equal(p[1][0], 3);
    const s = cuda.stream();
    const dp = cuda.toDevice(p, s);
    const back = dp.copyToHost(undefined, s);
    s.synchronize();
    assert.deepEqual([...back.data], [1, 2, 3, 4]);
    throwsCode(() => cuda.toDevice([1, 2] as never), "CSR004", /plain JavaScript array/);
    throwsCode(() => cuda.deviceArray([2, -1], f32), "CSR013");
  });
  it("kernel-only members, and a kernel with no artifact declared where CudaScript cannot compile it (inside a function)", () => {
    throwsCode(() => cuda.threadIdx, "CSR001", /only be used inside a kernel/);
    // Compiled from this file at its first launch (found through the test's source map), where it is
    // no module-level declaration.
    const k = cuda.jit((a: Float32Array) => void a);
    throwsCode(() => k.launch(1, 1), "CSR053", /launch-errors\.test\.ts:\d+:\d+ cannot be identified[^]*at module level/);
  });
  it("events, synchronize, devices, backend", () => {
    const a = cuda.event(), b = cuda.event();
    a.record();
    saxpy.launch(4, 32)(2, x(), x(), new Float32Array(n));
    b.record();
    b.synchronize();
    assert.ok(cuda.eventElapsedTime(a, b) >= 0);
    throwsCode(() => cuda.eventElapsedTime(a, cuda.event()), "CSR014", /never recorded/);
    cuda.synchronize();
    assert.equal(cuda.backend, "simulator");
    assert.equal(cuda.gpus.length, 1);
    cuda.selectDevice(0);
    throwsCode(() => cuda.selectDevice(3), "CSR014");
  });
});

describe("bool arrays at every rank", () => {
  const boolArt = compileSource(`
import { cuda, bool, Array1D, Array3D } from "cudascript";
export const flags1 = cuda.jit((x: Int32Array, flags: Array1D<bool>) => {
  const i = cuda.grid(1);
  if (i < flags.length) flags[i] = x[i] > 2;
});
export const flags3 = cuda.jit((flags: Array3D<bool>) => {
  const i = cuda.grid(1);
  if (i < flags.shape[2]) flags[0][0][i] = i % 2 === 0;
});
`);
  const flags1 = kernel(boolArt, "flags1");
  const flags3 = kernel(boolArt, "flags3");
  it("a 1-D bool device array is accepted by an Array1D<bool> parameter, as a 3-D one is by Array3D<bool>", () => {
    const d1 = cuda.deviceArray(5, bool);
    flags1.launch(1, 32)(Int32Array.of(0, 3, 1, 4, 5), d1);
    assert.deepEqual([...(d1.copyToHost() as Uint8Array)], [0, 1, 0, 1, 1]);
    const d3 = cuda.deviceArray([1, 1, 4], bool);
    flags3.launch(1, 32)(d3);
    assert.deepEqual([...(d3.copyToHost() as { data: Uint8Array }).data], [1, 0, 1, 0]);
  });
  it("a host Uint8Array is accepted by an Array1D<bool> parameter", () => {
    const host = new Uint8Array(3);
    flags1.launch(1, 32)(Int32Array.of(9, 0, 9), host);
    assert.deepEqual([...host], [1, 0, 1]);
  });
  it("CSR005 for a bool device array on a Uint8Array parameter names Array1D<bool>", () => {
    throwsCode(() => count.launch(1, 32)(4, cuda.deviceArray(4, bool), new Uint32Array(1)), "CSR005", /flags.*expects Uint8Array.*holds bool: declare the parameter Array1D<bool>/);
  });
});

describe("arrays too large for a kernel's 32-bit indexing (docs/abi.md)", () => {
  // A device array whose shape claims 2^31 elements over a 16-byte allocation (the internal
  // constructor does not check): the launch must refuse it before anything reads it, so no 2 GiB is allocated.
  const claims = (shape: number[], strides?: number[]) => new DeviceNDArray(shape, dtypes.f32, cuda.deviceArray(4, f32).buffer, undefined, strides);

  it("kernelSpanProblem: fewer than 2^31 elements spanned is fine, 2^31 or more is not, whatever the strides", () => {
    assert.equal(kernelSpanProblem([46340, 46340], [46340, 1]), undefined);
    assert.equal(kernelSpanProblem([2147483647], [1]), undefined);
    assert.match(kernelSpanProblem([65536, 32768], [32768, 1])!, /2147483648 elements/);
    assert.match(kernelSpanProblem([2, 2], [2147483647, 1])!, /2147483649 elements/);
    assert.equal(kernelSpanProblem([65536, 32768], [0, 1]), undefined, "a broadcast row spans one row");
    assert.equal(kernelSpanProblem([0, 2147483647 * 4], [1, 1]), undefined, "an empty array spans nothing");
  });

  it("CSR019 at launch for an N-D array spanning 2^31 elements, though each extent fits in an int", () => {
    throwsCode(() => fill2d.launch(1, 1)(claims([65536, 32768]), 1), "CSR019", /argument 1 'm' of kernel 'fill2d' spans 2147483648 elements \(shape \[65536, 32768\]\).*32-bit.*Split/);
    throwsCode(() => fill2d.launch(1, 1)(claims([32768, 65536], [1, 32768]), 1), "CSR019", /F order|strides/);
  });
});
