// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver: nothing runs on a
// GPU. Proves the GPU path of grid synchronisation (docs/kernel-language.md#grid-synchronisation): a
// kernel that calls g.sync() is launched with cuLaunchCooperativeKernel, its hidden last parameter
// points to the grid barrier's workspace, zeroed on the launch's stream just before it; a grid larger
// than the device holds at once is CSR034 before any launch (and when the driver refuses with
// CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE), and a device without cooperative launch is CSR036.
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cuda, CudaScriptError, f32 } from "cudascript";
import { GpuBackend } from "cudascript/dist/gpu/backend";
import { setBackend } from "cudascript/dist/host/device";
import { CU_DEVICE_ATTRIBUTE, CU_FUNC_ATTRIBUTE } from "@cudascript/native-bindings/cuda";
import { compileSource, gpuOnDouble, hex, kernel } from "./helpers";

const art = compileSource(`
import { cuda, f32, i32 } from "cudascript";
export const steps = cuda.jit((a: Float32Array, n: i32) => {
  const g = cuda.cg.thisGrid();
  for (let t = 0; t < n; t++) {
    for (let i = cuda.grid(1); i < a.length; i += cuda.gridsize(1)) a[i] += 1;
    g.sync();
  }
});
export const stepsShared = cuda.jit((a: Float32Array) => {
  const g = cuda.cg.thisGrid();
  const s = cuda.shared.array(0, f32);
  s[cuda.threadIdx.x] = 1;
  g.sync();
  const i = cuda.grid(1);
  if (i < a.length) a[i] = s[cuda.threadIdx.x];
});
export const plain = cuda.jit((a: Float32Array) => {
  const i = cuda.grid(1);
  if (i < a.length) a[i] = 0;
});
`);

