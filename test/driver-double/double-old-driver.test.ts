// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c) built as an OLDER driver
// (-DCUDASCRIPT_DOUBLE_OLD_DRIVER): it exports cuEventElapsedTime and cuDevicePrimaryCtxRelease
// but not their _v2 successors, as drivers before CUDA 12.8 / 11.0 did. The bindings fall back.
import assert from "node:assert/strict";
import { test } from "node:test";
import { CudaContext } from "@cudascript/native-bindings/cuda";
import { KINDS_PTX } from "../native-bindings/ptx.fixtures";
import { driverDoubleOrSkip } from "./test-double";

test("an older driver: elapsed time and context release through the unversioned symbols", (t) => {
  const double = driverDoubleOrSkip(t, { flags: ["-DCUDASCRIPT_DOUBLE_OLD_DRIVER"] });
  if (!double) return;
  assert.deepEqual(double.driver.info.symbols, { eventElapsedTime: "cuEventElapsedTime", primaryCtxRelease: "cuDevicePrimaryCtxRelease" });
  double.setLaunchMillis(0.75);
  const ctx = CudaContext.retain(double.driver);
  const reduce = ctx.loadModule(KINDS_PTX).getFunction("reduceSum");
  const start = ctx.createEvent();
  const end = ctx.createEvent();
  start.record();
  ctx.launch(reduce, 1, 64, 0, null, [new BigUint64Array(1), new BigUint64Array(1), new Int32Array(1)]);
  end.record();
  end.synchronize();
  assert.equal(end.elapsedSince(start), 0.75);
  ctx.release();
  assert.deepEqual(
    double.calls("cuEventElapsedTime", "cuEventElapsedTime_v2", "cuDevicePrimaryCtxRelease", "cuDevicePrimaryCtxRelease_v2").map((e) => [e.call, e.result]),
    [
      ["cuEventElapsedTime", 0],
      ["cuDevicePrimaryCtxRelease", 0],
    ],
  );
  assert.equal(double.primaryContextRefcount(0), 0);
});
