// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver: nothing runs on a
// GPU; the double's device reports the compute capability the test sets
// (CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR/MINOR). Proves that a kernel using a feature its GPU is
// too old for (compiler/src/cuda/kernel-uses.ts GPU_FEATURES: warp match and f16 atomics need sm_70, f16
// arithmetic sm_53) is CSR047 before NVRTC is asked, naming the kernel, the feature and its use, the
// minimum and the device — not an NVRTC failure reported as a CudaScript bug, nor a module the JIT rejects.
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cuda, CudaScriptError, f16, u32 } from "cudascript";
import { GpuBackend } from "cudascript/dist/gpu/backend";
import { setBackend } from "cudascript/dist/host/device";
import { compileSource, gpuOnDouble, kernel, type GpuOnDouble } from "./helpers";

const COMPUTE_CAPABILITY_MAJOR = 75; // CU_DEVICE_ATTRIBUTE_…
const COMPUTE_CAPABILITY_MINOR = 76;

const HEAD = `import { cuda, f16, u32, Float16Array } from "cudascript";\n`;
const KERNELS = {
  match: `export const match = cuda.jit((out: Uint32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = cuda.matchAnySync(0xffffffff, out[i]);
});
`,
  halfAtomic: `export const halfAtomic = cuda.jit((h: Float16Array) => {
  cuda.atomic.add(h, 0, h[1]);
});
`,
  halfMath: `export const halfMath = cuda.jit((h: Float16Array) => {
  const i = cuda.grid(1);
  if (i < h.length) h[i] = h[i] * h[i];
});
`,
};

/** A GpuBackend on the double whose device has compute capability major.minor. */
function gpuWithCapability(env: GpuOnDouble, major: number, minor: number): void {
  env.double.setDeviceAttribute(0, COMPUTE_CAPABILITY_MAJOR, major);
  env.double.setDeviceAttribute(0, COMPUTE_CAPABILITY_MINOR, minor);
  setBackend(new GpuBackend({ driver: env.double.driver, cache: false })); // reads the device anew
}

describe("minimum compute capability per feature (libcuda TEST DOUBLE)", () => {
  for (const [name, kernelName, arrayOf, major, minor, feature, needs, line] of [
    ["warp match on sm_60", "match", "u32", 6, 0, "cuda.matchAnySync / cuda.matchAllSync", "7.0 (sm_70)", 4],
    ["f16 atomics on sm_60", "halfAtomic", "f16", 6, 0, "cuda.atomic.add / cuda.atomic.sub on f16", "7.0 (sm_70)", 3],
    ["f16 arithmetic on sm_52", "halfMath", "f16", 5, 2, "f16 arithmetic", "5.3 (sm_53)", 4],
  ] as const)
    it(`${name} is CSR047 naming the kernel, the feature and its use, the minimum and the device, before NVRTC or the JIT`, (t) => {
      const env = gpuOnDouble(t);
      if (!env) return;
      gpuWithCapability(env, major, minor);
      const art = compileSource(HEAD + KERNELS[kernelName]);
      const a = cuda.deviceArray(32, arrayOf === "u32" ? u32 : f16);
      env.double.clearLog();
      assert.throws(
        () => kernel(art, kernelName).launch(1, 32)(a),
        (e: unknown) =>
          e instanceof CudaScriptError &&
          e.code === "CSR047" &&
          e.message.includes(`GPU 0 (CudaScript Test Double, sm_${major}${minor}), whose compute capability is ${major}.${minor}`) &&
          new RegExp(`kernel '${kernelName}' uses ${feature.replace(/[()+*/]/g, "\\$&")}[^\\n]* at [^\\n]*\\.ts:${line}:\\d+, which needs a GPU of compute capability ${needs.replace(/[()]/g, "\\$&")} or newer`).test(e.message) &&
          /simulator/.test(e.message),
      );
      assert.equal(env.double.callCount("cuModuleLoadDataEx"), 0, "no module was given to the JIT");
      a.free();
    });

  it("every kernel of the file that the GPU is too old for is listed: they compile together", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    gpuWithCapability(env, 5, 0);
    const art = compileSource(HEAD + KERNELS.match + KERNELS.halfAtomic + KERNELS.halfMath);
    const h = cuda.deviceArray(32, f16);
    assert.throws(
      () => kernel(art, "halfMath").launch(1, 32)(h),
      (e: unknown) => e instanceof CudaScriptError && e.code === "CSR047" && ["match", "halfAtomic", "halfMath"].every((k) => e.message.includes(`kernel '${k}' uses`)),
    );
    h.free();
  });

  it("the same kernels load on a GPU that has every feature (sm_70)", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    gpuWithCapability(env, 7, 0);
    const h = cuda.deviceArray(32, f16);
    kernel(compileSource(HEAD + KERNELS.match + KERNELS.halfAtomic + KERNELS.halfMath), "halfAtomic").launch(1, 32)(h);
    assert.equal(env.double.calls("cuLaunchKernel").at(-1)?.result, 0);
    h.free();
  });
});
