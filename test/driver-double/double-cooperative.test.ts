// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver: the bindings'
// cuLaunchCooperativeKernel, and the double's model of it (the co-resident limit is its occupancy
// formula × CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT; a device without CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH
// refuses with CUDA_ERROR_NOT_SUPPORTED).
import assert from "node:assert/strict";
import { test } from "node:test";
import { CU_DEVICE_ATTRIBUTE, CudaDriverError } from "@cudascript/native-bindings/cuda";
import { KINDS_PTX } from "../native-bindings/ptx.fixtures";
import { driverDoubleOrSkip, withContext } from "./test-double";

const reduceArgs = () => [new BigUint64Array(1), new BigUint64Array(1), new Int32Array(1)];

test("launch(…, { cooperative: true }) calls cuLaunchCooperativeKernel, which refuses a grid over occupancy × SMs with CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  withContext(double, (ctx) => {
    const fn = ctx.loadModule(KINDS_PTX).getFunction("reduceSum");
    const perSm = ctx.maxActiveBlocksPerMultiprocessor(fn, 256, 0);
    const limit = perSm * 108;
    ctx.launch(fn, [limit, 1, 1], [256, 1, 1], 0, null, reduceArgs(), { cooperative: true });
    const ok = double.calls("cuLaunchCooperativeKernel").at(-1)!;
    assert.equal(ok.result, 0);
    assert.equal(ok.coResidentLimit, limit);
    assert.equal(double.callCount("cuLaunchKernel"), 0);
    assert.throws(
      () => ctx.launch(fn, [limit + 1, 1, 1], [256, 1, 1], 0, null, reduceArgs(), { cooperative: true }),
      (e: unknown) => e instanceof CudaDriverError && e.result === 720 && e.code === "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE" && e.call === "cuLaunchCooperativeKernel",
    );
    ctx.synchronize();
  });
});

test("cuLaunchCooperativeKernel on a device without cooperative launch is CUDA_ERROR_NOT_SUPPORTED", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  double.setDeviceAttribute(0, CU_DEVICE_ATTRIBUTE.COOPERATIVE_LAUNCH, 0);
  withContext(double, (ctx) => {
    const fn = ctx.loadModule(KINDS_PTX).getFunction("reduceSum");
    assert.throws(
      () => ctx.launch(fn, [1, 1, 1], [32, 1, 1], 0, null, reduceArgs(), { cooperative: true }),
      (e: unknown) => e instanceof CudaDriverError && e.result === 801,
    );
  });
});

test("occupancy with more dynamic shared memory than the kernel's CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES is 0 blocks (as the driver's calculator) until cuFuncSetAttribute opts it in", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  withContext(double, (ctx) => {
    const fn = ctx.loadModule(KINDS_PTX).getFunction("reduceSum"); // 1 KiB of static shared memory
    const dynamic = 60 * 1024; // over the default 48 KiB per block, under the 163 KiB opt-in limit
    assert.equal(ctx.maxActiveBlocksPerMultiprocessor(fn, 256, dynamic), 0, "not opted in: no block fits");
    assert.ok(ctx.maxActiveBlocksPerMultiprocessor(fn, 256, 40 * 1024) > 0, "within the default limit");
    ctx.setMaxDynamicSharedMemory(fn, dynamic);
    assert.ok(ctx.maxActiveBlocksPerMultiprocessor(fn, 256, dynamic) > 0, "opted in: blocks fit");
  });
});
