// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver: this machine has
// no GPU. The kernels are compiled by NVRTC for real, so their PTX defines the error record the
// generated code keeps (cs_error_record, compiler/src/cuda/raise.ts); the double executes no kernel, so
// `addToGlobalOnLaunch(kernel, "cs_error_record", 2)` stands in for a thread that raised: it sets the
// record's state word to "written", its site 0, block (0, 0, 0) and thread (0, 0, 0), its values 0.
// Proves that the GPU backend reads the record at synchronizations after a launch of a kernel that can
// raise, throws the simulator's CSR085 (same message shape and details), and clears the record.
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { driverDoubleOrSkip } from "../driver-double/test-double";
import { nvrtcOrSkip } from "../support/toolchain-or-skip";
import { cuda, CudaScriptError, i32 } from "cudascript";
import { GpuBackend } from "cudascript/dist/gpu/backend";
import { setBackend } from "cudascript/dist/host/device";
import { RAISE_RECORD_SYMBOL as RUNTIME_SYMBOL } from "cudascript/dist/gpu/kernel-errors";
import { RAISE_RECORD_SYMBOL } from "@cudascript/compiler";
import { compileSource, kernel } from "./helpers";

const SOURCE = `
import { cuda, i32 } from "cudascript";
export const checks = cuda.jit((x: Int32Array, limit: i32) => {
  const i = cuda.grid(1);
  if (i < x.length && x[i] > limit) throw new RangeError(\`x[\${i}] = \${x[i]} is above \${limit > 0}\`);
});
export const quiet = cuda.jit((x: Int32Array) => {
  x[cuda.grid(1)] = 1;
});
`;

describe("a kernel's throw reaches the host on the GPU backend (CSR085, libcuda TEST DOUBLE)", () => {
  it("throws CSR085 at the synchronization after the launch, naming the kernel, place, block and thread, once", (t) => {
    const double = driverDoubleOrSkip(t);
    if (!double || !nvrtcOrSkip(t)) return;
    assert.equal(RUNTIME_SYMBOL, RAISE_RECORD_SYMBOL, "the runtime's copy of the record's name");
    setBackend(new GpuBackend({ driver: double.driver, cache: false }));
    const artifact = compileSource(SOURCE);
    const checks = kernel(artifact, "checks");
    const quiet = kernel(artifact, "quiet");
    const x = cuda.deviceArray(8, i32);
    checks.launch(1, 8)(x, 5);
    cuda.synchronize(); // the record is still free: no error
    double.addToGlobalOnLaunch("checks", "cs_error_record", 2);
    checks.launch(1, 8)(x, 5);
    let caught: unknown;
    try {
      cuda.synchronize();
    } catch (e) {
      caught = e;
    }
    assert.ok(caught instanceof CudaScriptError, String(caught));
    assert.equal(caught.code, "CSR085");
    assert.match(caught.message, /^CSR085: kernel raised an error at .*:5:\d+ in kernel 'checks', block \(0, 0, 0\), thread \(0, 0, 0\): RangeError: x\[0\] = 0 is above false$/);
    assert.equal(caught.details?.kind, "exception");
    assert.equal(caught.details?.message, "RangeError: x[0] = 0 is above false");
    assert.equal(caught.details?.kernel, "checks");
    assert.equal(caught.details?.line, 5);
    // Cleared: the next synchronization reports nothing, and a kernel that cannot raise never reads it.
    cuda.synchronize();
    quiet.launch(1, 8)(x);
    cuda.synchronize();
  });

  it("a stream's synchronize throws it too, after a launch on that stream", (t) => {
    const double = driverDoubleOrSkip(t);
    if (!double || !nvrtcOrSkip(t)) return;
    setBackend(new GpuBackend({ driver: double.driver, cache: false }));
    const checks = kernel(compileSource(SOURCE), "checks");
    const x = cuda.deviceArray(8, i32);
    const stream = cuda.stream();
    double.addToGlobalOnLaunch("checks", "cs_error_record", 2);
    checks.launch(1, 8, { stream })(x, 5);
    assert.throws(() => stream.synchronize(), (e: unknown) => e instanceof CudaScriptError && e.code === "CSR085" && e.details?.kernel === "checks");
    cuda.synchronize(); // read again (another stream's kernel could have raised); the record was cleared
  });
});
