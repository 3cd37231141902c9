// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver: this machine has
// no GPU, and the double models the context limits (cuCtxSetLimit / cuCtxGetLimit, a 1 KiB default
// stack) but executes no kernel. The kernels are compiled by NVRTC for real. Proves that a kernel that
// reaches a recursive device function gets a per-thread stack sized for its recursionDepth before its
// launch (runtime/src/gpu/recursion-stack.ts), once, and that other kernels leave the limit alone.
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { driverDoubleOrSkip } from "../driver-double/test-double";
import { nvrtcOrSkip } from "../support/toolchain-or-skip";
import { cuda, i32 } from "cudascript";
import { GpuBackend } from "cudascript/dist/gpu/backend";
import { setBackend } from "cudascript/dist/host/device";
import { largestStackFrame, recursionStackBytes } from "cudascript/dist/gpu/recursion-stack";
import { compileSource, kernel } from "./helpers";

const SOURCE = `
import { cuda, i32 } from "cudascript";
const fib3 = cuda.device((n: i32): i32 => (n < 2 ? 1 : fib3(n - 1) + fib3(n - 2)));
export const fib = cuda.jit((out: Int32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = fib3(i);
});
export const deep = cuda.jit((out: Int32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = fib3(i);
}, { recursionDepth: 1000 });
export const flat = cuda.jit((out: Int32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = i;
});
`;

describe("the per-thread stack of recursive kernels on the GPU backend (cuCtxSetLimit, libcuda TEST DOUBLE)", () => {
  it("frames come from the JIT's report, else 256 bytes each; (depth + 1) frames rounded to 16", () => {
    assert.equal(largestStackFrame("ptxas         .     0 bytes stack frame\nptxas         .     48 bytes stack frame, 0 bytes spill stores"), 48);
    assert.equal(largestStackFrame("no report"), undefined);
    assert.equal(recursionStackBytes(64, ""), 65 * 256);
    assert.equal(recursionStackBytes(10, "    40 bytes stack frame"), 448);
  });

  it("grows the stack before the first recursive launch, again for a deeper one, and never for other kernels", (t) => {
    const double = driverDoubleOrSkip(t);
    if (!double || !nvrtcOrSkip(t)) return;
    setBackend(new GpuBackend({ driver: double.driver, cache: false }));
    const artifact = compileSource(SOURCE);
    const out = cuda.deviceArray(8, i32);
    const calls = () => double.callCount("cuCtxSetLimit");
    const before = calls();
    kernel(artifact, "flat").launch(1, 8)(out);
    assert.equal(calls(), before, "a kernel without recursion keeps the default stack");
    kernel(artifact, "fib").launch(1, 8)(out);
    assert.equal(calls(), before + 1, "sized for recursionDepth 64 before the first launch");
    kernel(artifact, "fib").launch(1, 8)(out);
    assert.equal(calls(), before + 1, "already large enough");
    kernel(artifact, "deep").launch(1, 8)(out);
    assert.equal(calls(), before + 2, "recursionDepth 1000 needs more");
    kernel(artifact, "fib").launch(1, 8)(out);
    cuda.synchronize();
    assert.equal(calls(), before + 2, "a shallower kernel does not shrink it");
  });
});
