// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver. Proves that on the
// GPU backend cuda.random.createXoroshiro128pStates / initXoroshiro128pStates compute Numba's states on
// the host and copy them into the device array, on the stream the options name (the NULL stream
// without one), and that a kernel drawing from them compiles (NVRTC) and launches with the state array.
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cuda, CudaScriptError, f32, u64 } from "cudascript";
import { currentBackend, setBackend } from "cudascript/dist/host/device";
import { SimulatorBackend } from "cudascript/dist/simulator/backend";
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

  it("a kernel drawing from a state array in F order or strided is CSR033 before the launch, with the simulator's message (through a device function too, and through a configured launcher)", (t) => {
    // The generated C++ reads a state's two words side by side from &states[i][0]: in any other layout a
    // draw would silently update the neighbouring state. The simulator raises CSR033 at the draw; the
    // GPU path checks the layout at launch with the same function (runtime/src/random/state-layout.ts).
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const artifact = compileSource(`
import { cuda, f32, i32, type Xoroshiro128pStates } from "cudascript";
const draw = cuda.device((s: Xoroshiro128pStates, i: i32): f32 => cuda.random.xoroshiro128pUniformFloat32(s, i));
export const noise = cuda.jit((states: Xoroshiro128pStates, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = cuda.random.xoroshiro128pUniformFloat32(states, i);
});
export const viaDevice = cuda.jit((out: Float32Array, states: Xoroshiro128pStates) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = draw(states, i);
});
`);
    const out = cuda.deviceArray(8, f32);
    const fOrder = cuda.deviceArray([8, 2], u64, { order: "F" });
    const strided = cuda.deviceArray([2, 8], u64).T; // shape [8, 2], element strides [1, 8]
    const good = cuda.random.createXoroshiro128pStates(8, 1);
    const isLayout = (strides: string) => (e: unknown) =>
      e instanceof CudaScriptError && e.code === "CSR033" && e.message.includes(`whose layout is not C order (element strides [${strides}])`) && / in kernel '(noise|viaDevice)'/.test(e.message);
    double.clearLog();
    assert.throws(() => kernel(artifact, "noise").launch(1, 8)(fOrder, out), isLayout("1, 8"));
    assert.throws(() => kernel(artifact, "noise").launch(1, 8)(strided, out), isLayout("1, 8"));
    assert.throws(() => kernel(artifact, "viaDevice").launch(1, 8)(out, fOrder), isLayout("1, 8"));
    const launcher = kernel(artifact, "noise").launch(1, 8);
    launcher(good, out); // sets up the fast path
    assert.throws(() => launcher(fOrder, out), isLayout("1, 8"));
    assert.deepEqual(double.calls("cuLaunchKernel").map((e) => e.result), [0], "only the C-order states were launched");
    // The simulator's message for the same mistake, which also names the block and thread that drew.
    let gpu = "";
    try {
      kernel(artifact, "noise").launch(1, 8)(fOrder, out);
    } catch (e) {
      gpu = (e as Error).message;
    }
    assert.equal(simulatorMessage(artifact).replace(", block (0, 0, 0), thread (0, 0, 0)", ""), gpu);
  });
});

/** The CSR033 message the simulator gives for the F-order states of `noise`. */
function simulatorMessage(artifact: ReturnType<typeof compileSource>): string {
  const gpu = currentBackend();
  setBackend(new SimulatorBackend());
  try {
    const out = cuda.deviceArray(8, f32);
    const fOrder = cuda.deviceArray([8, 2], u64, { order: "F" });
    try {
      kernel(artifact, "noise").launch(1, 8)(fOrder, out);
    } catch (e) {
      return (e as Error).message;
    }
    return "no error";
  } finally {
    setBackend(gpu);
  }
}
