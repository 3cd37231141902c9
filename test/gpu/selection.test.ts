// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver, configured per
// child process through CUDASCRIPT_LIBCUDA and CUDASCRIPT_DOUBLE_* (backend selection happens once
// per process). Proves: `auto` picks the GPU only when libcuda loads, cuInit succeeds and a device
// exists; otherwise the simulator, with the reason printed once; `gpu` without a GPU fails clearly;
// `simulator` never touches the driver; `cuda.backend` / `cuda.gpus` reflect the choice; and
// `cudascript run` end to end on the double.
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { describe, it } from "node:test";
import { loadCudaDriver } from "@cudascript/native-bindings/cuda";
import { childEnv, doublePathOrSkip, logFile, REPO, runCli, runNode } from "./helpers";

const CHILD = path.join(REPO, "test", "dist", "gpu", "children", "select-child.js");
const PROGRAM = path.join("test", "gpu", "fixtures", "backend-probe.ts");
// A driver library that is not there. On a machine with NVIDIA's driver installed, discovery would
// go on to find it after a missing CUDASCRIPT_LIBCUDA, so there the driver is hidden with "off".
const realDriverHere = loadCudaDriver({ env: { ...process.env, CUDASCRIPT_LIBCUDA: "" } }).ok;
const MISSING = realDriverHere ? "off" : path.join(REPO, "test", "gpu", "no-such-dir", "libcuda.so.1");
const MISSING_REASON = realDriverHere ? /CUDASCRIPT_LIBCUDA=off: the GPU driver is disabled on purpose/ : /no-such-dir\/libcuda\.so\.1: file does not exist/;

interface Selected {
  backend?: string;
  again?: string;
  gpus?: { id: number; name: string; arch: string }[];
  description?: string;
  choice?: { kind: string; description: string; reason?: string };
  back?: number[];
  pinnedLength?: number;
  error?: string;
  code?: string;
}

function select(env: NodeJS.ProcessEnv): { result: Selected; err: string } {
  const r = runNode([CHILD], env);
  assert.equal(r.code, 0, r.all);
  return { result: JSON.parse(r.out.trim().split("\n").pop()!) as Selected, err: r.err };
}

/** What every runner (node, tsx, Vitest, `cudascript run`) prints once when kernels fall back to the simulator for want of a driver. */
const NO_DRIVER_NOTICE = "cudascript: running on the simulator: no GPU driver — cudascript doctor";

const occurrences = (text: string, needle: string) => text.split(needle).length - 1;

