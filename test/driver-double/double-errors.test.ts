// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver: how driver
// errors reach JavaScript — every CUresult by name, sticky errors that make the context
// unusable, and asynchronous kernel faults attributed to the kernels that may have caused them.
import assert from "node:assert/strict";
import { test } from "node:test";
import { CudaContext, CudaDriverError, CU_RESULTS, cuResultDescription, isStickyCuResult } from "@cudascript/native-bindings/cuda";
import { KINDS_PTX } from "../native-bindings/ptx.fixtures";
import { driverDoubleOrSkip } from "./test-double";

const reduceArgs = () => [new BigUint64Array(1), new BigUint64Array(1), new Int32Array(1)];

test("every CUresult in cuda.h becomes a CudaDriverError with its name, number and stickiness", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  // CU_RESULTS equals cuda.h's enum (header.test.ts); the double knows the names of an older
  // driver only, so the newest codes exercise the bindings' fallback to their own table.
  const ctx = CudaContext.retain(double.driver);
  let fallbacks = 0;
  for (const [value, name] of CU_RESULTS) {
    if (value === 0) continue;
    double.failNext("cuMemAlloc_v2", value);
    let error: unknown;
    try {
      ctx.alloc(8);
    } catch (e) {
      error = e;
    }
    assert.ok(error instanceof CudaDriverError, name);
    assert.equal(error.code, name);
    assert.equal(error.result, value);
    assert.equal(error.call, "cuMemAlloc_v2");
    assert.equal(error.contextUsable, !isStickyCuResult(value), name);
    assert.ok(error.description.length > 0);
    assert.ok(error.message.startsWith(`cuMemAlloc_v2 failed: ${name} (${value}): ${error.description}.`), error.message);
    if (error.description === cuResultDescription(value)) fallbacks++;
  }
  assert.ok(fallbacks >= 5, `the fallback table was used ${fallbacks} times`);
  const recorded = double.calls("cuMemAlloc_v2");
  assert.equal(recorded.length, CU_RESULTS.length - 1);
  assert.ok(recorded.every((e) => e.scripted === true));
  // A code no table knows.
  double.failNext("cuMemAlloc_v2", 12345);
  assert.throws(() => ctx.alloc(8), (e: unknown) => e instanceof CudaDriverError && e.code === "CUresult 12345" && e.description === "unknown CUDA error");
  // The driver's own description is preferred when it has one.
  double.failNext("cuMemAlloc_v2", 700);
  assert.throws(() => ctx.alloc(8), (e: unknown) => e instanceof CudaDriverError && e.description === "an illegal memory access was encountered");
  ctx.release();
});

test("sticky errors say that the context is unusable and the process must restart", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  const ctx = CudaContext.retain(double.driver);
  for (const [value, name] of [
    [700, "CUDA_ERROR_ILLEGAL_ADDRESS"],
    [716, "CUDA_ERROR_MISALIGNED_ADDRESS"],
    [719, "CUDA_ERROR_LAUNCH_FAILED"],
    [715, "CUDA_ERROR_ILLEGAL_INSTRUCTION"],
    [714, "CUDA_ERROR_HARDWARE_STACK_ERROR"],
    [702, "CUDA_ERROR_LAUNCH_TIMEOUT"],
  ] as const) {
    double.failNext("cuCtxSynchronize", value);
    assert.throws(
      () => ctx.synchronize(),
      (e: unknown) =>
        e instanceof CudaDriverError &&
        e.code === name &&
        !e.contextUsable &&
        /The CUDA context is no longer usable: every further CUDA call in this process fails with the same error; restart the process/.test(e.message),
    );
  }
  assert.equal(ctx.usable, false);
  assert.equal(ctx.stickyError?.code, "CUDA_ERROR_ILLEGAL_ADDRESS", "the first sticky error is kept");
  ctx.release();
});

test("an asynchronous kernel fault surfaces at the next synchronization, naming the kernel, and stays", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  const ctx = CudaContext.retain(double.driver);
  const module = ctx.loadModule(KINDS_PTX);
  const reduce = module.getFunction("reduceSum");
  double.failKernel("reduceSum", 700);
  ctx.launch(reduce, 8, 256, 0, null, reduceArgs()); // returns fine: the fault happens "on the GPU"
  let error: unknown;
  try {
    ctx.synchronize();
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof CudaDriverError);
  assert.equal(error.code, "CUDA_ERROR_ILLEGAL_ADDRESS");
  assert.equal(error.call, "cuCtxSynchronize");
  assert.equal(error.kernel, "reduceSum");
  assert.deepEqual(error.kernelsSinceSync, ["reduceSum"]);
  assert.equal(error.contextUsable, false);
  assert.match(error.message, /^cuCtxSynchronize \(kernel reduceSum\) failed: CUDA_ERROR_ILLEGAL_ADDRESS \(700\): an illegal memory access was encountered\./);
  assert.match(error.message, /Kernels launched since the last synchronization: reduceSum\./);
  assert.equal(ctx.usable, false);
  assert.equal(double.stickyError(), 700);
  // Every further call in the context fails the same way.
  assert.throws(() => ctx.alloc(8), (e: unknown) => e instanceof CudaDriverError && e.code === "CUDA_ERROR_ILLEGAL_ADDRESS" && e.call === "cuMemAlloc_v2" && !e.contextUsable);
  // Releasing the context still works, destroys it and clears the error (in the double).
  ctx.release();
  assert.equal(double.stickyError(), 0);
  assert.equal(double.live().modules, 0);
  const fresh = CudaContext.retain(double.driver);
  assert.equal(fresh.usable, true);
  fresh.free(fresh.alloc(8));
  fresh.release();
});

