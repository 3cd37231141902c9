// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver: streams and
// events — the order of operations as the driver sees it, synchronization, elapsed time.
import assert from "node:assert/strict";
import { test } from "node:test";
import { CudaContext, CudaDriverError, CudaUsageError } from "@cudascript/native-bindings/cuda";
import { KINDS_PTX } from "../native-bindings/ptx.fixtures";
import { driverDoubleOrSkip, type DriverDouble, hex } from "./test-double";


function withContext(double: DriverDouble, body: (ctx: CudaContext) => void | Promise<void>): Promise<void> {
  const ctx = CudaContext.retain(double.driver);
  return Promise.resolve()
    .then(() => body(ctx))
    .finally(() => {
      if (ctx.refcount > 0 && ctx.usable) ctx.release();
    });
}

const reduceArgs = () => [new BigUint64Array(1), new BigUint64Array(1), new Int32Array(1)];

test("operations on two streams are recorded in issue order, each with its stream", async (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  await withContext(double, (ctx) => {
    const reduce = ctx.loadModule(KINDS_PTX).getFunction("reduceSum");
    const s1 = ctx.createStream();
    const s2 = ctx.createStream({ nonBlocking: true });
    const start = ctx.createEvent();
    const end = ctx.createEvent();
    const p = ctx.alloc(64);
    const host = new Uint8Array(64);
    start.record(s1);
    ctx.copyHtoDAsync(p, host, s1);
    ctx.launch(reduce, 4, 128, 0, s1, reduceArgs());
    end.record(s1);
    ctx.launch(reduce, 2, 64, 0, s2, reduceArgs());
    ctx.copyDtoHAsync(host, p, s2);
    s1.synchronize();
    end.synchronize();
    s2.synchronize();
    const streamName = (h: unknown) => (h === hex(s1.handle) ? "s1" : h === hex(s2.handle) ? "s2" : h === "0x0" ? "null" : String(h));
    const eventName = (h: unknown) => (h === hex(start.handle) ? "start" : h === hex(end.handle) ? "end" : String(h));
    const ops = double
      .calls("cuEventRecord", "cuMemcpyHtoDAsync_v2", "cuMemcpyDtoHAsync_v2", "cuLaunchKernel", "cuStreamSynchronize", "cuEventSynchronize")
      .map((e) =>
        e.event !== undefined
          ? [e.call, eventName(e.event), e.stream === undefined ? null : streamName(e.stream)]
          : [e.call, streamName(e.stream), null],
      );
    assert.deepEqual(ops, [
      ["cuEventRecord", "start", "s1"],
      ["cuMemcpyHtoDAsync_v2", "s1", null],
      ["cuLaunchKernel", "s1", null],
      ["cuEventRecord", "end", "s1"],
      ["cuLaunchKernel", "s2", null],
      ["cuMemcpyDtoHAsync_v2", "s2", null],
      ["cuStreamSynchronize", "s2", null], // into pageable memory: the bindings wait for the copy
      ["cuStreamSynchronize", "s1", null],
      ["cuEventSynchronize", "end", null],
      ["cuStreamSynchronize", "s2", null],
    ]);
    const seqs = double.log().map((e) => e.seq);
    assert.deepEqual(
      seqs,
      seqs.map((_, i) => i + 1),
      "the log is complete and ordered",
    );
    assert.equal(double.calls("cuStreamCreate")[1]?.flags, 1, "the non-blocking flag reached the driver");
    s1.destroy();
    s2.destroy();
    start.destroy();
    end.destroy();
    assert.throws(() => s1.synchronize(), (e: unknown) => e instanceof CudaUsageError && e.code === "CSD005");
    assert.throws(() => start.record(), (e: unknown) => e instanceof CudaUsageError && e.code === "CSD005");
    assert.equal(double.live().streams, 0);
    assert.equal(double.live().events, 0);
    ctx.free(p);
  });
});