describe("backend selection in a program's process (libcuda TEST DOUBLE)", () => {
  it("auto: the GPU when libcuda loads, cuInit succeeds and a device exists", (t) => {
    const lib = doublePathOrSkip(t);
    if (!lib) return;
    const { result, err } = select(childEnv(lib));
    assert.equal(result.backend, "gpu");
    assert.equal(result.again, "gpu");
    assert.deepEqual(result.gpus?.map((g) => [g.id, g.name, g.arch]), [[0, "CudaScript Test Double", "sm_80"]]);
    assert.match(result.description ?? "", /CudaScript Test Double \(sm_80\)/);
    assert.deepEqual(result.back, [1, 2, 3]);
    assert.equal(err, "", "nothing to explain");
  });

  it("auto: two devices are both listed in cuda.gpus", (t) => {
    const lib = doublePathOrSkip(t);
    if (!lib) return;
    const { result } = select(childEnv(lib, { CUDASCRIPT_DOUBLE_DEVICES: "2" }));
    assert.deepEqual(result.gpus?.map((g) => g.name), ["CudaScript Test Double", "CudaScript Test Double #1"]);
  });

  it("auto: the simulator when the driver library is absent, with the one-line notice once (cuda.backend says so)", () => {
    const { result, err } = select(childEnv(MISSING));
    assert.equal(result.backend, "simulator");
    assert.equal(result.choice?.description, "simulator (no CUDA driver found)");
    assert.match(result.choice?.reason ?? "", MISSING_REASON);
    assert.deepEqual(result.gpus?.map((g) => g.name), ["CudaScript simulator"]);
    assert.deepEqual(result.back, [1, 2, 3]);
    assert.equal(err, `${NO_DRIVER_NOTICE}\n`);
  });

  it("auto: the simulator when cuInit fails, with the reason printed once", (t) => {
    const lib = doublePathOrSkip(t);
    if (!lib) return;
    const { result, err } = select(childEnv(lib, { CUDASCRIPT_DOUBLE_INIT_RESULT: "CUDA_ERROR_NO_DEVICE" }));
    assert.equal(result.backend, "simulator");
    assert.equal(result.choice?.description, "simulator (CUDA driver found, but cuInit failed)");
    assert.equal(err, "cudascript: running on the simulator: cuInit failed with CUDA_ERROR_NO_DEVICE — cudascript doctor\n");
  });

  it("auto: the simulator when the driver reports no device, with the reason printed once", (t) => {
    const lib = doublePathOrSkip(t);
    if (!lib) return;
    const { result, err } = select(childEnv(lib, { CUDASCRIPT_DOUBLE_DEVICES: "0" }));
    assert.equal(result.backend, "simulator");
    assert.equal(occurrences(err, "reports no device"), 1, err);
  });

  it("CUDASCRIPT_BACKEND=gpu without a usable GPU fails at first use with CSR015 and the reason", (t) => {
    const lib = doublePathOrSkip(t);
    if (!lib) return;
    const a = select(childEnv(MISSING, { CUDASCRIPT_BACKEND: "gpu" })).result;
    assert.equal(a.code, "CSR015");
    assert.match(a.error ?? "", /needs an NVIDIA GPU and its CUDA driver, and no CUDA driver was found/);
    assert.match(a.error ?? "", /--backend simulator/);
    assert.doesNotMatch(a.error ?? "", /runs kernels in its CPU simulator instead/, "no false promise of a fallback");
    const b = select(childEnv(lib, { CUDASCRIPT_BACKEND: "gpu", CUDASCRIPT_DOUBLE_INIT_RESULT: "100" })).result;
    assert.equal(b.code, "CSR015");
    assert.match(b.error ?? "", /the CUDA driver was found, but cuInit failed with CUDA_ERROR_NO_DEVICE/);
    assert.match(b.error ?? "", /nvidia-smi/);
  });

  it("CUDASCRIPT_BACKEND=simulator never touches the driver", (t) => {
    const lib = doublePathOrSkip(t);
    if (!lib) return;
    const log = logFile();
    try {
      const { result } = select(childEnv(lib, { CUDASCRIPT_BACKEND: "simulator", CUDASCRIPT_DOUBLE_LOG: log.file }));
      assert.equal(result.backend, "simulator");
      assert.deepEqual(log.read(), [], "no driver call at all");
    } finally {
      log.cleanup();
    }
  });

  it("CUDASCRIPT_BACKEND=gpu: cuda.pinnedArray is page-locked memory from the first call", (t) => {
    const lib = doublePathOrSkip(t);
    if (!lib) return;
    const log = logFile();
    try {
      const { result } = select(childEnv(lib, { CUDASCRIPT_BACKEND: "gpu", CUDASCRIPT_DOUBLE_LOG: log.file }));
      assert.equal(result.backend, "gpu");
      assert.equal(result.pinnedLength, 4);
      assert.equal(log.read().filter((e) => e.call === "cuMemHostAlloc").length, 1);
    } finally {
      log.cleanup();
    }
  });
});

