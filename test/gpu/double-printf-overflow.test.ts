// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver: this machine has
// no GPU. The kernels are compiled by NVRTC for real, so their PTX defines the printf byte counter
// the generated code keeps (cs_printf_bytes); the double executes no kernel, so
// `addToGlobalOnLaunch` stands in for a kernel whose console.log calls added N bytes to it. Proves
// that the GPU backend reads the counter at synchronizations and warns (CSR050) exactly when the
// counted output cannot have fitted in the printf FIFO.
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { describe, it, type TestContext } from "node:test";
import { driverDoubleOrSkip, type DriverDouble } from "../driver-double/test-double";
import { nvrtcOrSkip } from "../support/toolchain-or-skip";
import { cuda, f32 } from "cudascript";
import { GpuBackend } from "cudascript/dist/gpu/backend";
import { setBackend } from "cudascript/dist/host/device";
import { childEnv, compileSource, doublePathOrSkip, kernel, REPO, runNode } from "./helpers";

const SOURCE = `
import { cuda } from "cudascript";
export const report = cuda.jit((out: Float32Array) => {
  const i = cuda.grid(1);
  console.log("value", i);
  out[i] = i;
});
export const quiet = cuda.jit((out: Float32Array) => {
  out[cuda.grid(1)] = 1;
});
`;
const COUNTER = "cs_printf_bytes";
const FIFO = 4096;

/** The double (reset) and a GpuBackend on it with a 4 KiB printf buffer whose warnings are collected. */
function setup(t: TestContext): { double: DriverDouble; warnings: string[] } | undefined {
  const double = driverDoubleOrSkip(t);
  if (!double || !nvrtcOrSkip(t)) return undefined;
  const warnings: string[] = [];
  setBackend(new GpuBackend({ driver: double.driver, cache: false, printfBufferSize: FIFO, warn: (text) => warnings.push(text) }));
  return { double, warnings }; // the kernels' names are their PTX symbols
}