test("elapsed time between events: only once both completed, in the driver's milliseconds", async (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  double.setLaunchMillis(2.5);
  await withContext(double, (ctx) => {
    const reduce = ctx.loadModule(KINDS_PTX).getFunction("reduceSum");
    const stream = ctx.createStream();
    const start = ctx.createEvent();
    const end = ctx.createEvent();
    start.record(stream);
    ctx.launch(reduce, 1, 32, 0, stream, reduceArgs());
    ctx.launch(reduce, 1, 32, 0, stream, reduceArgs());
    end.record(stream);
    assert.throws(
      () => end.elapsedSince(start),
      (e: unknown) => e instanceof CudaDriverError && e.code === "CUDA_ERROR_NOT_READY" && e.call === "cuEventElapsedTime_v2" && e.contextUsable,
    );
    end.synchronize();
    assert.equal(end.elapsedSince(start), 5);
    assert.equal(ctx.elapsedMillis(start, end), 5);
    const [elapsed] = double.calls("cuEventElapsedTime_v2").filter((e) => e.result === 0);
    assert.deepEqual([elapsed?.start, elapsed?.end, elapsed?.ms], [hex(start.handle), hex(end.handle), 5]);
  });
});

test("events without timing, or never recorded, cannot give an elapsed time", async (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  await withContext(double, (ctx) => {
    const untimed = ctx.createEvent({ timing: false });
    const timed = ctx.createEvent();
    const never = ctx.createEvent();
    assert.equal(double.calls("cuEventCreate")[0]?.flags, 2);
    untimed.record();
    timed.record();
    ctx.synchronize();
    assert.throws(() => timed.elapsedSince(untimed), (e: unknown) => e instanceof CudaDriverError && e.code === "CUDA_ERROR_INVALID_HANDLE");
    assert.throws(() => never.elapsedSince(timed), (e: unknown) => e instanceof CudaDriverError && e.code === "CUDA_ERROR_INVALID_HANDLE");
    assert.equal(ctx.usable, true);
  });
});

test("work on a stream happens at synchronization, as on a GPU: pinned results arrive only then", async (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  await withContext(double, async (ctx) => {
    const p = ctx.alloc(16);
    ctx.copyHtoD(p, new Uint32Array([10, 20, 30, 40]));
    const pinned = ctx.allocPinned(16);
    const out = new Uint32Array(pinned.buffer);
    const stream = ctx.createStream();
    ctx.copyDtoHAsync(out, p, stream);
    assert.deepEqual([...out], [0, 0, 0, 0], "not yet");
    await stream.synchronizeAsync(); // polls from the event loop
    assert.deepEqual([...out], [10, 20, 30, 40]);
    // The NULL stream (context synchronize) completes everything.
    ctx.copyDtoHAsync(out.subarray(0, 2), p.at(8), stream);
    ctx.synchronize();
    assert.deepEqual([...out], [30, 40, 30, 40]);
    // Event synchronization without blocking as well.
    out.fill(0);
    const event = ctx.createEvent();
    ctx.copyDtoHAsync(out, p, stream);
    event.record(stream);
    await event.synchronizeAsync();
    assert.deepEqual([...out], [10, 20, 30, 40]);
    pinned.free();
    ctx.free(p);
  });
});

test("synchronizeAsync waits with the stream's context current on the calling thread (the driver requires one)", async (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  const ctx = CudaContext.retain(double.driver);
  try {
    const p = ctx.alloc(16);
    ctx.copyHtoD(p, new Uint32Array([1, 2, 3, 4]));
    const pinned = ctx.allocPinned(16);
    const out = new Uint32Array(pinned.buffer);
    const stream = ctx.createStream();
    const event = ctx.createEvent();
    ctx.copyDtoHAsync(out, p, stream);
    event.record(stream);
    await stream.synchronizeAsync();
    assert.deepEqual([...out], [1, 2, 3, 4]);
    out.fill(0);
    ctx.copyDtoHAsync(out, p, stream);
    event.record(stream);
    await event.synchronizeAsync();
    assert.deepEqual([...out], [1, 2, 3, 4]);
    // Every driver call that needs a context found one: none failed with CUDA_ERROR_INVALID_CONTEXT (201).
    assert.deepEqual(double.log().filter((e) => e.result === 201).map((e) => e.call), []);
    stream.destroy();
    event.destroy();
    pinned.free();
    ctx.free(p);
  } finally {
    ctx.release();
  }
});
