// Loading NVIDIA's CUDA driver (libcuda) — without the test double. On this project's CI machine
// there is no NVIDIA driver: loading must fail cleanly with CSD001 and a message that says the
// simulator is used. On a machine with a GPU the same tests check that it loads instead.
import assert from "node:assert/strict";
import { test } from "node:test";
import { probeCuda } from "./device";
import { CUDA_DRIVER_UNAVAILABLE_CODE, CudaDriverUnavailable, cudaDriverCandidates, loadCudaDriver } from "./driver";

// The environment without CUDASCRIPT_LIBCUDA: what a user without configuration gets.
const plainEnv = () => {
  const env = { ...process.env };
  delete env.CUDASCRIPT_LIBCUDA;
  return env;
};

test("the real driver loads, or fails cleanly with CSD001 saying the simulator is used (no throw, no crash)", () => {
  const load = loadCudaDriver({ env: plainEnv() });
  if (load.ok) {
    // A machine with an NVIDIA driver: it must be the real one, not the test double.
    assert.equal(load.driver.info.isTestDouble, false);
    assert.ok(load.driver.version().version >= 1000);
    return;
  }
  const error = load.error;
  assert.ok(error instanceof CudaDriverUnavailable);
  assert.ok(error instanceof Error);
  assert.equal(error.code, "CSD001");
  assert.equal(error.code, CUDA_DRIVER_UNAVAILABLE_CODE);
  assert.match(error.message, /^CSD001: /);
  assert.match(error.message, /CUDA driver/);
  assert.match(error.message, /simulator/);
  if (process.platform === "linux") {
    assert.match(error.message, /nvidia-smi/);
    const places = error.attempts.map((a) => a.place);
    assert.deepEqual(places, ["libcuda.so.1", "libcuda.so", "/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/lib64/libcuda.so.1", "/usr/lib/wsl/lib/libcuda.so.1"]);
    for (const attempt of error.attempts) {
      assert.ok(attempt.reason.length > 0);
      assert.match(attempt.failure, /could not be loaded|file does not exist/);
    }
  }
  // The result is cached: the second call does not search again, and returns the same object.
  assert.equal(loadCudaDriver({ env: plainEnv() }), load);
});

test("probeCuda reports CSD001 without a driver (or lists devices with one)", () => {
  const probe = probeCuda({ env: plainEnv() });
  if (probe.ok) {
    assert.ok(probe.devices.length > 0);
    return;
  }
  if (probe.code === "CSD001") {
    assert.match(probe.message, /simulator/);
    assert.ok(probe.cause instanceof CudaDriverUnavailable);
  } else {
    // A driver without a usable GPU (e.g. a container without --gpus): CSD002 or CSD003.
    assert.match(probe.code, /^CSD00[23]$/);
    assert.match(probe.message, /simulator/);
  }
});

test("CUDASCRIPT_LIBCUDA is tried first; a missing file is reported as such", () => {
  const env = { ...plainEnv(), CUDASCRIPT_LIBCUDA: "/nonexistent/dir/libcuda.so.1" };
  assert.deepEqual(cudaDriverCandidates({ env, platform: "linux" })[0], {
    path: "/nonexistent/dir/libcuda.so.1",
    reason: "environment variable CUDASCRIPT_LIBCUDA",
  });
  const load = loadCudaDriver({ env });
  if (load.ok) return; // a real driver was found after the bad override
  assert.deepEqual(load.error.attempts[0], {
    place: "/nonexistent/dir/libcuda.so.1",
    reason: "environment variable CUDASCRIPT_LIBCUDA",
    failure: "file does not exist",
  });
});

test("CUDASCRIPT_LIBCUDA=off hides the driver even where one is installed", () => {
  const env = { ...plainEnv(), CUDASCRIPT_LIBCUDA: "off" };
  assert.deepEqual(cudaDriverCandidates({ env, platform: "linux" }), []);
  const load = loadCudaDriver({ env });
  assert.equal(load.ok, false);
  if (load.ok) return;
  assert.equal(load.error.code, "CSD001");
  assert.deepEqual(load.error.attempts, [
    { place: "CUDASCRIPT_LIBCUDA=off", reason: "environment variable CUDASCRIPT_LIBCUDA", failure: "the GPU driver is disabled on purpose" },
  ]);
});

test("a library that is not a CUDA driver is rejected with the missing symbol named", { skip: process.platform !== "linux" }, () => {
  const load = loadCudaDriver({ path: "libm.so.6" });
  assert.equal(load.ok, false);
  if (load.ok) return;
  assert.equal(load.error.code, "CSD001");
  assert.equal(load.error.attempts.length, 1);
  assert.match(load.error.attempts[0]?.failure ?? "", /^not a usable CUDA driver library: .*cu/);
});

test("discovery candidates per platform: Linux sonames and fixed paths, Windows nvcuda.dll by name, none on macOS", () => {
  const linux = cudaDriverCandidates({ env: {}, platform: "linux" }).map((c) => c.path);
  assert.deepEqual(linux, ["libcuda.so.1", "libcuda.so", "/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/lib64/libcuda.so.1", "/usr/lib/wsl/lib/libcuda.so.1"]);
  assert.deepEqual(
    cudaDriverCandidates({ env: {}, platform: "win32" }).map((c) => c.path),
    ["nvcuda.dll"],
  );
  assert.deepEqual(cudaDriverCandidates({ env: {}, platform: "darwin" }), []);
  const mac = new CudaDriverUnavailable([], "darwin");
  assert.match(mac.message, /no NVIDIA CUDA driver on macOS/);
  assert.match(mac.message, /simulator/);
  // An explicit path duplicates nothing and comes first.
  const withOverride = cudaDriverCandidates({ env: { CUDASCRIPT_LIBCUDA: "libcuda.so.1" }, platform: "linux" }).map((c) => c.path);
  assert.deepEqual(withOverride, linux);
});
