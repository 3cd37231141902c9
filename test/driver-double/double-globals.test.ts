// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver (this machine has
// no GPU): module-scope variables through cuModuleGetGlobal_v2 — the device memory a module's
// `.global` declarations get at load, and the double's scripted "kernel" that adds to one.
import assert from "node:assert/strict";
import { test } from "node:test";
import { CudaDriverError, CudaUsageError, ModuleGlobal } from "@cudascript/native-bindings/cuda";
import { driverDoubleOrSkip, withContext } from "./test-double";

// Shaped like NVRTC's output for a kernel with an `extern "C"` __device__ counter and a printf.
const PTX = `.version 7.8
.target sm_80
.address_size 64

.extern .global .align 4 .u32 elsewhere;
.global .align 8 .u64 counter;
.visible .global .align 4 .b8 table[12];
.global .align 1 .b8 $str[4] = {104, 105, 10, 0};

.visible .entry bump()
{
 .reg .b64 %rd<3>;
 mov.u64 %rd1, counter;
 atom.global.add.u64 %rd2, [%rd1], 25;
 ld.global.u32 %r1, [table];
 ret;
}
`;

test("cuModuleGetGlobal gives each module-scope .global its own zeroed device memory, and NOT_FOUND for any other name", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  withContext(double, (ctx) => {
    const module = ctx.loadModule(PTX);
    const counter = module.getGlobal("counter");
    assert.ok(counter instanceof ModuleGlobal);
    assert.equal(counter.bytes, 8);
    assert.equal(module.getGlobal("table").bytes, 12);
    assert.equal(module.getGlobal("$str").bytes, 4);
    assert.notEqual(counter.pointer, module.getGlobal("table").pointer);
    const value = new BigUint64Array(1);
    ctx.copyDtoH(value, counter);
    assert.equal(value[0], 0n);
    // Neither a declaration of another module's variable, nor an instruction's operand, nor a kernel.
    for (const name of ["elsewhere", "bump", "%rd1", "nothing"])
      assert.throws(
        () => module.getGlobal(name),
        (e: unknown) => e instanceof CudaDriverError && e.code === "CUDA_ERROR_NOT_FOUND" && e.call === "cuModuleGetGlobal_v2",
        name,
      );
    // The module's memory is not an allocation of the program's.
    assert.equal(double.live().allocations, 0);
    assert.throws(() => ctx.free(counter), (e: unknown) => e instanceof CudaUsageError && e.code === "CSD004" && /variable of a loaded module/.test(e.message));
    module.unload();
    assert.throws(() => ctx.copyDtoH(value, counter), (e: unknown) => e instanceof CudaUsageError && e.code === "CSD006" && /freed/.test(e.message));
  });
});

test("a scripted launch adds to a module global when it executes, as the kernel's atomicAdd would", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  withContext(double, (ctx) => {
    const module = ctx.loadModule(PTX);
    const bump = module.getFunction("bump");
    double.addToGlobalOnLaunch("bump", "counter", 25);
    const counter = module.getGlobal("counter");
    const stream = ctx.createStream();
    ctx.launch(bump, 1, 1, 0, stream, []);
    ctx.launch(bump, 1, 1, 0, stream, []);
    const value = new BigUint64Array(1);
    assert.deepEqual([...double.readDevice(counter, 8)!], [0, 0, 0, 0, 0, 0, 0, 0], "nothing has executed before a synchronization");
    stream.synchronize();
    ctx.copyDtoH(value, counter);
    assert.equal(value[0], 50n);
    stream.destroy();
  });
});
