// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver: it scripts
// kernel faults (they surface at the next synchronization and are sticky, as on a GPU), launch
// failures, PTX JIT failures with a ptxas-style log, and an older driver's PTX ISA limit. Proves that
// the GPU backend turns each into a CudaScriptError that names the kernel and the CUDA error (name,
// number, description) and says whether the CUDA context is still usable.
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cuda, CudaScriptError, f32, Float16Array } from "cudascript";
import type { GpuError } from "cudascript/dist/gpu/errors";
import { compileSource, gpuOnDouble, kernel, kindsArtifact } from "./helpers";

const isGpuError = (code: string, ...patterns: RegExp[]) => (e: unknown) => {
  assert.ok(e instanceof CudaScriptError, `expected a CudaScriptError, got ${String(e)}`);
  assert.equal(e.code, code, e.message);
  for (const p of patterns) assert.match(e.message, p);
  return true;
};

describe("GPU backend error mapping (libcuda TEST DOUBLE)", () => {
  for (const [code, name, description] of [
    [700, "CUDA_ERROR_ILLEGAL_ADDRESS", /illegal memory access/],
    [716, "CUDA_ERROR_MISALIGNED_ADDRESS", /misaligned address/],
    [702, "CUDA_ERROR_LAUNCH_TIMEOUT", /timed out/],
  ] as const) {
    it(`a kernel fault (${name}) surfaces at the next synchronization naming the kernel, the CUDA error, and a lost context`, (t) => {
      const env = gpuOnDouble(t);
      if (!env) return;
      const { double } = env;
      const k = kernel(kindsArtifact(), "dynamicShared");
      const out = cuda.deviceArray(64, f32);
      double.failKernel("dynamicShared", code);
      k.launch(1, 64)(out); // asynchronous: the launch itself succeeds
      let caught: GpuError | undefined;
      assert.throws(
        () => cuda.synchronize(),
        (e: unknown) => {
          caught = e as GpuError;
          return isGpuError(
            "CSR040",
            /kernel 'dynamicShared' failed on GPU 0 \(CudaScript Test Double, sm_80\)/,
            new RegExp(`${name} \\(${code}\\): `),
            description,
            /reported by cuCtxSynchronize/,
            /context is no longer usable/,
            /restart the process/,
          )(e);
        },
      );
      assert.equal(caught!.cuda?.code, name);
      assert.equal(caught!.cuda?.result, code);
      assert.equal(caught!.cuda?.contextUsable, false);
      assert.equal(caught!.contextUsable, false);
      assert.equal(caught!.cuda?.kernel, "dynamicShared");
      if (code === 702) assert.match(caught!.message, /display/);
      else assert.match(caught!.message, /--backend simulator/);
      // Every later GPU call fails with CSR044, naming the original failure, without a driver call.
      const calls = double.log().length;
      assert.throws(() => out.copyToHost(), isGpuError("CSR044", /can no longer be used: kernel 'dynamicShared' failed earlier/, new RegExp(name)));
      assert.throws(() => cuda.toDevice(new Float32Array(4)), isGpuError("CSR044"));
      assert.throws(() => k.launch(1, 64)(out), isGpuError("CSR044"));
      assert.equal(double.log().length, calls, "no driver call after the context was lost");
      // Freeing is silent (the memory went with the context) so it never masks the real error.
      out.free();
    });
  }

  it("through a launch with host arrays, the fault surfaces at the copy back, still naming the kernel", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double, backend } = env;
    const k = kernel(kindsArtifact(), "boolArray");
    double.failKernel("boolArray", 700);
    assert.throws(
      () => k.launch(1, 32)(new Uint8Array(4), new Int32Array(4), 1, true),
      isGpuError("CSR040", /kernel 'boolArray' failed/, /CUDA_ERROR_ILLEGAL_ADDRESS \(700\)/, /reported by cuMemcpyDtoH_v2/, /no longer usable/),
    );
    assert.equal(backend.memoryStats().liveAllocations, 0, "the launch's temporary device arrays were released");
  });

  it("a kernel that faults among several names all of them as candidates", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const art = kindsArtifact();
    const out = cuda.deviceArray(64, f32);
    const mask = cuda.toDevice(new Uint8Array(64));
    const ints = cuda.deviceArray(64, "i32" as never) as ReturnType<typeof cuda.toDevice>;
    double.failKernel("boolArray", 700);
    kernel(art, "dynamicShared").launch(1, 64)(out);
    kernel(art, "boolArray").launch(1, 64)(mask, ints, 3, false);
    assert.throws(() => cuda.synchronize(), isGpuError("CSR040", /one of the kernels launched since the last synchronization \('dynamicShared', 'boolArray'\)/));
  });

  it("a fault that surfaces at the next launch blames the kernel that ran, not the one being launched", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const art = kindsArtifact();
    const out = cuda.deviceArray(64, f32);
    const mask = cuda.toDevice(new Uint8Array(64));
    const ints = cuda.deviceArray(64, "i32" as never) as ReturnType<typeof cuda.toDevice>;
    double.failKernelAtNextCall("dynamicShared", 700);
    kernel(art, "dynamicShared").launch(1, 64)(out); // succeeds; the GPU faults right after
    let caught: GpuError | undefined;
    assert.throws(
      () => kernel(art, "boolArray").launch(1, 64)(mask, ints, 3, false),
      (e: unknown) => {
        caught = e as GpuError;
        return isGpuError("CSR040", /CSR040: kernel 'dynamicShared' failed on GPU 0/, /CUDA_ERROR_ILLEGAL_ADDRESS \(700\)/, /while launching kernel 'boolArray'/, /no longer usable/)(e);
      },
    );
    assert.doesNotMatch(caught!.message, /kernel 'boolArray' failed/);
    assert.equal(caught!.cuda?.kernel, "dynamicShared");
    assert.equal(caught!.contextUsable, false);
    assert.throws(() => cuda.synchronize(), isGpuError("CSR044", /kernel 'dynamicShared' failed earlier/));
  });

  it("a fault that surfaces at the next module load is CSR040 naming the kernel that ran, and the context is lost", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const out = cuda.deviceArray(64, f32);
    double.failKernelAtNextCall("dynamicShared", 716);
    kernel(kindsArtifact(), "dynamicShared").launch(1, 64)(out);
    const art = compileSource(`
import { cuda } from "cudascript";
export const negate = cuda.jit((x: Float32Array) => { const i = cuda.grid(1); if (i < x.length) x[i] = -x[i]; });
`);
    let caught: GpuError | undefined;
    assert.throws(
      () => kernel(art, "negate").launch(1, 32)(out),
      (e: unknown) => {
        caught = e as GpuError;
        return isGpuError("CSR040", /CSR040: kernel 'dynamicShared' failed on GPU 0/, /CUDA_ERROR_MISALIGNED_ADDRESS \(716\)/, /reported by cuModuleLoadDataEx while loading the kernels of/, /no longer usable/)(e);
      },
    );
    assert.doesNotMatch(caught!.message, /CudaScript bug/);
    assert.equal(caught!.contextUsable, false);
    const calls = double.log().length;
    assert.throws(() => cuda.toDevice(new Float32Array(4)), isGpuError("CSR044", /kernel 'dynamicShared' failed earlier with CUDA_ERROR_MISALIGNED_ADDRESS/));
    assert.equal(double.log().length, calls, "no driver call after the context was lost");
  });

  it("a launch the driver refuses (non-sticky) names the kernel and says the context is still usable", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const k = kernel(kindsArtifact(), "dynamicShared");
    const out = cuda.deviceArray(64, f32);
    double.failNext("cuLaunchKernel", 701);
    let caught: GpuError | undefined;
    assert.throws(
      () => k.launch(1, 64)(out),
      (e: unknown) => {
        caught = e as GpuError;
        return isGpuError("CSR040", /kernel 'dynamicShared' could not be launched/, /CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES \(701\)/, /maxRegisters/, /still usable/)(e);
      },
    );
    assert.equal(caught!.contextUsable, true);
    k.launch(1, 64)(out); // and it is
    cuda.synchronize();
    out.free();
  });

  it("a PTX JIT failure is CSR041 with the JIT's log", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const art = compileSource(`
import { cuda } from "cudascript";
export const neg = cuda.jit((x: Float32Array) => { const i = cuda.grid(1); if (i < x.length) x[i] = -x[i]; });
`);
    double.failNextJit(218, "ptxas application ptx input, line 17; error   : Unknown symbol 'cs_oops'\nptxas fatal   : Ptx assembly aborted due to errors");
    let caught: GpuError | undefined;
    assert.throws(
      () => kernel(art, "neg").launch(1, 32),
      (e: unknown) => {
        caught = e as GpuError;
        return isGpuError(
          "CSR041",
          /could not load the kernels of .*__virtual_.*\.ts \(neg\) on GPU 0/,
          /CUDA_ERROR_INVALID_PTX \(218\)/,
          /PTX JIT log:\nptxas application ptx input, line 17; error {3}: Unknown symbol 'cs_oops'\nptxas fatal/,
        )(e);
      },
    );
    assert.equal(caught!.cuda?.jitLog?.includes("Unknown symbol 'cs_oops'"), true);
    // Not cached as loaded: the next attempt loads again (and succeeds).
    const d = cuda.toDevice(new Float32Array(8));
    kernel(art, "neg").launch(1, 32)(d);
    assert.equal(double.calls("cuModuleLoadDataEx").length, 2);
    d.free();
  });

  it("PTX newer than the driver: CSR041 saying to update the driver or use an older NVRTC", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    double.setMaxPtxVersion(60); // a driver that accepts PTX ISA ≤ 6.0
    const art = compileSource(`
import { cuda } from "cudascript";
export const twice = cuda.jit((x: Float32Array) => { const i = cuda.grid(1); if (i < x.length) x[i] = 2 * x[i]; });
`);
    assert.throws(
      () => kernel(art, "twice").launch(1, 32),
      isGpuError("CSR041", /CUDA_ERROR_UNSUPPORTED_PTX_VERSION \(222\)/, /is newer than the NVIDIA driver \(CUDA 13\.0\) can compile: update the NVIDIA driver/, /CUDASCRIPT_NVRTC/, /PTX JIT log:\n.*ptxas/),
    );
  });

  it("aliased array arguments are rejected before the launch (CSR045)", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const art = compileSource(`
import { cuda } from "cudascript";
export const add = cuda.jit((x: Float32Array, y: Float32Array) => { const i = cuda.grid(1); if (i < x.length) x[i] += y[i]; });
`);
    const f = cuda.toDevice(new Float32Array(16));
    const g = cuda.toDevice(new Float32Array(16));
    const k = kernel(art, "add");
    assert.throws(() => k.launch(1, 16)(f, f), isGpuError("CSR045", /kernel 'add': arguments 1 and 2 are the same device array/, /__restrict__/));
    assert.equal(double.callCount("cuLaunchKernel"), 0, "nothing was launched");
    k.launch(1, 16)(f, g);
    assert.equal(double.callCount("cuLaunchKernel"), 1);
    f.free();
    g.free();
  });

  it("overlapping views of one device array are rejected, counted in bytes of their dtype (8 for i64: CSR045)", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const art = compileSource(`
import { cuda } from "cudascript";
export const add64 = cuda.jit((x: BigInt64Array, y: BigInt64Array) => { const i = cuda.grid(1); if (i < x.length) x[i] += y[i]; });
`);
    const d = cuda.toDevice(new BigInt64Array(8));
    const k = kernel(art, "add64");
    // Elements 0..3 and 2..5 share elements 2 and 3 (bytes 16..31); counted as 1-byte elements they would not.
    assert.throws(() => k.launch(1, 8)(d.slice(0, 4), d.slice(2, 6)), isGpuError("CSR045", /arguments 1 and 2 are overlapping views of one device array/));
    assert.equal(double.callCount("cuLaunchKernel"), 0, "nothing was launched");
    k.launch(1, 8)(d.slice(0, 4), d.slice(4, 8));
    assert.equal(double.callCount("cuLaunchKernel"), 1, "disjoint halves launch");
    d.free();
  });

  it("cuda.pinned of a Float16Array registers its 16-bit storage (the Node 20/22 polyfill is a proxy the FFI cannot read)", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const h = new Float16Array(64);
    assert.equal(cuda.pinned(h, () => "done"), "done");
    const [reg] = double.calls("cuMemHostRegister_v2");
    assert.equal(reg!.bytes, 128, "64 f16 = 128 bytes");
    assert.equal(double.callCount("cuMemHostUnregister"), 1);
  });
});