test("with several kernels in flight the fault lists them all; a stream synchronize reports it too", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  const ctx = CudaContext.retain(double.driver);
  const module = ctx.loadModule(KINDS_PTX);
  const reduce = module.getFunction("reduceSum");
  const kinds = module.getFunction("kinds");
  const stream = ctx.createStream();
  double.failKernel("kinds", 716);
  ctx.launch(reduce, 1, 32, 0, stream, reduceArgs());
  const kindsArgs = (kinds.params ?? []).map((p) => new Uint8Array(p.size));
  ctx.launch(kinds, 1, 32, 0, stream, kindsArgs);
  assert.throws(
    () => stream.synchronize(),
    (e: unknown) =>
      e instanceof CudaDriverError &&
      e.code === "CUDA_ERROR_MISALIGNED_ADDRESS" &&
      e.call === "cuStreamSynchronize" &&
      e.kernel === undefined &&
      JSON.stringify(e.kernelsSinceSync) === JSON.stringify(["reduceSum", "kinds"]) &&
      /Kernels launched since the last synchronization: reduceSum, kinds\./.test(e.message),
  );
  const faulted = double.calls("cuLaunchKernel").find((e) => e.function === "kinds");
  assert.equal(faulted?.fault, 716);
  ctx.release();
});

test("errors outside launches name the failing call and keep the context usable", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  const ctx = CudaContext.retain(double.driver);
  double.failNext("cuStreamCreate", 2);
  assert.throws(() => ctx.createStream(), (e: unknown) => e instanceof CudaDriverError && e.call === "cuStreamCreate" && e.code === "CUDA_ERROR_OUT_OF_MEMORY" && e.contextUsable);
  double.failNext("cuModuleGetFunction", 400);
  const module = ctx.loadModule(KINDS_PTX);
  assert.throws(() => module.getFunction("kinds"), (e: unknown) => e instanceof CudaDriverError && e.code === "CUDA_ERROR_INVALID_HANDLE" && e.kernel === "kinds");
  assert.equal(ctx.usable, true);
  ctx.release();
  assert.equal(double.reset(), 0);
});

test("a fault that surfaces at the next launch blames the kernel that ran, not the one being launched", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  const ctx = CudaContext.retain(double.driver);
  const module = ctx.loadModule(KINDS_PTX);
  const reduce = module.getFunction("reduceSum");
  const kinds = module.getFunction("kinds");
  const kindsArgs = (kinds.params ?? []).map((p) => new Uint8Array(p.size));
  ctx.launch(kinds, 1, 32, 0, null, kindsArgs); // a healthy launch first, so that the next one is only cuLaunchKernel
  ctx.synchronize();
  double.failKernelAtNextCall("reduceSum", 700);
  ctx.launch(reduce, 8, 256, 0, null, reduceArgs()); // faults "on the GPU" right after returning
  let error: unknown;
  try {
    ctx.launch(kinds, 1, 32, 0, null, kindsArgs);
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof CudaDriverError);
  assert.equal(error.call, "cuLaunchKernel");
  assert.equal(error.code, "CUDA_ERROR_ILLEGAL_ADDRESS");
  assert.equal(error.kernel, "reduceSum");
  assert.deepEqual(error.kernelsSinceSync, ["reduceSum"]);
  assert.equal(error.contextUsable, false);
  assert.match(error.message, /cuLaunchKernel for kernel kinds only reported the error: that kernel did not run\./);
  assert.equal(ctx.usable, false);
  assert.equal(ctx.stickyError, error);
  ctx.release();
});

test("a fault that surfaces at the next module load names the kernel that ran and marks the context lost", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  const ctx = CudaContext.retain(double.driver);
  const reduce = ctx.loadModule(KINDS_PTX).getFunction("reduceSum");
  double.failKernelAtNextCall("reduceSum", 719);
  ctx.launch(reduce, 8, 256, 0, null, reduceArgs());
  let error: unknown;
  try {
    ctx.loadModule(`${KINDS_PTX}\n// another module`);
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof CudaDriverError);
  assert.equal(error.call, "cuModuleLoadDataEx");
  assert.equal(error.code, "CUDA_ERROR_LAUNCH_FAILED");
  assert.equal(error.kernel, "reduceSum");
  assert.deepEqual(error.kernelsSinceSync, ["reduceSum"]);
  assert.match(error.message, /no longer usable/);
  assert.equal(ctx.usable, false);
  assert.equal(ctx.stickyError?.call, "cuModuleLoadDataEx");
  // Any other kind of call reports it too (the double surfaces it at the next call of any kind).
  assert.throws(() => ctx.alloc(8), (e: unknown) => e instanceof CudaDriverError && e.call === "cuMemAlloc_v2" && e.kernel === "reduceSum" && !e.contextUsable);
  ctx.release();
});
