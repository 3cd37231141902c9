// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver: device memory
// (alloc/free, leaks, double free), copies (sync, async, pinned), memset.
import assert from "node:assert/strict";
import { test } from "node:test";
import { CudaContext, CudaDriverError, CudaUsageError, type DeviceAllocation, type PinnedBuffer } from "@cudascript/native-bindings/cuda";
import { collectGarbageUntil, driverDoubleOrSkip, hex, withContext } from "./test-double";

test("alloc returns a device pointer the double knows; free releases it; both are recorded", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  withContext(double, (ctx) => {
    const p = ctx.alloc(1000);
    const q = ctx.alloc(24);
    assert.equal(typeof p.pointer, "bigint");
    assert.ok(q.pointer > p.pointer + 1000n, "allocations do not overlap");
    assert.deepEqual(double.live().allocations, 2);
    assert.equal(double.live().allocationBytes, 1024);
    assert.deepEqual(ctx.memoryInUse, { allocations: 2, bytes: 1024 });
    assert.equal(p.bytes, 1000);
    ctx.free(p);
    ctx.free(q);
    assert.equal(double.live().allocations, 0);
    assert.deepEqual(
      double.calls("cuMemAlloc_v2", "cuMemFree_v2").map((e) => [e.call, e.bytes ?? e.dptr, e.result]),
      [
        ["cuMemAlloc_v2", 1000, 0],
        ["cuMemAlloc_v2", 24, 0],
        ["cuMemFree_v2", hex(p), 0],
        ["cuMemFree_v2", hex(q), 0],
      ],
    );
  });
});

test("10,000 alloc/free cycles (and 1,000 pinned ones) leak nothing", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  withContext(double, (ctx) => {
    for (let i = 0; i < 10_000; i++) ctx.free(ctx.alloc(256 + (i % 7) * 64));
    for (let i = 0; i < 1_000; i++) ctx.allocPinned(4096).free();
    assert.deepEqual(ctx.memoryInUse, { allocations: 0, bytes: 0 });
    const live = double.live();
    assert.equal(live.allocations, 0);
    assert.equal(live.allocationBytes, 0);
    assert.equal(live.pinned, 0);
    assert.equal(double.callCount("cuMemAlloc_v2"), 10_000);
    assert.equal(double.callCount("cuMemFree_v2"), 10_000);
    assert.equal(double.callCount("cuMemHostAlloc"), 1_000);
    assert.equal(double.callCount("cuMemFreeHost"), 1_000);
  });
});

test("a double free is caught by the bindings without a driver call", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  withContext(double, (ctx) => {
    const p = ctx.alloc(64);
    ctx.free(p);
    const frees = double.callCount("cuMemFree_v2");
    assert.throws(
      () => ctx.free(p),
      (e: unknown) => e instanceof CudaUsageError && e.code === "CSD004" && /already freed \(double free\)/.test(e.message),
    );
    assert.throws(
      () => ctx.free(0x1234n as unknown as DeviceAllocation),
      (e: unknown) => e instanceof CudaUsageError && e.code === "CSD004" && /was not allocated by this context/.test(e.message),
    );
    assert.equal(double.callCount("cuMemFree_v2"), frees, "no cuMemFree_v2 for the mistakes");
    const pinned = ctx.allocPinned(16);
    pinned.free();
    assert.throws(() => pinned.free(), (e: unknown) => e instanceof CudaUsageError && e.code === "CSD004");
    assert.throws(() => pinned.buffer, (e: unknown) => e instanceof CudaUsageError && e.code === "CSD005");
    assert.equal(double.callCount("cuMemFreeHost"), 1);
  });
});

