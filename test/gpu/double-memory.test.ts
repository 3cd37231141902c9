// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver: its "device
// memory" is host RAM behind fake device addresses, and it counts live allocations and pinned
// buffers. Proves, through the public host API on the GPU backend: copies round-trip for every dtype
// and shape; deviceArray is zeroed; device-to-device copies; deterministic free (exactly one
// cuMemFree per allocation, none for a second free()); use after free is CSR010; 10,000
// alloc/free cycles leak nothing; cuda.pinnedArray is page-locked memory (cuMemHostAlloc) whose async
// copies are real DMA that completes at the stream's synchronization.
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cuda, CudaScriptError, f32, i32, u8, u32, type NDArray } from "cudascript";
import { GpuBackend, type GpuBuffer } from "cudascript/dist/gpu/backend";
import { setBackend } from "cudascript/dist/host/device";
import { gpuOnDouble, hex } from "./helpers";

const bufferOf = (d: { buffer: unknown }) => d.buffer as GpuBuffer;

describe("GPU backend memory (libcuda TEST DOUBLE)", () => {
  it("copies round-trip for every dtype, 1-D to 3-D, through device memory the driver holds", (t) => {
    const env = gpuOnDouble(t, { needsNvrtc: false });
    if (!env) return;
    const { double } = env;
    const hosts = [
      Float32Array.from([1.5, -2.25, NaN, Infinity, -0]),
      Float64Array.from([Math.PI, -1e300, 5e-324]),
      Int32Array.from([-2147483648, 0, 2147483647]),
      Uint32Array.from([0, 1, 4294967295]),
      Int16Array.from([-32768, 7, 32767]),
      Uint16Array.from([0, 65535]),
      Int8Array.from([-128, 0, 127]),
      Uint8Array.from([0, 1, 255]),
    ];
    for (const h of hosts) {
      const d = cuda.toDevice(h);
      // What the driver holds is exactly the host bytes.
      const held = double.readDevice(bufferOf(d).pointer, h.byteLength)!;
      assert.deepEqual(Buffer.from(held), Buffer.from(h.buffer, h.byteOffset, h.byteLength), `${h.constructor.name} on the device`);
      const back = d.copyToHost() as typeof h;
      assert.equal(back.constructor, h.constructor);
      assert.deepEqual(Buffer.from(back.buffer), Buffer.from(h.buffer), `${h.constructor.name} round trip`);
      d.free();
    }
    const m = cuda.ndarray(Float32Array.from({ length: 12 }, (_, i) => i * 0.5), [3, 4]);
    const dm = cuda.toDevice(m);
    assert.deepEqual(dm.shape, [3, 4]);
    const back = dm.copyToHost() as NDArray;
    assert.deepEqual(back.shape, [3, 4]);
    assert.deepEqual([...(back.data as Float32Array)], [...m.data]);
    const c = cuda.toDevice(cuda.ndarray(Int32Array.from({ length: 24 }, (_, i) => i - 5), [2, 3, 4]));
    assert.deepEqual([...((c.copyToHost() as NDArray).data as Int32Array)], Array.from({ length: 24 }, (_, i) => i - 5));
    // Into an existing host array; a subarray view's byteOffset is honoured.
    const big = new Float32Array(10).fill(7);
    const view = big.subarray(2, 7);
    dm.free();
    const d5 = cuda.toDevice(Float32Array.from([1, 2, 3, 4, 5]));
    d5.copyToHost(view);
    assert.deepEqual([...big], [7, 7, 1, 2, 3, 4, 5, 7, 7, 7]);
    for (const d of [c, d5]) d.free();
    assert.equal(double.live().allocations, 0);
  });

  it("deviceArray memsets to zero; copyToDevice from a device array copies device to device", (t) => {
    const env = gpuOnDouble(t, { needsNvrtc: false });
    if (!env) return;
    const { double } = env;
    // Fill fresh device memory with garbage first: deviceArray must zero it.
    const z = cuda.deviceArray([4, 4], i32);
    const [memset] = double.calls("cuMemsetD8_v2");
    assert.equal(memset!.dst, hex(bufferOf(z).pointer));
    assert.equal(memset!.value, 0);
    assert.equal(memset!.count, 64);
    double.writeDevice(bufferOf(z).pointer, new Int32Array(16).fill(-1));
    const src = cuda.toDevice(cuda.ndarray(Int32Array.from({ length: 16 }, (_, i) => i * i), [4, 4]));
    z.copyToDevice(src);
    assert.deepEqual([...((z.copyToHost() as NDArray).data as Int32Array)], Array.from({ length: 16 }, (_, i) => i * i));
    // An empty array allocates nothing and copies nothing.
    const before = double.callCount("cuMemAlloc_v2");
    const empty = cuda.toDevice(new Float32Array(0));
    assert.equal(double.callCount("cuMemAlloc_v2"), before);
    assert.deepEqual([...(empty.copyToHost() as Float32Array)], []);
    empty.free();
    z.free();
    src.free();
    assert.equal(double.live().allocations, 0);
  });

  it("every array the host API allocates starts zeroed, though the driver's fresh memory holds garbage (0xcd in the double)", (t) => {
    const env = gpuOnDouble(t, { needsNvrtc: false });
    if (!env) return;
    const { double } = env;
    // The driver's own fresh memory is not zeroed (a GPU hands back whatever was there).
    const raw = env.backend.alloc(16);
    assert.deepEqual([...double.readDevice(bufferOf({ buffer: raw }).pointer, 16)!], new Array(16).fill(0xcd), "the double models undefined contents");
    env.backend.free(raw);
    const device = [cuda.deviceArray(300, u32), cuda.deviceArray([3, 5], f32, { order: "F" }), cuda.deviceArrayLike(new Int32Array(9)), cuda.toDevice(new Float32Array(7).fill(5), { copy: false })];
    for (const d of device) {
      const held = double.readDevice(bufferOf(d).pointer, d.nbytes)!;
      assert.ok(held.every((b) => b === 0), `a ${d.dtype.name} device array of shape [${d.shape}] holds zeros on the device`);
    }
    const host = [cuda.pinnedArray(1000, u32), cuda.mappedArray(1000, f32), cuda.managedArray(1000, i32)];
    for (const [i, h] of host.entries()) assert.ok([...(h as Uint32Array)].every((v) => v === 0), `${["pinned", "mapped", "managed"][i]} memory is zeroed`);
    for (const d of device) d.free();
  });

  it("free() releases at once, exactly once; use after free is CSR010", (t) => {
    const env = gpuOnDouble(t, { needsNvrtc: false });
    if (!env) return;
    const { double, backend } = env;
    const d = cuda.toDevice(new Float32Array(256));
    const ptr = hex(bufferOf(d).pointer);
    assert.equal(double.live().allocations, 1);
    d.free();
    assert.equal(double.live().allocations, 0, "freed deterministically, not at the next GC");
    d.free();
    bufferOf(d); // the buffer record says freed
    assert.equal(bufferOf(d).freed, true);
    assert.equal(double.calls("cuMemFree_v2").filter((e) => e.dptr === ptr).length, 1, "one cuMemFree for two free() calls");
    // Straight through the backend too: a second free of the buffer makes no driver call.
    backend.free(bufferOf(d));
    assert.equal(double.callCount("cuMemFree_v2"), 1);
    assert.throws(() => d.copyToHost(), (e: unknown) => e instanceof CudaScriptError && e.code === "CSR010");
    assert.throws(() => backend.copyDtoH(new Float32Array(1), bufferOf(d), 0, null), (e: unknown) => e instanceof CudaScriptError && e.code === "CSR010");
  });

  it("10,000 alloc/free cycles through cuda.deviceArray(...).free() leak nothing", (t) => {
    const env = gpuOnDouble(t, { needsNvrtc: false });
    if (!env) return;
    const { double, backend } = env;
    const heapBefore = process.memoryUsage().heapUsed;
    for (let i = 0; i < 10_000; i++) {
      const d = cuda.deviceArray(1 + (i % 97), f32);
      d.free();
    }
    assert.equal(double.callCount("cuMemAlloc_v2"), 10_000);
    assert.equal(double.callCount("cuMemFree_v2"), 10_000);
    assert.deepEqual({ allocations: double.live().allocations, bytes: double.live().allocationBytes }, { allocations: 0, bytes: 0 }, "the driver holds nothing");
    assert.deepEqual(backend.context().memoryInUse, { allocations: 0, bytes: 0 }, "the bindings track nothing");
    const stats = backend.memoryStats();
    assert.equal(stats.liveAllocations, 0);
    assert.equal(stats.liveBytes, 0);
    assert.equal(stats.freedExplicitly, 10_000);
    assert.equal(stats.freedByFinalizer, 0, "nothing was left for the finalizer");
    // JavaScript memory does not grow with the number of cycles (generous bound: no per-cycle retention).
    const grown = process.memoryUsage().heapUsed - heapBefore;
    assert.ok(grown < 32 * 1024 * 1024, `heap grew by ${grown} bytes`);
  });

  it("cuda.pinnedArray is page-locked memory; async copies through it complete at the stream's synchronization", (t) => {
    const env = gpuOnDouble(t, { needsNvrtc: false });
    if (!env) return;
    const { double } = env;
    const n = 1024;
    const hostIn = cuda.pinnedArray(n, f32);
    assert.ok(hostIn instanceof Float32Array);
    assert.equal(double.live().pinned, 1, "cuMemHostAlloc");
    const [alloc] = double.calls("cuMemHostAlloc");
    assert.equal(alloc!.bytes, n * 4);
    for (let i = 0; i < n; i++) hostIn[i] = i + 0.5;
    const stream = cuda.stream();
    const d = cuda.toDevice(hostIn, stream);
    const hostOut = cuda.pinnedArray(n, f32);
    d.copyToHost(hostOut, stream);
    const h2d = double.calls("cuMemcpyHtoDAsync_v2");
    const d2h = double.calls("cuMemcpyDtoHAsync_v2");
    assert.equal(h2d.length, 1);
    assert.equal(d2h.length, 1);
    assert.equal(h2d[0]!.pinned, true, "the host side of the HtoD copy is pinned memory");
    assert.equal(d2h[0]!.pinned, true, "the host side of the DtoH copy is pinned memory");
    assert.equal(h2d[0]!.stream, d2h[0]!.stream);
    assert.notEqual(h2d[0]!.stream, "0x0", "on the user's stream, not the default one");
    // A real DMA: nothing has arrived before the stream is synchronized.
    assert.equal(hostOut[5], 0, "not yet");
    stream.synchronize();
    assert.equal(hostOut[5], 5.5);
    assert.deepEqual([...hostOut], [...hostIn]);
    // 2-D pinned arrays are NDArrays over pinned memory.
    const p2 = cuda.pinnedArray([4, 8], u8);
    assert.deepEqual((p2 as unknown as NDArray).shape, [4, 8]);
    assert.equal(double.live().pinned, 3);
    d.free();
  });

  it("async copies from ordinary (pageable) memory are staged: the source may be reused at once", (t) => {
    const env = gpuOnDouble(t, { needsNvrtc: false });
    if (!env) return;
    const { double } = env;
    const stream = cuda.stream();
    const h = Int32Array.from([1, 2, 3, 4]);
    const d = cuda.toDevice(h, stream);
    h.fill(0); // allowed: pageable memory was staged at call time
    stream.synchronize();
    assert.deepEqual([...(d.copyToHost() as Int32Array)], [1, 2, 3, 4]);
    const [copy] = double.calls("cuMemcpyHtoDAsync_v2");
    assert.equal(copy!.pinned, false);
    d.free();
  });

  it("cuda.pinnedArray is portable: page-locked for every GPU's context, not only the one current when it was allocated", (t) => {
    const env = gpuOnDouble(t, { needsNvrtc: false });
    if (!env) return;
    const { double } = env;
    double.setDeviceCount(2);
    const backend = new GpuBackend({ driver: double.driver, cache: false });
    setBackend(backend);
    const host = cuda.pinnedArray(64, f32); // allocated while GPU 0 is current
    host.fill(3);
    cuda.selectDevice(1);
    const stream = cuda.stream();
    const d = cuda.toDevice(host, stream);
    d.copyToHost(host, stream);
    stream.synchronize();
    assert.equal(double.calls("cuMemHostAlloc")[0]?.flags, 1, "CU_MEMHOSTALLOC_PORTABLE");
    assert.deepEqual(
      double.calls("cuMemcpyHtoDAsync_v2", "cuMemcpyDtoHAsync_v2").map((e) => [e.call, e.pinned]),
      [
        ["cuMemcpyHtoDAsync_v2", true],
        ["cuMemcpyDtoHAsync_v2", true],
      ],
      "the copies on GPU 1 are real DMA from/to page-locked memory",
    );
    d.free();
    backend.dispose();
  });

  it("out of device memory is CSR016, as on the simulator, saying how much this program holds", (t) => {
    const env = gpuOnDouble(t, { needsNvrtc: false });
    if (!env) return;
    const { double } = env;
    double.setTotalMem(0, 1 << 20);
    const keep = cuda.deviceArray(1 << 17, f32); // 512 KiB
    assert.throws(
      () => cuda.deviceArray(1 << 18, f32), // 1 MiB more
      (e: unknown) => e instanceof CudaScriptError && e.code === "CSR016" && /out of device memory/.test(e.message) && /512 KiB in 1 device arrays/.test(e.message) && /still usable/.test(e.message),
    );
    keep.free();
  });
});
