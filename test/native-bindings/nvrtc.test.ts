// NVRTC through the koffi binding, checked against standalone ptxas where one is installed.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { assemblePtx, loadNvrtc, parseKernelResources } from "@cudascript/native-bindings";
import { nvrtcOrSkip, ptxasOrSkip } from "../support/toolchain-or-skip";

const KERNELS = `
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void reduceSum(const float* in, float* out, int n) {
  __shared__ float partial[256];
  int t = threadIdx.x;
  int i = blockIdx.x * 256 + t;
  partial[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int stride = 128; stride > 0; stride >>= 1) {
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}
`;

test("NVRTC loads on this machine and reports its version and targets", (t) => {
  const nvrtc = nvrtcOrSkip(t);
  if (!nvrtc) return;
  const { info } = nvrtc;
  assert.ok(info.version.major >= 11, `version ${info.version.major}.${info.version.minor}`);
  assert.ok(info.supportedArchs.includes(80), `supported: ${info.supportedArchs.join(",")}`);
  assert.deepEqual(info.supportedArchs, [...info.supportedArchs].sort((a, b) => a - b));
  assert.ok(path.isAbsolute(info.path), info.path);
  if (info.path === "/usr/lib/x86_64-linux-gnu/libnvrtc.so.11.2") {
    // Debian's libnvrtc11.2 package (the project's CI image) is NVRTC 11.8.
    assert.deepEqual(info.version, { major: 11, minor: 8 });
    assert.ok(!info.supportedArchs.includes(91));
  }
  const again = loadNvrtc();
  assert.equal(again.ok && again.nvrtc, nvrtc, "loads are cached");
});