test("synchronous copies round-trip, including views with offsets and pointers inside an allocation", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  withContext(double, (ctx) => {
    const p = ctx.alloc(256);
    const floats = new Float32Array([1.5, -2, 3.25, Math.PI]);
    ctx.copyHtoD(p, floats);
    const back = new Float32Array(4);
    ctx.copyDtoH(back, p);
    assert.deepEqual(back, floats);
    // The double's memory holds exactly the bytes that were sent.
    assert.deepEqual(double.readDevice(p, 16), new Uint8Array(floats.buffer));
    // A Buffer from Node's pool (non-zero byteOffset) and a DataView into the middle of a buffer.
    const text = Buffer.from("CudaScript copies bytes exactly");
    assert.ok(text.byteOffset > 0 || text.buffer.byteLength === text.length);
    ctx.copyHtoD(p.at(100), text);
    const middle = new ArrayBuffer(64);
    const view = new DataView(middle, 8, text.length);
    ctx.copyDtoH(view, p.at(100));
    assert.equal(Buffer.from(middle, 8, text.length).toString(), text.toString());
    assert.deepEqual(new Uint8Array(middle, 0, 8), new Uint8Array(8), "bytes before the view untouched");
    const log = double.calls("cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2");
    assert.deepEqual(
      log.map((e) => [e.call, e.dst ?? e.src, e.bytes, e.pinned]),
      [
        ["cuMemcpyHtoD_v2", hex(p), 16, false],
        ["cuMemcpyDtoH_v2", hex(p), 16, false],
        ["cuMemcpyHtoD_v2", hex(p.at(100)), text.length, false],
        ["cuMemcpyDtoH_v2", hex(p.at(100)), text.length, false],
      ],
    );
    ctx.free(p);
  });
});

test("out-of-range and freed device pointers: the bindings refuse them, and so does the double", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  withContext(double, (ctx) => {
    const p = ctx.alloc(64);
    assert.throws(() => ctx.copyHtoD(p.at(60), new Uint8Array(8)), (e: unknown) => e instanceof CudaUsageError && e.code === "CSD006" && /overrun/.test(e.message));
    assert.throws(() => ctx.copyDtoH(new Uint8Array(65), p), (e: unknown) => e instanceof CudaUsageError && e.code === "CSD006");
    assert.throws(() => ctx.memset(p.at(64), 0, 1), (e: unknown) => e instanceof CudaUsageError && e.code === "CSD006");
    const calls = double.log().length;
    // The double on its own (raw API, no bindings checks): CUDA_ERROR_INVALID_VALUE.
    const api = double.driver.api;
    assert.equal(api.cuMemcpyHtoD_v2(p.pointer + 60n, new Uint8Array(8), 8), 1);
    assert.equal(api.cuMemcpyDtoH_v2(new Uint8Array(8), p.pointer - 8n, 8), 1);
    assert.equal(api.cuMemsetD8_v2(p.pointer + 64n, 0, 1), 1);
    assert.equal(api.cuMemFree_v2(p.pointer + 8n), 1, "freeing an interior pointer");
    assert.equal(api.cuMemcpyHtoD_v2(0x42n, new Uint8Array(8), 8), 1);
    assert.equal(double.log().length, calls + 5);
    ctx.free(p);
    assert.throws(() => ctx.copyHtoD(p, new Uint8Array(8)), (e: unknown) => e instanceof CudaUsageError && /was freed/.test(e.message));
    assert.equal(api.cuMemcpyHtoD_v2(p.pointer, new Uint8Array(8), 8), 1, "the double refuses the freed address");
    assert.throws(() => ctx.alloc(0), (e: unknown) => e instanceof CudaUsageError && e.code === "CSD006");
  });
});

test("async copies on a stream round-trip", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  withContext(double, (ctx) => {
    const stream = ctx.createStream();
    const p = ctx.alloc(32);
    const source = new Int32Array([1, 2, 3, 4, 5, 6, 7, 8]);
    ctx.copyHtoDAsync(p, source, stream);
    const result = new Int32Array(8);
    ctx.copyDtoHAsync(result, p, stream); // pageable destination: complete when the call returns
    assert.deepEqual([...result], [1, 2, 3, 4, 5, 6, 7, 8]);
    stream.synchronize();
    const handle = hex(stream.handle);
    assert.deepEqual(
      double.calls("cuMemcpyHtoDAsync_v2", "cuMemcpyDtoHAsync_v2", "cuStreamSynchronize").map((e) => [e.call, e.stream, e.pinned ?? null]),
      [
        ["cuMemcpyHtoDAsync_v2", handle, false],
        ["cuMemcpyDtoHAsync_v2", handle, false],
        ["cuStreamSynchronize", handle, null], // the bindings wait for a pageable destination
        ["cuStreamSynchronize", handle, null],
      ],
    );
    // The NULL stream works too.
    ctx.copyHtoDAsync(p, new Int32Array([9, 9, 9, 9, 9, 9, 9, 9]), null);
    ctx.synchronize();
    assert.deepEqual(new Int32Array(double.readDevice(p, 32)?.slice().buffer ?? new ArrayBuffer(0)), new Int32Array(8).fill(9));
    stream.destroy();
    ctx.free(p);
  });
});

