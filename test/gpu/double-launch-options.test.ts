// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver: nothing runs on a
// GPU. Proves that kernel options reach the driver: a `maxRegisters` cap travels in the PTX the
// driver JIT-compiles (the double, like ptxas, never gives a capped kernel more registers than
// `.maxnreg` / CU_JIT_MAX_REGISTERS allow, and says so in its resource report); dynamic shared memory
// above 48 KiB is allowed up to the device's opt-in limit and opted in before the launch (the
// double, like the driver, refuses such a launch otherwise); a launch over a kernel's launchBounds is
// refused before the driver is asked, as a GPU would refuse it.
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CU_FUNC_ATTRIBUTE } from "@cudascript/native-bindings/cuda";
import { cuda, CudaScriptError, f32 } from "cudascript";
import { GpuBackend } from "cudascript/dist/gpu/backend";
import { setBackend } from "cudascript/dist/host/device";
import { DeviceNDArray } from "cudascript/dist/host/arrays";
import { dtypes } from "cudascript/dist/dtypes";
import { compileSource, gpuOnDouble, kernel, kindsArtifact } from "./helpers";

const MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97; // CU_DEVICE_ATTRIBUTE_…

describe("kernel options on the GPU (libcuda TEST DOUBLE)", () => {
  it("maxRegisters reaches the driver's JIT: a kernel that needs 64 registers gets the cap of 32", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double, backend } = env;
    const art = compileSource(`
import { cuda } from "cudascript";
export const capped = cuda.jit((x: Float32Array) => { const i = cuda.grid(1); if (i < x.length) x[i] = Math.sin(x[i]); }, { maxRegisters: 32 });
export const uncapped = cuda.jit((x: Float32Array) => { const i = cuda.grid(1); if (i < x.length) x[i] = Math.cos(x[i]); });
`);
    // What both kernels would use without a cap.
    double.setFunctionAttribute("capped", CU_FUNC_ATTRIBUTE.NUM_REGS, 64);
    double.setFunctionAttribute("uncapped", CU_FUNC_ATTRIBUTE.NUM_REGS, 64);
    const d = cuda.toDevice(new Float32Array(32));
    kernel(art, "capped").launch(1, 32)(d);
    kernel(art, "uncapped").launch(1, 32)(d);
    assert.equal(backend.kernelAttributes(art, "capped")?.numRegs, 32);
    assert.equal(backend.kernelAttributes(art, "uncapped")?.numRegs, 64, "only the capped kernel is capped");
    const report = backend.loaded(art).jitInfo.join("\n");
    assert.match(report, /Function properties for capped\n.*\n.*Used 32 registers/);
    cuda.synchronize();
    d.free();
  });

  it("launchBounds: a block over the bound is CSR008 before the driver is asked, as on the simulator; one at the bound launches", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const art = compileSource(`
import { cuda } from "cudascript";
export const bounded = cuda.jit((x: Float32Array) => { const i = cuda.grid(1); if (i < x.length) x[i] = i; }, { launchBounds: [128, 2] });
`);
    const d = cuda.toDevice(new Float32Array(256));
    assert.throws(
      () => kernel(art, "bounded").launch(1, 256),
      (e: unknown) => e instanceof CudaScriptError && e.code === "CSR008" && /compiled with launchBounds 128/.test(e.message),
    );
    assert.deepEqual(double.calls("cuLaunchKernel"), []);
    kernel(art, "bounded").launch(2, 128)(d);
    assert.deepEqual(double.calls("cuLaunchKernel").map((e) => e.result), [0]);
    cuda.synchronize();
    d.free();
  });

  it("dynamic shared memory above 48 KiB launches, opted in first, up to the device's opt-in limit (CSR009 beyond)", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const k = kernel(kindsArtifact(), "dynamicShared");
    const out = cuda.deviceArray(64, f32);
    k.launch(1, 64, { sharedMem: 100 * 1024 })(out); // an A100's 163 KiB opt-in allows it
    const calls = double.calls("cuFuncSetAttribute", "cuLaunchKernel").map((e) => [e.call, e.value ?? e.sharedMem, e.result]);
    assert.deepEqual(calls, [
      ["cuFuncSetAttribute", 100 * 1024, 0],
      ["cuLaunchKernel", 100 * 1024, 0],
    ]);
    assert.throws(
      () => k.launch(1, 64, { sharedMem: 164 * 1024 }),
      (e: unknown) => e instanceof CudaScriptError && e.code === "CSR009" && /over the 163 KiB of shared memory a block can have on CudaScript Test Double/.test(e.message),
    );
    cuda.synchronize();
    out.free();
  });

  it("the opt-in limit is the device's: 227 KiB on an H100-like device", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    double.setDeviceAttribute(0, MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 227 * 1024);
    setBackend(new GpuBackend({ driver: double.driver, cache: false })); // reads the device anew
    const out = cuda.deviceArray(64, f32);
    kernel(kindsArtifact(), "dynamicShared").launch(1, 64, { sharedMem: 200 * 1024 })(out);
    assert.equal(double.calls("cuLaunchKernel")[0]?.result, 0);
    cuda.synchronize();
    out.free();
  });

  it("kernel.forall(n) launches the block size with the most resident threads (the driver's occupancy), ceil(n / block) blocks", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double, backend } = env;
    const art = compileSource(`
import { cuda } from "cudascript";
export const heavy = cuda.jit((x: Float32Array) => { const i = cuda.grid(1); if (i < x.length) x[i] = Math.tan(x[i]); });
`);
    // 128 registers per thread: 65536 registers per SM hold 512 threads, so blocks above 512 fit no block at all.
    double.setFunctionAttribute("heavy", CU_FUNC_ATTRIBUTE.NUM_REGS, 128);
    const k = kernel(art, "heavy") as unknown as { forall(n: number, o?: object): (...a: unknown[]) => void };
    const x = cuda.deviceArray(10000, f32);
    k.forall(10000)(x);
    const [launch] = double.calls("cuLaunchKernel");
    const block = (launch!.block as number[])[0]!;
    const occupancy = (size: number) => backend.kernelOccupancy(art, "heavy", size, 0)!.activeBlocksPerSM * size;
    const best = Math.max(...Array.from({ length: 32 }, (_, j) => occupancy(32 * (j + 1))));
    assert.equal(block % 32, 0);
    assert.equal(occupancy(block), best, `block ${block} keeps the most threads resident (${best})`);
    assert.ok(block <= 512, "no block size the SM cannot hold");
    assert.deepEqual(launch!.grid, [Math.ceil(10000 / block), 1, 1]);
    k.forall(10000, { tpb: 96 })(x);
    assert.deepEqual(double.calls("cuLaunchKernel")[1]!.block, [96, 1, 1]);
    x.free();
  });

  it("an N-D array spanning 2^31 elements is CSR019 before the driver is called, on the generic path and through a configured launcher's fast path", (t) => {
    // The array's shape claims 2^31 elements over a 16-byte allocation of the double (the internal
    // constructor does not check), so no 2 GiB is allocated: the launch must refuse it before any kernel reads it.
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const art = compileSource(`
import { cuda, f32, Array2D } from "cudascript";
export const fill2d = cuda.jit((m: Array2D<f32>, v: f32) => {
  const [c, r] = cuda.grid(2);
  if (r < m.shape[0] && c < m.shape[1]) m[r][c] = v;
});
`);
    const small = cuda.deviceArray([2, 2], f32);
    const claims = new DeviceNDArray([65536, 32768], dtypes.f32, cuda.deviceArray(4, f32).buffer);
    const isSpan = (e: unknown) => e instanceof CudaScriptError && e.code === "CSR019" && /spans 2147483648 elements/.test(e.message);
    assert.throws(() => kernel(art, "fill2d").launch(1, 1)(claims, 1), isSpan);
    const launcher = kernel(art, "fill2d").launch(1, 1);
    launcher(small, 1); // sets up the fast path
    assert.throws(() => launcher(claims, 1), isSpan);
    assert.deepEqual(double.calls("cuLaunchKernel").map((e) => e.result), [0], "only the launch with the small array reached the driver");
    small.free();
  });
});