describe("grid sync on the GPU backend (libcuda TEST DOUBLE)", () => {
  it("a kernel that calls g.sync() goes through cuLaunchCooperativeKernel with the zeroed workspace as its last parameter; others through cuLaunchKernel", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const a = cuda.deviceArray(1000, f32);
    const first = double.log().length;
    kernel(art, "steps").launch(4, 128)(a, 3);
    kernel(art, "steps").launch(2, 256)(a, 1);
    kernel(art, "plain").launch(4, 256)(a);
    const log = double.log().slice(first);
    const coop = log.filter((e) => e.call === "cuLaunchCooperativeKernel");
    assert.equal(coop.length, 2);
    assert.equal(log.filter((e) => e.call === "cuLaunchKernel").length, 1, "the kernel without g.sync() launches as before");
    const params = coop[0]!.params as string[];
    // a (pointer, length), n, then the workspace pointer.
    assert.equal(params.length, 4);
    const ws = BigInt(`0x${Buffer.from(params[3]!, "hex").reverse().toString("hex")}`);
    const alloc = double.calls("cuMemAlloc_v2").find((c) => c.bytes === 8);
    assert.ok(alloc, "an 8-byte workspace was allocated");
    assert.equal(hex(ws), alloc.dptr, "the last parameter points to it");
    assert.equal((coop[1]!.params as string[])[3], params[3], "one workspace per stream, reused");
    // Zeroed on the launch's stream right before each cooperative launch (no other launch in between).
    for (const launch of coop) {
      const i = log.indexOf(launch);
      let z = i - 1;
      while (z >= 0 && log[z]!.call !== "cuMemcpyHtoDAsync_v2" && !String(log[z]!.call).startsWith("cuLaunch")) z--;
      const zero = log[z]!;
      assert.equal(zero.call, "cuMemcpyHtoDAsync_v2");
      assert.equal(zero.dst, hex(ws));
      assert.equal(zero.bytes, 8);
      assert.equal(zero.stream, launch.stream);
    }
    assert.equal(coop[0]!.result, 0);
    a.free();
  });

  it("cooperative launches on two streams get two workspaces (they may run at once), each zeroed on its own stream", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const a = cuda.deviceArray(1000, f32), b = cuda.deviceArray(1000, f32);
    const s1 = cuda.stream(), s2 = cuda.stream();
    const first = double.log().length;
    kernel(art, "steps").launch(2, 128, { stream: s1 })(a, 2);
    kernel(art, "steps").launch(2, 128, { stream: s2 })(b, 2);
    kernel(art, "steps").launch(2, 128, { stream: s1 })(a, 1);
    const log = double.log().slice(first);
    const coop = log.filter((e) => e.call === "cuLaunchCooperativeKernel");
    assert.equal(coop.length, 3);
    const wsOf = (e: (typeof coop)[number]) => (e.params as string[])[3];
    assert.notEqual(wsOf(coop[0]!), wsOf(coop[1]!), "another stream, another workspace");
    assert.equal(wsOf(coop[2]!), wsOf(coop[0]!), "the same stream reuses its workspace");
    assert.notEqual(coop[0]!.stream, coop[1]!.stream);
    for (const launch of coop) {
      const zero = log.slice(0, log.indexOf(launch)).filter((e) => e.call === "cuMemcpyHtoDAsync_v2").at(-1);
      assert.ok(zero, "zeroed before the launch");
      assert.equal(zero.dst, hex(BigInt(`0x${Buffer.from(wsOf(launch)!, "hex").reverse().toString("hex")}`)), "the launch's own workspace");
      assert.equal(zero.stream, launch.stream, "on the launch's stream");
    }
    s1.synchronize();
    s2.synchronize();
    a.free();
    b.free();
  });

  it("a grid larger than occupancy × SMs is CSR034 before any launch, and the driver's CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE is CSR034 too", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const a = cuda.deviceArray(1000, f32);
    // The double's device: 108 SMs; ask the driver what fits, as the runtime does.
    kernel(art, "steps").launch(1, 1024)(a, 1);
    const perSm = double.calls("cuOccupancyMaxActiveBlocksPerMultiprocessor").at(-1)!.blocks as number;
    assert.ok(perSm > 0);
    const limit = perSm * 108;
    const before = double.callCount("cuLaunchCooperativeKernel");
    assert.throws(
      () => kernel(art, "steps").launch(limit + 1, 1024)(a, 1),
      (e: unknown) => e instanceof CudaScriptError && e.code === "CSR034" && e.message.includes(`${limit + 1} blocks`) && e.message.includes(`at most ${limit} blocks of 1024 threads`) && /grid-stride loop/.test(e.message),
    );
    assert.equal(double.callCount("cuLaunchCooperativeKernel"), before, "refused before the driver is called");
    // The driver's own refusal (e.g. a limit the runtime could not see) maps to the same code.
    double.failNext("cuLaunchCooperativeKernel", 720);
    assert.throws(
      () => kernel(art, "steps").launch(2, 128)(a, 1),
      (e: unknown) => e instanceof CudaScriptError && e.code === "CSR034" && /CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE/.test(e.message),
    );
    // The double's own check, reached directly through the bindings, refuses the oversized grid with 720.
    a.free();
  });

  it("a cooperative kernel with more than 48 KiB of dynamic shared memory is opted in (cuFuncSetAttribute) before the occupancy check, and launches", (t) => {
    // The double, like the driver, answers 0 blocks per SM for more dynamic shared memory than the kernel
    // was opted in to: checked before the opt-in, every such launch was CSR034.
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const a = cuda.deviceArray(1000, f32);
    const dynamic = 64 * 1024;
    double.clearLog();
    kernel(art, "stepsShared").launch(2, 128, { sharedMem: dynamic })(a);
    const log = double.log();
    const optIn = log.findIndex((e) => e.call === "cuFuncSetAttribute" && e.attribute === CU_FUNC_ATTRIBUTE.MAX_DYNAMIC_SHARED_SIZE_BYTES && e.value === dynamic);
    const occupancy = log.findIndex((e) => e.call === "cuOccupancyMaxActiveBlocksPerMultiprocessor" && e.dynamicSharedMem === dynamic);
    assert.ok(optIn >= 0 && occupancy > optIn, "opted in, then asked for the occupancy");
    assert.ok((log[occupancy]!.blocks as number) > 0);
    const launch = double.calls("cuLaunchCooperativeKernel").at(-1)!;
    assert.deepEqual([launch.sharedMem, launch.result], [dynamic, 0]);
    a.free();
  });

  it("a device without cooperative launch (CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH = 0) is CSR036", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    double.setDeviceAttribute(0, CU_DEVICE_ATTRIBUTE.COOPERATIVE_LAUNCH, 0);
    setBackend(new GpuBackend({ driver: double.driver, cache: false })); // reads the device anew
    const a = cuda.deviceArray(16, f32);
    assert.throws(
      () => kernel(art, "steps").launch(1, 32)(a, 1),
      (e: unknown) => e instanceof CudaScriptError && e.code === "CSR036" && /does not support cooperative launches/.test(e.message),
    );
    a.free();
  });
});