test("pinned memory: an ArrayBuffer over page-locked memory, truly asynchronous copies, freed exactly once", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  withContext(double, (ctx) => {
    const upload: PinnedBuffer = ctx.allocPinned(8 * 1024);
    const download = ctx.allocPinned(8 * 1024);
    assert.equal(upload.byteLength, 8192);
    assert.equal(upload.buffer.byteLength, 8192);
    const values = new Float64Array(upload.buffer);
    assert.ok(values.every((v) => v === 0), "zero-filled");
    for (let i = 0; i < values.length; i++) values[i] = i * 0.5;
    const p = ctx.alloc(8192);
    const stream = ctx.createStream({ nonBlocking: true });
    ctx.copyHtoDAsync(p, values, stream);
    const results = new Float64Array(download.buffer);
    ctx.copyDtoHAsync(results, p, stream);
    // Asynchronous for real: nothing has arrived before the stream is synchronized.
    assert.equal(results[1], 0);
    assert.ok(double.live().pendingOperations >= 2);
    stream.synchronize();
    assert.deepEqual(results, values);
    const copies = double.calls("cuMemcpyHtoDAsync_v2", "cuMemcpyDtoHAsync_v2");
    assert.deepEqual(
      copies.map((e) => [e.call, e.pinned, e.stream, e.bytes]),
      [
        ["cuMemcpyHtoDAsync_v2", true, hex(stream.handle), 8192],
        ["cuMemcpyDtoHAsync_v2", true, hex(stream.handle), 8192],
      ],
    );
    assert.equal(double.calls("cuMemHostAlloc")[0]?.host, hex(upload.pointer));
    assert.equal(double.live().pinned, 2);
    upload.free();
    download.free();
    assert.equal(upload.freed, true);
    assert.throws(() => upload.free(), (e: unknown) => e instanceof CudaUsageError && e.code === "CSD004");
    // `values` and `results` still view the memory: it stays allocated until they are collected
    // (see "pinned memory that a view can still reach …" below for the free that follows).
    assert.equal(upload.memoryReleased, false);
    assert.equal(double.live().pinned, 2);
    assert.equal(double.callCount("cuMemFreeHost"), 0);
    stream.destroy();
    ctx.free(p);
  });
});

/** Allocates pinned memory, queues a copy into it through a view, frees it and drops the view. */
function queueCopyIntoPinnedAndFree(ctx: CudaContext, src: DeviceAllocation, stream: ReturnType<CudaContext["createStream"]>): PinnedBuffer {
  const pinned = ctx.allocPinned(16);
  ctx.copyDtoHAsync(new Uint32Array(pinned.buffer), src, stream);
  pinned.free();
  return pinned;
}

test("pinned memory that a view can still reach is freed when the view is collected, not before", async (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  const ctx = CudaContext.retain(double.driver);
  const pinned = ctx.allocPinned(64);
  let view: Float64Array | undefined = new Float64Array(pinned.buffer);
  view.fill(2.5);
  const unviewed = ctx.allocPinned(64);
  ctx.release();
  // release() freed what no view can reach and kept the rest, with the primary context.
  assert.deepEqual(
    double.calls("cuMemFreeHost").map((e) => e.host),
    [hex(unviewed.pointer)],
  );
  assert.equal(double.live().pinned, 1);
  assert.equal(double.calls("cuDevicePrimaryCtxRelease_v2").length, 0, "the primary context is held for the view");
  assert.deepEqual([...view.subarray(0, 2)], [2.5, 2.5]);
  assert.equal(view.length, 8);
  view = undefined;
  assert.ok(await collectGarbageUntil(() => pinned.memoryReleased), "freed once its view was collected");
  assert.equal(double.live().pinned, 0);
  const [free] = double.calls("cuMemFreeHost").slice(1);
  assert.equal(free?.host, hex(pinned.pointer));
  const [release] = double.calls("cuDevicePrimaryCtxRelease_v2");
  assert.equal(release?.destroyed, true, "then the primary context was released");
});

test("memset sets exactly the requested bytes", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  withContext(double, (ctx) => {
    const p = ctx.alloc(16);
    ctx.memset(p, 0x11, 16);
    ctx.memset(p.at(3), 0xab, 5);
    assert.deepEqual([...(double.readDevice(p, 16) ?? [])], [0x11, 0x11, 0x11, 0xab, 0xab, 0xab, 0xab, 0xab, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11]);
    const out = new Uint8Array(16);
    ctx.copyDtoH(out, p);
    assert.deepEqual(out, double.readDevice(p, 16));
    assert.deepEqual(
      double.calls("cuMemsetD8_v2").map((e) => [e.dst, e.value, e.count]),
      [
        [hex(p), 0x11, 16],
        [hex(p.at(3)), 0xab, 5],
      ],
    );
    assert.throws(() => ctx.memset(p, 256, 1), (e: unknown) => e instanceof CudaUsageError && e.code === "CSD006");
    ctx.free(p);
  });
});

