// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver: driver
// version, devices and their attributes, primary contexts, and the "no GPU" reasons (cuInit
// failure, zero devices) as the bindings report them.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { CU_DEVICE_ATTRIBUTE, CudaContext, CudaDriverError, CudaUsageError, driverVersion, listDevices, probeCuda, loadCudaDriver } from "@cudascript/native-bindings/cuda";
import { buildDriverDouble, driverDoubleOrSkip } from "./test-double";

test("the double loads through the ordinary loader and says it is a test double", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  const { driver } = double;
  assert.equal(driver.info.isTestDouble, true);
  assert.equal(driver.info.path, double.path);
  assert.equal(driver.info.symbols.eventElapsedTime, "cuEventElapsedTime_v2");
  assert.equal(driver.info.symbols.primaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
  assert.deepEqual(driverVersion(driver), { major: 13, minor: 0, raw: 13000 });
  double.setDriverVersion(12040);
  assert.deepEqual(driverVersion(driver), { major: 12, minor: 4, raw: 12040 });
  // CUDASCRIPT_LIBCUDA (how tests and users point at a library) finds the same driver.
  const viaEnv = loadCudaDriver({ env: { CUDASCRIPT_LIBCUDA: double.path } });
  assert.ok(viaEnv.ok);
  assert.equal(viaEnv.ok && viaEnv.driver, driver);
});

test("the default device: CudaScript Test Double, compute capability 8.0, 108 SMs, sm_80 limits", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  const devices = listDevices(double.driver);
  assert.equal(devices.length, 1);
  const [d] = devices;
  assert.ok(d);
  assert.equal(d.ordinal, 0);
  assert.equal(d.name, "CudaScript Test Double");
  assert.deepEqual(d.computeCapability, { major: 8, minor: 0 });
  assert.equal(d.arch, "sm_80");
  assert.equal(d.multiprocessorCount, 108);
  assert.equal(d.totalMemoryBytes, 40 * 2 ** 30);
  assert.equal(d.warpSize, 32);
  assert.equal(d.maxThreadsPerBlock, 1024);
  assert.deepEqual(d.maxBlockDim, [1024, 1024, 64]);
  assert.deepEqual(d.maxGridDim, [2 ** 31 - 1, 65535, 65535]);
  assert.equal(d.maxThreadsPerMultiprocessor, 2048);
  assert.equal(d.maxBlocksPerMultiprocessor, 32);
  assert.equal(d.sharedMemoryPerBlock, 48 * 1024);
  assert.equal(d.sharedMemoryPerBlockOptin, 163 * 1024);
  assert.equal(d.sharedMemoryPerMultiprocessor, 164 * 1024);
  assert.equal(d.reservedSharedMemoryPerBlock, 1024);
  assert.equal(d.registersPerBlock, 65536);
  assert.equal(d.registersPerMultiprocessor, 65536);
  assert.equal(d.concurrentKernels, true);
  assert.equal(d.integrated, false);
  // Each attribute came from cuDeviceGetAttribute, recorded with its number and value.
  const sms = double.calls("cuDeviceGetAttribute").find((e) => e.attribute === CU_DEVICE_ATTRIBUTE.MULTIPROCESSOR_COUNT);
  assert.equal(sms?.value, 108);
  assert.equal(sms?.device, 0);
});

test("scripted devices: several devices with their own names and attributes", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  double.setDeviceCount(3);
  double.setDeviceName(2, "Scripted Hopper");
  double.setDeviceAttribute(2, CU_DEVICE_ATTRIBUTE.COMPUTE_CAPABILITY_MAJOR, 9);
  double.setDeviceAttribute(2, CU_DEVICE_ATTRIBUTE.MULTIPROCESSOR_COUNT, 132);
  double.setTotalMem(2, 80 * 2 ** 30);
  const devices = listDevices(double.driver);
  assert.deepEqual(
    devices.map((d) => [d.ordinal, d.name, d.arch, d.multiprocessorCount, d.totalMemoryBytes]),
    [
      [0, "CudaScript Test Double", "sm_80", 108, 40 * 2 ** 30],
      [1, "CudaScript Test Double #1", "sm_80", 108, 40 * 2 ** 30],
      [2, "Scripted Hopper", "sm_90", 132, 80 * 2 ** 30],
    ],
  );
  const probe = probeCuda({ path: double.path });
  assert.equal(probe.ok, true);
  assert.equal(probe.ok && probe.devices.length, 3);
});

test("cuInit failing with CUDA_ERROR_NO_DEVICE is reported as CSD002, naming the error and the simulator", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  double.setInitResult(100);
  const probe = probeCuda({ path: double.path });
  assert.equal(probe.ok, false);
  if (probe.ok) return;
  assert.equal(probe.code, "CSD002");
  assert.match(probe.message, /^CSD002: The NVIDIA driver .* is installed, but cuInit failed with CUDA_ERROR_NO_DEVICE \(100\): no CUDA-capable device is detected\./);
  assert.match(probe.message, /nvidia-smi/);
  assert.match(probe.message, /CPU simulator/);
  assert.ok(probe.cause instanceof CudaDriverError);
  assert.equal((probe.cause as CudaDriverError).call, "cuInit");
  assert.throws(() => listDevices(double.driver), (e: unknown) => e instanceof CudaDriverError && e.code === "CUDA_ERROR_NO_DEVICE" && e.call === "cuInit");
  assert.throws(() => CudaContext.retain(double.driver), (e: unknown) => e instanceof CudaDriverError && e.code === "CUDA_ERROR_NO_DEVICE");
  const inits = double.calls("cuInit");
  assert.ok(inits.length >= 3 && inits.every((e) => e.result === 100));
});

