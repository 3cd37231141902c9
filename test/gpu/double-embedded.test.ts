// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver. Proves the PTX
// the esbuild plugin embeds at build time (`cudaArchs`, what `cudascript run` passes for its GPU):
// the artifact carries `cuda.ptx["compute_XY"]`, and the GPU backend loads exactly that PTX without
// NVRTC; PTX for a newer GPU than the device is not used (NVRTC compiles instead, or the error says
// what to install).
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { build } from "esbuild";
import type { KernelArtifact } from "@cudascript/compiler";
import { parsePtx } from "@cudascript/native-bindings/cuda";
import { nvrtcOrSkip } from "../support/toolchain-or-skip";
import { cuda, CudaScriptError } from "cudascript";
import { cudascriptPlugin } from "cudascript/esbuild";
import { GpuBackend } from "cudascript/dist/gpu/backend";
import { setBackend } from "cudascript/dist/host/device";
import { driverDoubleOrSkip } from "../driver-double/test-double";
import { kernel, REPO } from "./helpers";

async function artifactFor(source: string, cudaArchs: string[]): Promise<KernelArtifact> {
  const src = path.join(REPO, "test", "gpu", `__embed_${process.pid}_${cudaArchs.join("_")}.ts`);
  fs.writeFileSync(src, source);
  const artifacts: KernelArtifact[] = [];
  try {
    await build({ entryPoints: [src], write: false, bundle: true, platform: "node", external: ["cudascript"], logLevel: "silent", plugins: [cudascriptPlugin({ cudaArchs, onArtifact: (_, a) => artifacts.push(a) })] });
  } finally {
    fs.rmSync(src, { force: true });
  }
  assert.equal(artifacts.length, 1);
  return artifacts[0]!;
}

const SOURCE = `import { cuda, f32 } from "cudascript";
export const scale = cuda.jit((x: Float32Array, k: f32) => {
  const i = cuda.grid(1);
  if (i < x.length) x[i] = x[i] * k;
});
export const fast = cuda.jit((x: Float32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) x[i] = Math.exp(x[i]);
}, { fastmath: true });
`;

describe("PTX embedded at build time (libcuda TEST DOUBLE)", () => {
  it("the plugin embeds one PTX module per option group; the GPU backend loads it without NVRTC", async (t) => {
    const double = driverDoubleOrSkip(t);
    if (!double || !nvrtcOrSkip(t)) return;
    const artifact = await artifactFor(SOURCE, ["sm_80"]);
    const table = artifact.cuda?.ptx ?? {};
    assert.deepEqual(Object.keys(table).sort(), ["compute_80", "compute_80#1"], "two kernels with different options: two NVRTC programs");
    const entries = Object.values(table).map((p) => parsePtx(p).entries.map((e) => e.name));
    assert.deepEqual(entries.flat().sort(), ["fast", "scale"]);
    assert.match(artifact.cuda?.source ?? "", /extern "C" __global__ void scale\(float\* __restrict__ x, int x_len, float k\)/);

    // NVRTC made unavailable for the backend: the embedded PTX must be enough.
    const backend = new GpuBackend({ driver: double.driver, nvrtcPath: path.join(REPO, "no-such-libnvrtc.so"), cache: false });
    setBackend(backend);
    const d = cuda.toDevice(new Float32Array(8));
    kernel(artifact, "scale").launch(1, 32)(d, 2);
    kernel(artifact, "fast").launch(1, 32)(d);
    const loads = double.calls("cuModuleLoadDataEx").map((e) => e.ptx as string);
    assert.deepEqual(new Set(loads), new Set(Object.values(table)), "the driver received exactly the embedded PTX");
    assert.equal(backend.loaded(artifact).compiled.source, "embedded");
    assert.deepEqual(double.calls("cuLaunchKernel").map((e) => e.function), ["scale", "fast"]);
    d.free();
  });

  it("PTX embedded for a newer GPU is not used on an older one: NVRTC compiles, or the error says what to install", async (t) => {
    const double = driverDoubleOrSkip(t);
    if (!double || !nvrtcOrSkip(t)) return;
    const artifact = await artifactFor(SOURCE, ["sm_86"]);
    assert.ok(artifact.cuda?.ptx?.["compute_86"]);
    setBackend(new GpuBackend({ driver: double.driver, nvrtcPath: path.join(REPO, "no-such-libnvrtc.so"), cache: false }));
    assert.throws(
      () => kernel(artifact, "scale").launch(1, 32),
      (e: unknown) => e instanceof CudaScriptError && e.code === "CSR042" && /NVRTC was not found/.test(e.message) && /Install NVRTC/.test(e.message),
    );
    const backend = new GpuBackend({ driver: double.driver, cache: false });
    setBackend(backend);
    const d = cuda.toDevice(new Float32Array(8));
    kernel(artifact, "scale").launch(1, 32)(d, 2);
    assert.equal(backend.loaded(artifact).compiled.source, "nvrtc");
    assert.equal(backend.loaded(artifact).compiled.target, "compute_80");
    assert.match(double.calls("cuModuleLoadDataEx")[0]!.ptx as string, /\.target sm_80/);
    d.free();
  });
});
