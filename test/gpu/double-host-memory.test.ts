// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver: nothing runs on a
// GPU. Proves the GPU path of Numba's host-memory API: cuda.mappedArray (cuMemHostAlloc with DEVICEMAP
// + cuMemHostGetDevicePointer), cuda.managedArray (cuMemAllocManaged) — both passed to kernels in
// place, with no copies — and cuda.pinned (cuMemHostRegister / cuMemHostUnregister around the work,
// copies from the registered memory counted as pinned by the driver).
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cuda, CudaScriptError, f32, i32 } from "cudascript";
import { gpuOnDouble, hex, kernel, kindsArtifact } from "./helpers";

const ptrParam = (hexBytes: string) => Buffer.from(hexBytes, "hex").readBigUInt64LE();

describe("mapped, managed and pinned host memory on the GPU backend (libcuda TEST DOUBLE)", () => {
  const artifact = kindsArtifact();

  it("mappedArray is DEVICEMAP pinned memory; a kernel gets its device pointer and nothing is copied", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const a = cuda.mappedArray(37, f32);
    assert.ok(a instanceof Float32Array && a.length === 37);
    const [alloc] = double.calls("cuMemHostAlloc");
    assert.equal(alloc!.flags, 3, "PORTABLE | DEVICEMAP");
    const [mapping] = double.calls("cuMemHostGetDevicePointer_v2");
    assert.equal(mapping!.host, alloc!.host);
    double.clearLog();
    const b = cuda.toDevice(new Float64Array(37));
    const rest = [new Int32Array(37), new Uint32Array(37), new Int16Array(37), new Uint16Array(37), new Int8Array(37), new Uint8Array(37)].map((x) => cuda.toDevice(x));
    double.clearLog();
    kernel(artifact, "arrays1d").launch(2, 32)(a, b, ...rest);
    const log = double.log().map((e) => e.call);
    assert.deepEqual(log.filter((c) => c.startsWith("cuMemcpy") || c === "cuMemAlloc_v2"), [], "no staging allocation and no copy for the mapped array");
    const [launch] = double.calls("cuLaunchKernel");
    const p = launch!.params as string[];
    assert.equal(hex(ptrParam(p[0]!)), mapping!.dptr, "the kernel gets the mapped device pointer");
    assert.equal(p[1], "25000000", "x_len = 37");
  });

  it("mapped 2-D/3-D arrays keep their shape, and a subarray of mapped memory passes at its byte offset", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const m = cuda.mappedArray([6, 7], f32);
    const v = cuda.mappedArray([2, 3, 5], i32);
    assert.deepEqual([m.shape, v.shape], [[6, 7], [2, 3, 5]]);
    kernel(artifact, "ndarrays").launch([1, 1], [8, 8])(m, v, 1, new Uint8Array([1]));
    const maps = double.calls("cuMemHostGetDevicePointer_v2").map((c) => c.dptr);
    let p = double.calls("cuLaunchKernel")[0]!.params as string[];
    assert.equal(hex(ptrParam(p[0]!)), maps[0]);
    assert.deepEqual(p.slice(1, 3), ["06000000", "07000000"]);
    assert.deepEqual(p.slice(3, 5), ["07000000", "01000000"], "C-order element strides");
    assert.equal(hex(ptrParam(p[5]!)), maps[1]);
    // An F-order mapped array passes in place with its column-major strides.
    const f = cuda.mappedArray([6, 7], f32, { order: "F" });
    kernel(artifact, "ndarrays").launch([1, 1], [8, 8])(f, v, 1, new Uint8Array([1]));
    p = double.calls("cuLaunchKernel").at(-1)!.params as string[];
    assert.equal(hex(ptrParam(p[0]!)), double.calls("cuMemHostGetDevicePointer_v2").at(-1)!.dptr);
    assert.deepEqual(p.slice(1, 5), ["06000000", "07000000", "01000000", "06000000"], "6 × 7, strides 1, 6");
    const whole = cuda.mappedArray(40, f32);
    const wholeAt = BigInt(double.calls("cuMemHostGetDevicePointer_v2").at(-1)!.dptr as string);
    double.clearLog();
    const others = [new Float64Array(37), new Int32Array(37), new Uint32Array(37), new Int16Array(37), new Uint16Array(37), new Int8Array(37), new Uint8Array(37)].map((x) => cuda.toDevice(x));
    kernel(artifact, "arrays1d").launch(2, 32)(whole.subarray(3), ...others);
    p = double.calls("cuLaunchKernel")[0]!.params as string[];
    assert.equal(ptrParam(p[0]!), wholeAt + 12n, "3 f32 past the mapping");
    assert.equal(p[1], "25000000", "x_len = 37");
  });

  it("managedArray is cuMemAllocManaged memory the host reads and writes at the address kernels get", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const a = cuda.managedArray(8, f32);
    const [alloc] = double.calls("cuMemAllocManaged");
    assert.equal(alloc!.flags, 1, "CU_MEM_ATTACH_GLOBAL");
    a.set([1, 2, 3, 4, 5, 6, 7, 8]);
    // The driver's view of the same address holds what the host wrote: one memory, not a copy.
    const d = cuda.deviceArray(8, f32);
    double.clearLog();
    kernel(artifact, "arrays1d").launch(1, 32)(a, ...[new Float64Array(8), new Int32Array(8), new Uint32Array(8), new Int16Array(8), new Uint16Array(8), new Int8Array(8), new Uint8Array(8)].map((x) => cuda.toDevice(x)));
    const p = double.calls("cuLaunchKernel")[0]!.params as string[];
    assert.equal(hex(ptrParam(p[0]!)), alloc!.dptr);
    const out = new Float32Array(8);
    d.copyToDevice(a); // a plain host → device copy reads the managed memory like any host memory
    d.copyToHost(out);
    assert.deepEqual([...out], [1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it("cuda.pinned registers each array around the work (copies count as pinned), unregisters after, and returns the work's result", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const a = new Float32Array(1024).fill(2);
    const b = cuda.ndarray(new Int32Array(64), [8, 8]);
    const d = cuda.deviceArray(1024, f32);
    const s = cuda.stream();
    double.clearLog();
    const r = cuda.pinned(a, b, () => {
      d.copyToDevice(a, s);
      s.synchronize();
      return "ok";
    });
    assert.equal(r, "ok");
    const calls = double.log().map((e) => e.call).filter((c) => c.startsWith("cuMemHost") || c.startsWith("cuMemcpy"));
    assert.deepEqual(calls, ["cuMemHostRegister_v2", "cuMemHostRegister_v2", "cuMemcpyHtoDAsync_v2", "cuMemHostUnregister", "cuMemHostUnregister"]);
    const [copy] = double.calls("cuMemcpyHtoDAsync_v2");
    assert.equal(copy!.pinned, true, "the driver saw a copy from page-locked memory");
    const registers = double.calls("cuMemHostRegister_v2");
    assert.deepEqual(registers.map((c) => [c.bytes, c.flags]), [[4096, 1], [256, 1]], "whole arrays, PORTABLE");
    assert.equal(double.calls("cuMemHostRegister_v2").length, 2);
  });

  it("cuda.pinned with `using` unpins at dispose; pinning the same memory twice is CSR058 and unpins what it pinned", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const a = new Float32Array(16);
    const c = new Float32Array(16);
    {
      const scope = cuda.pinned(a);
      assert.equal(double.calls("cuMemHostRegister_v2").length, 1);
      scope[Symbol.dispose]();
      assert.equal(double.calls("cuMemHostUnregister").length, 1);
    }
    double.clearLog();
    assert.throws(
      () => cuda.pinned(c, a, a.subarray(4), () => 0),
      (e: unknown) => e instanceof CudaScriptError && e.code === "CSR058" && /pinned already/.test(e.message),
    );
    assert.equal(double.calls("cuMemHostRegister_v2").length, 2, "c and a were pinned, then a.subarray(4) was refused before the driver");
    assert.equal(double.calls("cuMemHostUnregister").length, 2, "and both were unpinned");
    assert.throws(() => cuda.pinned(42 as never, () => 0), (e: unknown) => e instanceof CudaScriptError && e.code === "CSR004");
  });
});