describe("cudascript run --backend (libcuda TEST DOUBLE)", () => {
  it("auto runs the program on the GPU when there is one: kernels launched, pinned memory from the first line", (t) => {
    const lib = doublePathOrSkip(t);
    if (!lib) return;
    const log = logFile();
    try {
      const r = runCli(["run", PROGRAM], childEnv(lib, { CUDASCRIPT_DOUBLE_LOG: log.file }));
      assert.equal(r.code, 0, r.all);
      assert.match(r.err, /running test\/gpu\/fixtures\/backend-probe\.ts on the GPU 0: CudaScript Test Double \(sm_80, CUDA 13\.0\) \[libcuda TEST DOUBLE\]/);
      const out = JSON.parse(r.out.trim().split("\n").pop()!) as { backend: string; gpus: string[]; out: number[] };
      assert.equal(out.backend, "gpu");
      assert.deepEqual(out.gpus, ["CudaScript Test Double"]);
      assert.deepEqual(out.out, [1, 2, 3, 4], "the double runs no kernel: the data came back unchanged");
      const calls = log.read();
      const launches = calls.filter((e) => e.call === "cuLaunchKernel");
      assert.equal(launches.length, 1);
      assert.equal(launches[0]!.function, "fill");
      assert.equal((launches[0]!.params as string[])[2], "00004040", "v = 3.0f");
      assert.equal(calls.filter((e) => e.call === "cuMemHostAlloc").length, 1, "cuda.pinnedArray on the program's first line is pinned");
      assert.equal(calls.find((e) => e.call === "cuMemcpyHtoDAsync_v2")?.pinned, true);
    } finally {
      log.cleanup();
    }
  });

  it("auto falls back to the simulator when cuInit fails, printing the reason once", (t) => {
    const lib = doublePathOrSkip(t);
    if (!lib) return;
    const r = runCli(["run", PROGRAM], childEnv(lib, { CUDASCRIPT_DOUBLE_INIT_RESULT: "100" }));
    assert.equal(r.code, 0, r.all);
    assert.equal(r.err, "cudascript: running on the simulator: cuInit failed with CUDA_ERROR_NO_DEVICE — cudascript doctor\n", "the notice every runner prints, once");
    const out = JSON.parse(r.out.trim().split("\n").pop()!) as { backend: string; out: number[] };
    assert.equal(out.backend, "simulator");
    assert.deepEqual(out.out, [3, 3, 3, 3], "the simulator ran the kernel");
  });

  it("auto falls back to the simulator when the driver library is absent, printing the reason once", () => {
    const r = runCli(["run", PROGRAM], childEnv(MISSING));
    assert.equal(r.code, 0, r.all);
    assert.equal(r.err, `${NO_DRIVER_NOTICE}\n`, "the notice every runner prints, once");
  });

  it("--backend gpu without a GPU fails before building, with the reason", (t) => {
    const lib = doublePathOrSkip(t);
    if (!lib) return;
    const r = runCli(["run", "--backend", "gpu", PROGRAM], childEnv(lib, { CUDASCRIPT_DOUBLE_DEVICES: "0" }));
    assert.equal(r.code, 1, r.all);
    assert.match(r.err, /--backend gpu: CSR015: .*the CUDA driver was found, but it reports no CUDA device/);
    assert.equal(r.out, "");
  });

  it("--backend simulator and --sanitize stay on the simulator; --sanitize with --backend gpu is a usage error", (t) => {
    const lib = doublePathOrSkip(t);
    if (!lib) return;
    const log = logFile();
    try {
      const r = runCli(["run", "--backend", "simulator", PROGRAM], childEnv(lib, { CUDASCRIPT_DOUBLE_LOG: log.file }));
      assert.equal(r.code, 0, r.all);
      assert.match(r.err, /on the simulator$/m);
      assert.deepEqual(log.read(), [], "the driver was not even initialised");
      const s = runCli(["run", "--sanitize", PROGRAM], childEnv(lib));
      assert.equal(s.code, 0, s.all);
      assert.match(s.err, /on the simulator \(--sanitize\), sanitizer on/);
      assert.equal(runCli(["run", "--sanitize", "--backend", "gpu", PROGRAM], childEnv(lib)).code, 2);
    } finally {
      log.cleanup();
    }
  });

  it("CUDASCRIPT_BACKEND applies when --backend is not given", (t) => {
    const lib = doublePathOrSkip(t);
    if (!lib) return;
    const r = runCli(["run", PROGRAM], childEnv(lib, { CUDASCRIPT_BACKEND: "simulator" }));
    assert.equal(r.code, 0, r.all);
    assert.match(r.err, /on the simulator$/m);
  });
});