test("saxpy and a shared-memory reduction compile to PTX that ptxas assembles for sm_80 and sm_90", (t) => {
  const nvrtc = nvrtcOrSkip(t);
  if (!nvrtc) return;
  const result = nvrtc.compile({ source: KERNELS, name: "kernels.cu", options: ["--gpu-architecture=compute_80"] });
  assert.equal(result.ok, true, result.log);
  assert.equal(result.errorCode, undefined);
  const ptx = result.ptx ?? "";
  assert.match(ptx, /\.target sm_80/);
  assert.match(ptx, /\.visible \.entry saxpy\(/);
  assert.match(ptx, /\.visible \.entry reduceSum\(/);
  assert.match(ptx, /\.shared .*partial/);
  assert.ok(!ptx.endsWith("\0"));
  assert.equal(result.cubin, undefined);
  assert.ok(result.millis > 0);

  const ptxas = ptxasOrSkip(t);
  if (!ptxas) return;
  for (const arch of ["sm_80", "sm_90"]) {
    const run = assemblePtx(ptxas, ptx, arch);
    assert.equal(run.ok, true, `ptxas -arch=${arch}: ${run.stderr}`);
  }
});

test("NVRTC's ptxas report for sm_80 matches standalone ptxas -v on the same PTX", (t) => {
  const nvrtc = nvrtcOrSkip(t);
  if (!nvrtc) return;
  const real = nvrtc.compile({ source: KERNELS, name: "kernels.cu", options: ["--gpu-architecture=sm_80", "-Xptxas", "-v"], wantCubin: true });
  assert.equal(real.ok, true, real.log);
  const fromNvrtc = parseKernelResources(real.log);
  assert.deepEqual(fromNvrtc.map((k) => k.name).sort(), ["reduceSum", "saxpy"]);
  for (const k of fromNvrtc) {
    assert.equal(k.arch, "sm_80");
    assert.ok(k.registers > 0);
  }
  assert.equal(fromNvrtc.find((k) => k.name === "reduceSum")!.sharedBytes, 256 * 4);
  assert.equal(fromNvrtc.find((k) => k.name === "saxpy")!.sharedBytes, 0);
  const cubin = real.cubin;
  assert.ok(cubin && cubin.length > 0, "CUBIN for a real arch");
  assert.deepEqual([...cubin.subarray(0, 4)], [0x7f, 0x45, 0x4c, 0x46], "CUBIN is an ELF file");

  const ptxas = ptxasOrSkip(t);
  if (!ptxas) return;
  const virtual = nvrtc.compile({ source: KERNELS, name: "kernels.cu", options: ["--gpu-architecture=compute_80"] });
  assert.equal(virtual.ok, true, virtual.log);
  assert.equal(virtual.log, "", "no ptxas report for a virtual arch");
  const run = assemblePtx(ptxas, virtual.ptx!, "sm_80", ["-v"]);
  assert.equal(run.ok, true, run.stderr);
  const fromPtxas = parseKernelResources(run.stderr);
  const registers = (ks: typeof fromNvrtc) => Object.fromEntries(ks.map((k) => [k.name, k.registers]));
  assert.deepEqual(registers(fromNvrtc), registers(fromPtxas));
  const shared = (ks: typeof fromNvrtc) => Object.fromEntries(ks.map((k) => [k.name, k.sharedBytes]));
  assert.deepEqual(shared(fromNvrtc), shared(fromPtxas));
});

test("a compile error returns ok:false with the error line in the log", (t) => {
  const nvrtc = nvrtcOrSkip(t);
  if (!nvrtc) return;
  const source = 'extern "C" __global__ void broken(float* p) {\n  p[0] = 1.0f +;\n}\n';
  const result = nvrtc.compile({ source, name: "broken.cu", options: ["--gpu-architecture=compute_80"] });
  assert.equal(result.ok, false);
  assert.equal(result.errorCode, "NVRTC_ERROR_COMPILATION");
  assert.match(result.log, /broken\.cu\(2\): error: expected an expression/);
  assert.equal(result.ptx, undefined);
});

test("an invalid option or architecture returns ok:false, not an exception", (t) => {
  const nvrtc = nvrtcOrSkip(t);
  if (!nvrtc) return;
  for (const option of ["--no-such-option", "--gpu-architecture=compute_12"]) {
    const result = nvrtc.compile({ source: KERNELS, name: "kernels.cu", options: [option] });
    assert.equal(result.ok, false, option);
    assert.equal(result.errorCode, "NVRTC_ERROR_INVALID_OPTION", option);
    assert.match(result.log, /nvrtc: error/);
  }
});

test("compileAsync leaves the event loop free and gives the same PTX", async (t) => {
  const nvrtc = nvrtcOrSkip(t);
  if (!nvrtc) return;
  const request = { source: KERNELS, name: "kernels.cu", options: ["--gpu-architecture=compute_80"] };
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  const results = await Promise.all([nvrtc.compileAsync(request), nvrtc.compileAsync(request)]);
  clearInterval(timer);
  const sync = nvrtc.compile(request);
  for (const r of results) {
    assert.equal(r.ok, true, r.log);
    assert.equal(r.ptx, sync.ptx);
  }
  assert.ok(ticks > 0, "timers ran while compiling");
});

test("headers and name expressions: templates get their mangled names", (t) => {
  const nvrtc = nvrtcOrSkip(t);
  if (!nvrtc) return;
  const result = nvrtc.compile({
    source: '#include "scale.h"\ntemplate <typename T> __global__ void scale(T* p) { p[threadIdx.x] = times(p[threadIdx.x]); }\n',
    name: "templates.cu",
    options: ["--gpu-architecture=compute_80"],
    headers: [{ name: "scale.h", source: "template <typename T> __device__ T times(T x) { return x * 2; }\n" }],
    nameExpressions: ["scale<float>", "scale<int>"],
  });
  assert.equal(result.ok, true, result.log);
  assert.deepEqual(result.loweredNames, { "scale<float>": "_Z5scaleIfEvPT_", "scale<int>": "_Z5scaleIiEvPT_" });
  assert.match(result.ptx!, /\.entry _Z5scaleIfEvPT_/);
});

test("a bogus path gives CSN001 with what to install and why it failed, without throwing", () => {
  const load = loadNvrtc({ path: "/definitely/not/here/libnvrtc.so.12" });
  assert.equal(load.ok, false);
  if (load.ok) return;
  assert.equal(load.error.code, "CSN001");
  assert.ok(load.error instanceof Error);
  assert.deepEqual(load.error.attempts, [
    { place: "/definitely/not/here/libnvrtc.so.12", reason: "path given to loadNvrtc", failure: "file does not exist" },
  ]);
  assert.match(load.error.message, /^CSN001: /);
  assert.match(load.error.message, /non-free/);
  assert.match(load.error.message, /apt-get install libnvrtc11\.2/);
  assert.match(load.error.message, /pip install nvidia-cuda-nvrtc-cu12/);
  assert.match(load.error.message, /CUDASCRIPT_NVRTC/);
  assert.match(load.error.message, /\/definitely\/not\/here\/libnvrtc\.so\.12 \(path given to loadNvrtc\): file does not exist/);
});

test("a file that is not a shared library, or not NVRTC, is rejected with the reason", (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cudascript-nvrtc-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const fake = path.join(dir, "libnvrtc.so.12");
  fs.writeFileSync(fake, "this is text, not ELF");
  const notElf = loadNvrtc({ path: fake });
  assert.equal(notElf.ok, false);
  if (!notElf.ok) assert.match(notElf.error.attempts[0]!.failure, /^could not be loaded: /);

  const zlib = ["/usr/lib/x86_64-linux-gnu/libz.so.1", "/lib/x86_64-linux-gnu/libz.so.1", "/usr/lib64/libz.so.1"].find((p) => fs.existsSync(p));
  if (zlib) {
    const wrong = loadNvrtc({ path: zlib });
    assert.equal(wrong.ok, false);
    if (!wrong.ok) assert.match(wrong.error.attempts[0]!.failure, /^not an NVRTC library: /);
  }
});

test("when discovery finds nothing, every place looked at is listed", (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cudascript-nvrtc-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const load = loadNvrtc({
    discovery: {
      env: { CUDA_HOME: path.join(dir, "cuda") },
      systemRoot: dir,
      homeDir: dir,
      includeLoaderSearch: false,
      pythonSitePackages: () => {
        throw new Error("python3 timed out");
      },
    },
  });
  assert.equal(load.ok, false);
  if (load.ok) return;
  assert.equal(load.error.code, "CSN001");
  assert.deepEqual(
    load.error.attempts.map((a) => a.failure),
    ["directory does not exist", "python3 timed out"],
  );
});

test("a CUDASCRIPT_NVRTC that does not load is an error naming it, even where another NVRTC would be found", (t) => {
  if (!nvrtcOrSkip(t)) return; // so that discovery would find the system NVRTC to fall back on
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cudascript-nvrtc-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const notElf = path.join(dir, "libnvrtc.so.12");
  fs.writeFileSync(notElf, "this is text, not ELF");
  fs.mkdirSync(path.join(dir, "empty-folder"));
  for (const [value, failure] of [
    [path.join(dir, "missing", "libnvrtc.so.12"), /file does not exist/],
    [notElf, /could not be loaded/],
    [path.join(dir, "empty-folder"), /no NVRTC library in this directory/],
  ] as const) {
    const load = loadNvrtc({ discovery: { env: { ...process.env, CUDASCRIPT_NVRTC: value } } });
    assert.equal(load.ok, false, `${value} must not fall back to ${load.ok ? load.nvrtc.info.path : ""}`);
    if (load.ok) continue;
    assert.equal(load.error.code, "CSN001");
    assert.ok(load.error.message.startsWith(`CSN001: CUDASCRIPT_NVRTC is set to ${value}, which is not a working NVRTC library`), load.error.message);
    assert.match(load.error.message, /unset it to let CudaScript find NVRTC itself/);
    assert.deepEqual(load.error.attempts.map((a) => a.reason), ["environment variable CUDASCRIPT_NVRTC"]);
    assert.match(load.error.attempts[0]!.failure, failure);
  }
});

test("an explicit library path that does not load is an error naming it", () => {
  const load = loadNvrtc({ path: "/definitely/not/here/libnvrtc.so.12" });
  assert.equal(load.ok, false);
  if (!load.ok) assert.match(load.error.message, /^CSN001: The NVRTC library \/definitely\/not\/here\/libnvrtc\.so\.12 that was asked for .* could not be used \(file does not exist\)/);
});
