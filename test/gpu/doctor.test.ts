// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver, through
// CUDASCRIPT_LIBCUDA in child processes — and runs without it (CUDASCRIPT_LIBCUDA=off hides any
// driver). Proves `cudascript doctor` (text and --json) and `cudascript devices` report the driver,
// the devices with compute capability and memory, NVRTC, the cache and the simulator, each missing
// part with its fix, and exit 0 whenever the simulator works.
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadNvrtc } from "@cudascript/native-bindings";
import type { DoctorReport } from "cudascript/dist/cli/doctor-command";
import { childEnv, doublePathOrSkip, runCli } from "./helpers";

const nvrtcHere = loadNvrtc().ok;

function doctorJson(env: NodeJS.ProcessEnv): DoctorReport {
  const r = runCli(["doctor", "--json"], env);
  assert.equal(r.code, 0, r.all);
  return JSON.parse(r.out) as DoctorReport;
}

describe("cudascript doctor / devices", () => {
  it("without a driver: says so with the fix, still exits 0 (the simulator works)", () => {
    const env = childEnv("off");
    const text = runCli(["doctor"], env);
    assert.equal(text.code, 0, text.all);
    assert.match(text.out, /^CudaScript \d+\.\d+\.\d+ — Node\.js v\d+/);
    assert.match(text.out, /CUDA driver\n {2}status {14}not found \(CUDASCRIPT_LIBCUDA=off: the GPU driver is disabled on purpose\)/);
    assert.match(text.out, /CUDA devices \(0\)\n {2}none: kernels run on the simulator/);
    assert.match(text.out, /NVRTC \(CUDA C\+\+ → PTX\)/);
    assert.match(text.out, /Compile cache\n {2}folder/);
    assert.match(text.out, /Simulator\n {2}status {14}ok\n {2}workers/);
    assert.match(text.out, /--backend auto {6}simulator \(no CUDA driver found\)/);
    assert.match(text.out, /1\. \[driver\] no CUDA driver found/);
    assert.match(text.out, /fix: To run kernels on an NVIDIA GPU, install the NVIDIA driver/);
    assert.match(text.out, /Kernels run on the simulator \(no CUDA driver found\)\.\n$/);

    const json = doctorJson(env);
    assert.equal(json.driver.ok, false);
    assert.equal(json.driver.code, "CSD001");
    assert.deepEqual(json.devices, []);
    assert.equal(json.simulator.ok, true);
    assert.ok(json.simulator.workers >= 1);
    assert.equal(json.backend.auto, "simulator");
    assert.ok(json.problems.some((p) => p.part === "driver" && /nvidia-smi/.test(p.fix)));
    assert.equal(json.nvrtc.ok, nvrtcHere);
    if (!nvrtcHere) assert.ok(json.problems.some((p) => p.part === "nvrtc" && /libnvrtc/.test(p.fix)));
    assert.equal(typeof json.cache.dir, "string");

    const devices = runCli(["devices"], env);
    assert.equal(devices.code, 0);
    assert.match(devices.out, /^no CUDA devices: running on the simulator \(CUDASCRIPT_LIBCUDA=off: the GPU driver is disabled on purpose\)/);
    assert.deepEqual(JSON.parse(runCli(["devices", "--json"], env).out).devices, []);
  });

  it("with the double: driver version, the device with compute capability and memory, NVRTC target, a passing PTX JIT check", (t) => {
    const lib = doublePathOrSkip(t);
    if (!lib) return;
    const env = childEnv(lib, { CUDASCRIPT_DOUBLE_DRIVER_VERSION: "12040" });
    const json = doctorJson(env);
    assert.equal(json.driver.ok, true);
    assert.equal(json.driver.version, "12.4");
    assert.equal(json.driver.testDouble, true);
    assert.equal(json.devices.length, 1);
    const d = json.devices[0]!;
    assert.equal(d.name, "CudaScript Test Double");
    assert.equal(d.computeCapability, "8.0");
    assert.equal(d.arch, "sm_80");
    assert.equal(d.totalMemoryBytes, 40 * 1024 ** 3);
    assert.equal(d.multiprocessors, 108);
    assert.equal(json.backend.auto, "gpu");
    if (nvrtcHere) {
      assert.equal(d.ptxTarget, "compute_80");
      assert.equal(json.jit?.ok, true, JSON.stringify(json.jit));
      assert.deepEqual(json.problems, []);
    }
    const text = runCli(["doctor"], env);
    assert.match(text.out, /library {13}.*libcuda\.so\.1 {2}\(the libcuda TEST DOUBLE, not NVIDIA's driver\)/);
    assert.match(text.out, /version {13}CUDA 12\.4/);
    assert.match(text.out, /\[0\] CudaScript Test Double\n {6}compute capability {2}8\.0 \(sm_80\)\n {6}memory {14}40\.0 GiB/);
    if (nvrtcHere) assert.match(text.out, /PTX JIT check {7}ok: compute_80 PTX \(ISA \d+\.\d+\) loads on GPU 0/);

    const devices = runCli(["devices"], childEnv(lib, { CUDASCRIPT_DOUBLE_DEVICES: "2" }));
    assert.equal(devices.code, 0);
    assert.match(devices.out, /^2 CUDA devices \(driver .*, CUDA 13\.0, the libcuda TEST DOUBLE\):\n\[0\] CudaScript Test Double\n/);
    assert.match(devices.out, /\[1\] CudaScript Test Double #1\n {4}compute capability {2}8\.0 \(sm_80\)\n {4}memory {14}40\.0 GiB/);
    const list = JSON.parse(runCli(["devices", "--json"], env).out) as { devices: { name: string; computeCapability: string; totalMemoryBytes: number }[] };
    assert.deepEqual(list.devices.map((x) => [x.name, x.computeCapability, x.totalMemoryBytes]), [["CudaScript Test Double", "8.0", 40 * 1024 ** 3]]);
  });

  it("with the double but cuInit failing: the CUDA error and what to check", (t) => {
    const lib = doublePathOrSkip(t);
    if (!lib) return;
    const env = childEnv(lib, { CUDASCRIPT_DOUBLE_INIT_RESULT: "CUDA_ERROR_NO_DEVICE" });
    const json = doctorJson(env);
    assert.equal(json.driver.code, "CSD002");
    assert.equal(json.driver.version, "13.0", "the driver version is known without cuInit");
    const p = json.problems.find((x) => x.part === "devices");
    assert.ok(p, JSON.stringify(json.problems));
    assert.match(p.problem, /cuInit failed with CUDA_ERROR_NO_DEVICE/);
    assert.match(p.fix, /nvidia-smi/);
    assert.match(p.fix, /CUDA_VISIBLE_DEVICES/);
    assert.doesNotMatch(p.fix, /CPU simulator instead/);
    assert.equal(json.backend.auto, "simulator");
    const devices = runCli(["devices"], env);
    assert.match(devices.out, /^no CUDA devices: running on the simulator \(cuInit failed with CUDA_ERROR_NO_DEVICE/);
  });

  it("with the double rejecting NVRTC's PTX as too new: the JIT check fails with the fix", (t) => {
    const lib = doublePathOrSkip(t);
    if (!lib || !nvrtcHere) return;
    const env = childEnv(lib, { CUDASCRIPT_DOUBLE_FAIL: "cuModuleLoadDataEx:CUDA_ERROR_UNSUPPORTED_PTX_VERSION" });
    const json = doctorJson(env);
    assert.equal(json.jit?.ok, false);
    const p = json.problems.find((x) => x.part === "jit");
    assert.ok(p, JSON.stringify(json.problems));
    assert.match(p.problem, /the driver \(CUDA 13\.0\) could not load NVRTC's PTX \(ISA \d+\.\d+, compute_80\): CUDA_ERROR_UNSUPPORTED_PTX_VERSION/);
    assert.match(p.fix, /NVRTC is newer than the driver: update the NVIDIA driver, or use an NVRTC no newer than CUDA 13\.0 \(set CUDASCRIPT_NVRTC\)/);
    const text = runCli(["doctor"], env);
    assert.equal(text.code, 0, "the simulator still works");
    assert.match(text.out, /PTX JIT check {7}FAILED: /);
    assert.match(text.out, /--backend auto picks the GPU 0: CudaScript Test Double .*, but kernels cannot be loaded there until the PTX JIT problem above is fixed/);
  });

  it("a bad CUDASCRIPT_SIM_MEMORY is reported with the setting's fix, not a reinstall", () => {
    const r = runCli(["doctor", "--json"], { ...childEnv("off"), CUDASCRIPT_SIM_MEMORY: "lots" });
    const json = JSON.parse(r.out) as DoctorReport;
    assert.equal(json.simulator.ok, false);
    const problem = json.problems.find((p) => p.part === "simulator");
    assert.match(problem?.problem ?? "", /CSR018: CUDASCRIPT_SIM_MEMORY=lots is not a memory size/);
    assert.match(problem?.fix ?? "", /set CUDASCRIPT_SIM_MEMORY to a size such as 8GiB, or unset it/);
  });
  it("usage errors exit 2", () => {
    assert.equal(runCli(["doctor", "--bogus"], childEnv("off")).code, 2);
    assert.equal(runCli(["devices", "extra"], childEnv("off")).code, 2);
  });
});