test("running out of device memory is a CudaDriverError that leaves the context usable", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  double.setTotalMem(0, 1 << 20);
  withContext(double, (ctx) => {
    const p = ctx.alloc(1 << 19);
    assert.throws(
      () => ctx.alloc(1 << 20),
      (e: unknown) => e instanceof CudaDriverError && e.code === "CUDA_ERROR_OUT_OF_MEMORY" && e.result === 2 && e.call === "cuMemAlloc_v2" && e.contextUsable,
    );
    assert.equal(ctx.usable, true);
    ctx.free(p);
    ctx.free(ctx.alloc(1 << 20));
  });
});

test("the last release frees what is still allocated before releasing the primary context", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  const ctx = CudaContext.retain(double.driver);
  ctx.alloc(10);
  ctx.alloc(20);
  ctx.allocPinned(30);
  ctx.createStream();
  ctx.createEvent();
  ctx.release();
  const live = double.live();
  assert.deepEqual(live, { allocations: 0, allocationBytes: 0, pinned: 0, modules: 0, streams: 0, events: 0, pendingOperations: 0 });
  const release = double.calls("cuDevicePrimaryCtxRelease_v2")[0];
  assert.equal(release?.reclaimed, 0, "nothing was left for the driver to reclaim");
  const order = double.log().map((e) => e.call);
  assert.ok(order.lastIndexOf("cuMemFree_v2") < order.indexOf("cuDevicePrimaryCtxRelease_v2"));
});

test("a stale pointer whose address the driver reused is refused, and a second free never releases the new allocation", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  withContext(double, (ctx) => {
    const old = ctx.alloc(64);
    ctx.free(old);
    const reused = ctx.alloc(64);
    assert.equal(reused.pointer, old.pointer, "the double reuses a freed address, as the real driver does");
    const frees = double.callCount("cuMemFree_v2");
    assert.throws(() => ctx.free(old), (e: unknown) => e instanceof CudaUsageError && e.code === "CSD004");
    assert.throws(() => ctx.copyHtoD(old, new Uint8Array(8)), (e: unknown) => e instanceof CudaUsageError && /was freed/.test(e.message));
    assert.equal(double.callCount("cuMemFree_v2"), frees, "no driver call for the stale handle");
    assert.equal(double.live().allocations, 1, "the new allocation is still alive");
    ctx.free(reused);
  });
});

test("async copies to and from pageable memory: the data is back when copyDtoHAsync returns, and the source may be reused at once (staged until its copy ran)", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  withContext(double, (ctx) => {
    const stream = ctx.createStream();
    const p = ctx.alloc(32);
    // The driver reads a pageable source when the copy runs: the bindings hand it a staged copy
    // that they hold until then, so the caller may change or drop its buffer at once.
    const source = new Int32Array([1, 2, 3, 4, 5, 6, 7, 8]);
    ctx.copyHtoDAsync(p, source, stream);
    source.fill(-1);
    assert.equal(ctx.hostBuffersInFlight, 1, "the staged source is held while its copy is queued");
    const result = new Int32Array(8);
    ctx.copyDtoHAsync(result, p, stream); // pageable destination: complete when the call returns
    assert.deepEqual([...result], [1, 2, 3, 4, 5, 6, 7, 8]);
    assert.equal(ctx.hostBuffersInFlight, 0, "released once the stream has completed");
    stream.destroy();
    ctx.free(p);
  });
});

test("freeing pinned memory first waits for the copies still queued to or from it", async (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  await withContext(double, async (ctx) => {
    const p = ctx.alloc(16);
    ctx.copyHtoD(p, new Uint32Array([1, 2, 3, 4]));
    const stream = ctx.createStream();
    const pinned = queueCopyIntoPinnedAndFree(ctx, p, stream); // DMA into the pinned memory, queued
    assert.ok(await collectGarbageUntil(() => pinned.memoryReleased), "freed once its view was collected");
    const [free] = double.calls("cuMemFreeHost");
    assert.equal(free?.pendingDma, 0, "no copy was still queued when the memory went back to the driver");
    stream.destroy();
    ctx.free(p);
  });
});
