// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver: nothing runs on a
// GPU. Proves that kernel options reach the driver: a `maxRegisters` cap travels in the PTX the
// driver JIT-compiles (the double, like ptxas, never gives a capped kernel more registers than
// `.maxnreg` / CU_JIT_MAX_REGISTERS allow, and says so in its resource report).
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CU_FUNC_ATTRIBUTE } from "@cudascript/native-bindings/cuda";
import { cuda } from "cudascript";
import { compileSource, gpuOnDouble, kernel } from "./helpers";

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
});