test("zero devices is reported as CSD003", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  double.setDeviceCount(0);
  assert.deepEqual(listDevices(double.driver), []);
  const probe = probeCuda({ path: double.path });
  assert.equal(probe.ok, false);
  if (probe.ok) return;
  assert.equal(probe.code, "CSD003");
  assert.match(probe.message, /cuInit succeeded, but it reports no CUDA device/);
  assert.match(probe.message, /CUDA_VISIBLE_DEVICES/);
  assert.match(probe.message, /CPU simulator/);
  assert.throws(() => CudaContext.retain(double.driver, 0), (e: unknown) => e instanceof CudaDriverError && e.code === "CUDA_ERROR_INVALID_DEVICE");
});

test("primary contexts are retained once per device, refcounted, and released exactly once", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  double.setDeviceCount(2);
  const a = CudaContext.retain(double.driver, 0);
  const b = CudaContext.retain(double.driver, 0);
  const other = CudaContext.retain(double.driver, 1);
  assert.equal(a, b, "the same object while retained");
  assert.notEqual(a, other);
  assert.equal(a.refcount, 2);
  assert.equal(a.device.name, "CudaScript Test Double");
  assert.equal(other.device.ordinal, 1);
  assert.equal(double.primaryContextRefcount(0), 1, "the driver's primary context is retained once");
  assert.equal(double.primaryContextRefcount(1), 1);
  a.release();
  assert.equal(double.primaryContextRefcount(0), 1);
  assert.equal(a.usable, true);
  b.release();
  assert.equal(double.primaryContextRefcount(0), 0);
  assert.equal(a.usable, false);
  assert.throws(() => a.release(), (e: unknown) => e instanceof CudaUsageError && e.code === "CSD005");
  assert.throws(() => a.alloc(16), (e: unknown) => e instanceof CudaUsageError && e.code === "CSD005");
  const again = CudaContext.retain(double.driver, 0);
  assert.notEqual(again, a, "a new context after the last release");
  again.release();
  other.release();
  const releases = double.calls("cuDevicePrimaryCtxRelease_v2");
  assert.deepEqual(
    releases.map((e) => [e.device, e.refcount, e.destroyed]),
    [
      [0, 0, true],
      [0, 0, true],
      [1, 0, true],
    ],
  );
  assert.equal(double.reset(), 0, "nothing left alive");
});

test("the double is configured by environment variables too, and can log to a file (child process)", (t) => {
  const double = driverDoubleOrSkip(t);
  if (!double) return;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cudascript-double-env-"));
  const index = require.resolve("@cudascript/native-bindings/cuda");
  const script = `const c = require(${JSON.stringify(index)}); const p = c.probeCuda(); console.log(JSON.stringify({ ok: p.ok, code: p.code, message: p.message, devices: p.ok ? p.devices.length : 0 }));`;
  const run = (env: Record<string, string>) => {
    const r = spawnSync(process.execPath, ["-e", script], { env: { ...process.env, CUDASCRIPT_LIBCUDA: double.path, ...env }, encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout) as { ok: boolean; code?: string; message?: string; devices: number };
  };
  try {
    const logFile = path.join(dir, "calls.jsonl");
    assert.deepEqual(run({ CUDASCRIPT_DOUBLE_DEVICES: "2", CUDASCRIPT_DOUBLE_LOG: logFile }), { ok: true, devices: 2 });
    const lines = fs.readFileSync(logFile, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { call: string; result: number });
    assert.equal(lines[0]?.call, "cuDriverGetVersion");
    assert.ok(lines.some((l) => l.call === "cuInit" && l.result === 0));
    assert.equal(run({ CUDASCRIPT_DOUBLE_DEVICES: "0" }).code, "CSD003");
    const noDevice = run({ CUDASCRIPT_DOUBLE_INIT_RESULT: "CUDA_ERROR_NO_DEVICE" });
    assert.equal(noDevice.code, "CSD002");
    assert.match(noDevice.message ?? "", /CUDA_ERROR_NO_DEVICE/);
    assert.equal(run({ CUDASCRIPT_DOUBLE_FAIL: "cuInit:999" }).code, "CSD002");
    assert.equal(run({ CUDASCRIPT_LIBCUDA: "off" }).code, "CSD001");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("the double also builds without the CUDA toolkit's cuda.h (its own declarations)", (t) => {
  const double = driverDoubleOrSkip(t); // skips without gcc
  if (!double) return;
  const built = buildDriverDouble({ flags: ["-UCUDASCRIPT_DOUBLE_WITH_CUDA_H"] });
  assert.ok(built.ok, built.ok ? "" : built.reason);
  assert.notEqual(built.ok && built.path, double.path);
});