describe("lost kernel console.log output is reported on the GPU backend (CSR050, libcuda TEST DOUBLE)", () => {
  it("warns once when the bytes counted since the last synchronization exceed the printf buffer, and not otherwise", (t) => {
    const env = setup(t);
    if (!env) return;
    const { double, warnings } = env;
    const report = kernel(compileSource(SOURCE), "report");
    const out = cuda.deviceArray(8, f32);
    double.addToGlobalOnLaunch("report", COUNTER, FIFO);
    report.launch(1, 8)(out);
    cuda.synchronize();
    assert.deepEqual(warnings, [], "output that fits exactly is not reported");
    double.addToGlobalOnLaunch("report", COUNTER, FIFO + 1);
    report.launch(1, 8)(out);
    cuda.synchronize();
    assert.equal(warnings.length, 1);
    assert.match(
      warnings[0]!,
      /^cudascript: CSR050 warning: kernel 'report' wrote at least 4097 bytes of console\.log output since the last synchronization into a 4096-byte printf buffer; the oldest output was overwritten\. Make the buffer larger than the output: configureGpu\(\{ printfBufferSize: 8192 \}\) at the start of the program, or CUDASCRIPT_PRINTF_BUFFER=8KiB in the environment; or print less per launch/,
    );
    cuda.synchronize();
    assert.equal(warnings.length, 1, "a synchronization without new output reports nothing again");
    out.free();
  });

  it("the count restarts at each synchronization, and output the driver emptied at a launch in between is not a false alarm", (t) => {
    const env = setup(t);
    if (!env) return;
    const { double, warnings } = env;
    const report = kernel(compileSource(SOURCE), "report");
    const out = cuda.deviceArray(8, f32);
    double.addToGlobalOnLaunch("report", COUNTER, 3000);
    report.launch(1, 8)(out);
    cuda.synchronize();
    report.launch(1, 8)(out);
    cuda.synchronize();
    assert.deepEqual(warnings, [], "3000 bytes per synchronization fit; 6000 in total is not an overflow");
    // Two launches between synchronizations: the second launch's start emptied the FIFO, so 6000
    // bytes may have been two 3000-byte halves that each fitted.
    report.launch(1, 8)(out);
    report.launch(1, 8)(out);
    cuda.synchronize();
    assert.deepEqual(warnings, []);
    // 2 × 5000 bytes in two intervals: at least one interval held more than 4096.
    double.addToGlobalOnLaunch("report", COUNTER, 5000);
    report.launch(1, 8)(out);
    report.launch(1, 8)(out);
    cuda.synchronize();
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /kernel 'report' wrote at least 10000 bytes .* into a 4096-byte printf buffer \(more than the buffer can hold even though the driver emptied it 1 time in between, at launches and copies\)/);
    out.free();
  });

  it("stream.synchronize() reads the counter on that stream; a kernel without console.log causes no read at all", (t) => {
    const env = setup(t);
    if (!env) return;
    const { double, warnings } = env;
    const artifact = compileSource(SOURCE);
    const report = kernel(artifact, "report");
    const quiet = kernel(artifact, "quiet");
    const out = cuda.deviceArray(8, f32);
    double.addToGlobalOnLaunch("report", COUNTER, 2 * FIFO);
    // `quiet` shares the module (and its counter) with `report` but does not print: no read.
    quiet.launch(1, 8)(out);
    cuda.synchronize();
    assert.deepEqual(double.calls("cuModuleGetGlobal_v2"), []);
    const s = cuda.stream();
    const [created] = double.calls("cuStreamCreate");
    report.launch(1, 8, { stream: s })(out);
    double.clearLog();
    s.synchronize();
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /kernel 'report' wrote at least 8192 bytes/);
    const reads = double.log().filter((e) => e.call.startsWith("cuMemcpyDtoH"));
    assert.deepEqual(
      reads.map((e) => [e.call, e.stream, e.bytes]),
      [["cuMemcpyDtoHAsync_v2", created!.stream, 8]],
      "one 8-byte read, on the synchronized stream (a blocking copy would wait for every stream)",
    );
    out.free();
  });

  it("a module without console.log has no counter and costs no driver call", (t) => {
    const env = setup(t);
    if (!env) return;
    const { double, warnings } = env;
    const quiet = kernel(compileSource(`import { cuda } from "cudascript";\nexport const quiet = cuda.jit((out: Float32Array) => { out[cuda.grid(1)] = 1; });\n`), "quiet");
    const out = cuda.deviceArray(8, f32);
    quiet.launch(1, 8)(out);
    cuda.synchronize();
    const s = cuda.stream();
    quiet.launch(1, 8, { stream: s })(out);
    s.synchronize();
    assert.doesNotMatch(String(double.calls("cuModuleLoadDataEx")[0]?.ptx), new RegExp(COUNTER));
    assert.deepEqual(double.calls("cuModuleGetGlobal_v2"), []);
    assert.deepEqual(double.calls("cuMemcpyDtoH_v2", "cuMemcpyDtoHAsync_v2"), []);
    assert.deepEqual(warnings, []);
    out.free();
  });

  it("the exit flush reports output lost by a kernel launched just before the program ended (child process)", (t) => {
    const lib = doublePathOrSkip(t);
    if (!lib || !nvrtcOrSkip(t)) return;
    const child = path.join(REPO, "test", "dist", "gpu", "children", "printf-child.js");
    const r = runNode([child, "overflow-at-exit"], childEnv(lib, { CUDASCRIPT_BACKEND: "gpu", CUDASCRIPT_PRINTF_BUFFER: "64" }));
    assert.equal(r.code, 0, r.all);
    const warnings = r.err.split("\n").filter((l) => l.includes("CSR050"));
    assert.equal(warnings.length, 1, r.err);
    assert.match(warnings[0]!, /^cudascript: CSR050 warning: kernel 'hello' wrote at least 1000 bytes of console\.log output since the last synchronization into a 64-byte printf buffer; the oldest output was overwritten\./);
  });
});
