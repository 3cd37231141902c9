// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver. Proves that on the
// GPU backend cuda.random.createXoroshiro128pStates / initXoroshiro128pStates compute Numba's states on
// the host and copy them into the device array, on the stream the options name (the NULL stream
// without one), and that a kernel drawing from them compiles (NVRTC) and launches with the state array.
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cuda, f32, u64 } from "cudascript";
import { xoroshiroFixture } from "../runtime/fixtures/numba/xoroshiro128p-fixture";
import { compileSource, gpuOnDouble, kernel } from "./helpers";

const c = xoroshiroFixture.cases[xoroshiroFixture.cases.length - 1]!;
const numbaStates = c.states.flat();
const hostWords = (d: { copyToHost(): unknown }) => [...((d.copyToHost() as { data: BigUint64Array }).data)].map(String);

describe("cuda.random on the GPU backend (libcuda TEST DOUBLE)", () => {
  it("createXoroshiro128pStates copies Numba's states on the given stream; initXoroshiro128pStates on the NULL stream without one", (t) => {
    const env = gpuOnDouble(t, { needsNvrtc: false });
    if (!env) return;
    const { double } = env;
    const s = cuda.stream();
    const [created] = double.calls("cuStreamCreate");
    double.clearLog();
    const states = cuda.random.createXoroshiro128pStates(c.n, BigInt(c.seed), { subsequenceStart: c.subsequence, stream: s });
    const copies = double.log().filter((e) => e.call.startsWith("cuMemcpyHtoD"));
    assert.deepEqual(copies.map((e) => [e.call, e.stream ?? null]), [["cuMemcpyHtoDAsync_v2", created!.stream]]);
    s.synchronize();
    assert.deepEqual(hostWords(states), numbaStates);

    const again = cuda.deviceArray([c.n, 2], u64);
    double.clearLog();
    cuda.random.initXoroshiro128pStates(again, BigInt(c.seed), { subsequenceStart: c.subsequence });
    assert.deepEqual(double.log().filter((e) => e.call.startsWith("cuMemcpyHtoD")).map((e) => e.call), ["cuMemcpyHtoD_v2"]);
    assert.deepEqual(hostWords(again), numbaStates);
  });

  it("a kernel that draws compiles with NVRTC (its xoroshiro128+ C++) and launches on the GPU backend", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const artifact = compileSource(`
import { cuda, type Xoroshiro128pStates } from "cudascript";
export const noise = cuda.jit((states: Xoroshiro128pStates, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = cuda.random.xoroshiro128pUniformFloat32(states, i);
});
`);
    const states = cuda.random.createXoroshiro128pStates(64, 7);
    const out = cuda.deviceArray(64, f32);
    double.clearLog();
    kernel(artifact, "noise").launch(1, 64)(states, out);
    cuda.synchronize();
    const [launch] = double.calls("cuLaunchKernel");
    assert.ok(launch, "the kernel was launched");
    assert.equal(launch!.result, 0);
  });
});
