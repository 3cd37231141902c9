// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver: it queues async
// work per stream and runs it at synchronization points, with a virtual clock (each launch "takes"
// a configurable time) that events read. Proves that the GPU backend issues copies, launches and
// event records on the stream the host API names, in program order; that events time the work
// between them; and that streams, events and their misuse behave as documented.
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cuda, CudaScriptError, f32 } from "cudascript";
import { GpuBackend } from "cudascript/dist/gpu/backend";
import { setBackend } from "cudascript/dist/host/device";
import { SimulatorBackend } from "cudascript/dist/simulator/backend";
import { gpuOnDouble, kernel, kindsArtifact } from "./helpers";

describe("GPU backend streams and events (libcuda TEST DOUBLE)", () => {
  it("copies, launches and event records go to the named stream, in program order", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const k = kernel(kindsArtifact(), "dynamicShared");
    const s1 = cuda.stream();
    const s2 = cuda.stream();
    const [c1, c2] = double.calls("cuStreamCreate");
    const h = cuda.pinnedArray(256, f32);
    const a = cuda.deviceArray(256, f32);
    const b = cuda.deviceArray(256, f32);
    const start = cuda.event();
    const mid = cuda.event();
    const end = cuda.event();
    double.clearLog();
    start.record(s1);
    a.copyToDevice(h, s1);
    k.launch(1, 256, { stream: s1, sharedMem: 1024 })(a);
    mid.record(s1);
    k.launch(2, 128, { stream: s2 })(b);
    a.copyToHost(h, s1);
    end.record(s1);
    end.synchronize();
    const ops = double.log().filter((e) => ["cuEventRecord", "cuMemcpyHtoDAsync_v2", "cuMemcpyDtoHAsync_v2", "cuLaunchKernel", "cuEventSynchronize"].includes(e.call));
    assert.deepEqual(
      ops.map((e) => [e.call, e.stream ?? null]),
      [
        ["cuEventRecord", c1!.stream],
        ["cuMemcpyHtoDAsync_v2", c1!.stream],
        ["cuLaunchKernel", c1!.stream],
        ["cuEventRecord", c1!.stream],
        ["cuLaunchKernel", c2!.stream],
        ["cuMemcpyDtoHAsync_v2", c1!.stream],
        ["cuEventRecord", c1!.stream],
        ["cuEventSynchronize", null],
      ],
    );
    assert.ok(ops.every((e) => e.result === 0));
    a.free();
    b.free();
  });

  it("events time the work between them (the double's virtual clock: 2.5 ms per launch)", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    double.setLaunchMillis(2.5);
    const k = kernel(kindsArtifact(), "dynamicShared");
    const out = cuda.deviceArray(64, f32);
    const s = cuda.stream();
    const start = cuda.event();
    const end = cuda.event();
    start.record(s);
    for (let i = 0; i < 4; i++) k.launch(1, 64, { stream: s })(out);
    end.record(s);
    // eventElapsedTime waits for both events itself (CUDA would say NOT_READY).
    assert.equal(cuda.eventElapsedTime(start, end), 10);
    assert.equal(start.elapsedTime(end), 10);
    const [elapsed] = double.calls("cuEventElapsedTime_v2", "cuEventElapsedTime");
    assert.equal(elapsed!.ms, 10);
    // Default-stream events around a default-stream launch.
    const e0 = cuda.event();
    const e1 = cuda.event();
    e0.record();
    k.launch(1, 64)(out);
    e1.record();
    e1.synchronize();
    assert.equal(cuda.eventElapsedTime(e0, e1), 2.5);
    out.free();
  });

  it("stream.synchronize waits for that stream; cuda.synchronize for the device", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const k = kernel(kindsArtifact(), "dynamicShared");
    const out = cuda.deviceArray(64, f32);
    const s = cuda.stream();
    k.launch(1, 64, { stream: s })(out);
    assert.equal(double.live().pendingOperations, 1, "the launch is queued, not run");
    s.synchronize();
    assert.equal(double.live().pendingOperations, 0);
    k.launch(1, 64, { stream: s })(out);
    cuda.synchronize();
    assert.equal(double.live().pendingOperations, 0);
    assert.equal(double.callCount("cuCtxSynchronize"), 1);
    out.free();
  });

  it("misuse: an event never recorded, a stream or event of another backend", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const e0 = cuda.event();
    const e1 = cuda.event();
    e1.record();
    assert.throws(() => cuda.eventElapsedTime(e0, e1), (e: unknown) => e instanceof CudaScriptError && e.code === "CSR014" && /the first was never recorded/.test(e.message));
    assert.throws(() => e0.synchronize(), (e: unknown) => e instanceof CudaScriptError && e.code === "CSR014" && /never recorded/.test(e.message));
    const sim = new SimulatorBackend("simulator", { workers: 1 });
    const simStream = sim.createStream();
    assert.throws(
      () => env.backend.synchronizeStream(simStream),
      (e: unknown) => e instanceof CudaScriptError && e.code === "CSR014" && /not made by cuda.stream\(\) on the GPU backend/.test(e.message),
    );
    sim.dispose();
  });

  it("cuda.selectDevice: each device's own context; arrays and streams stay on their device", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    double.setDeviceCount(2);
    const backend = new GpuBackend({ driver: double.driver, cache: false });
    setBackend(backend);
    assert.deepEqual(cuda.gpus.map((g) => g.id), [0, 1]);
    const a0 = cuda.toDevice(Float32Array.of(1, 2));
    const s0 = cuda.stream();
    cuda.selectDevice(1);
    const a1 = cuda.toDevice(Float32Array.of(3, 4));
    assert.deepEqual(double.calls("cuDevicePrimaryCtxRetain").map((e) => e.device), [0, 1]);
    assert.deepEqual([...(a1.copyToHost() as Float32Array)], [3, 4]);
    assert.throws(() => a0.copyToHost(), (e: unknown) => e instanceof CudaScriptError && e.code === "CSR014" && /lives on GPU 0 but the current device is 1/.test(e.message));
    const k = kernel(kindsArtifact(), "dynamicShared");
    assert.throws(() => k.launch(1, 2, { stream: s0 })(a1), (e: unknown) => e instanceof CudaScriptError && e.code === "CSR014" && /stream belongs to GPU 0/.test(e.message));
    k.launch(1, 2)(a1);
    assert.equal(double.calls("cuModuleLoadDataEx").length, 1, "loaded in device 1's context");
    cuda.selectDevice(0);
    k.launch(1, 2)(a0);
    assert.equal(double.calls("cuModuleLoadDataEx").length, 2, "and separately in device 0's");
    a1.free(); // frees in device 1's context while device 0 is current
    assert.equal(double.live().allocations, 1);
    assert.throws(() => cuda.selectDevice(2), (e: unknown) => e instanceof CudaScriptError && e.code === "CSR014" && /has 2 CUDA devices/.test(e.message));
    a0.free();
  });

  it("streams and events dropped by the program are destroyed", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double, backend } = env;
    const s = cuda.stream();
    backend.destroyStream(s.handle);
    backend.destroyStream(s.handle); // once
    assert.equal(double.callCount("cuStreamDestroy_v2"), 1);
    assert.equal(double.live().streams, 0);
    assert.throws(() => s.synchronize(), (e: unknown) => e instanceof CudaScriptError && e.code === "CSR014");
  });

  it("event.query() is true only once the work before the record has completed (cuEventQuery), on both backends", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const k = kernel(kindsArtifact(), "dynamicShared");
    const s1 = cuda.stream();
    const a = cuda.deviceArray(256, f32);
    const done = cuda.event();
    assert.throws(() => done.query(), (e: unknown) => e instanceof CudaScriptError && e.code === "CSR014", "never recorded");
    k.launch(1, 256, { stream: s1 })(a);
    done.record(s1);
    assert.equal(done.query(), false, "the launch is still queued on the GPU");
    assert.ok(double.calls("cuEventQuery").length >= 1, "asked the driver");
    done.synchronize();
    assert.equal(done.query(), true);
    a.free();
    // The simulator completes work before returning: recorded means done.
    const sim = new SimulatorBackend("simulator", { workers: 1 });
    setBackend(sim);
    const e = cuda.event();
    assert.throws(() => e.query(), (err: unknown) => err instanceof CudaScriptError && err.code === "CSR014");
    e.record();
    assert.equal(e.query(), true);
    sim.dispose();
  });
});
