// The ptxas report parser on recorded real reports (see resources.fixtures.ts) and edge cases.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseKernelResources, parsePtxasReport, type KernelResources } from "./resources";
import { NVRTC_11_8_SM80_LOG, PTXAS_13_SM80_MAXRREG32_STDERR, PTXAS_13_SM90_STDERR } from "./resources.fixtures";

function byName(kernels: KernelResources[]): Record<string, KernelResources> {
  return Object.fromEntries(kernels.map((k) => [k.name, k]));
}

test("NVRTC 11.8 program log (-Xptxas -v, sm_80)", () => {
  const report = parsePtxasReport(NVRTC_11_8_SM80_LOG);
  assert.equal(report.globalBytes, 0);
  assert.deepEqual(report.moduleConstBytes, { 3: 256 }); // the __constant__ float[64]
  const k = byName(report.kernels);
  assert.deepEqual(Object.keys(k), ["dynlocal", "spill", "withcall", "reduce", "saxpy"]); // not _Z6helperPfi
  assert.deepEqual(k.saxpy, {
    name: "saxpy",
    arch: "sm_80",
    registers: 10,
    sharedBytes: 0,
    constBytes: 380,
    localBytes: 0,
    spillStores: 0,
    spillLoads: 0,
  });
  assert.deepEqual(k.reduce, { ...k.saxpy, name: "reduce", registers: 12, sharedBytes: 1024, constBytes: 372 });
  assert.deepEqual(
    [k.spill!.registers, k.spill!.localBytes, k.spill!.spillStores, k.spill!.spillLoads],
    [64, 320, 136, 140],
  );
  // The callee's frame ("Function properties for _Z6helperPfi", after the kernel) must not
  // overwrite the kernel's own 128-byte frame.
  assert.equal(k.withcall!.localBytes, 128);
  assert.equal(k.withcall!.barriers, undefined);
});

test("ptxas 13 stderr (sm_80, --maxrregcount=32): barriers, cumulative stack, compile time", () => {
  const report = parsePtxasReport(PTXAS_13_SM80_MAXRREG32_STDERR);
  assert.deepEqual(report.moduleConstBytes, { 3: 256 });
  const k = byName(report.kernels);
  assert.deepEqual(Object.keys(k), ["dynlocal", "spill", "withcall", "reduce", "saxpy"]);
  assert.equal(k.reduce!.registers, 12);
  assert.equal(k.reduce!.barriers, 1);
  assert.equal(k.reduce!.sharedBytes, 1024);
  assert.equal(k.reduce!.constBytes, 372);
  assert.equal(k.saxpy!.barriers, 0);
  assert.equal(k.withcall!.registers, 32); // capped by --maxrregcount
  assert.equal(k.withcall!.cumulativeStackBytes, 128);
  assert.equal(k.spill!.cumulativeStackBytes, 320);
  assert.equal(k.spill!.spillStores, 136);
  assert.equal(k.saxpy!.cumulativeStackBytes, undefined);
  for (const kernel of report.kernels) {
    assert.equal(typeof kernel.compileMillis, "number");
    assert.ok(kernel.compileMillis! > 0);
  }
});

test("ptxas 13 stderr for sm_90 has no cmem[0]: constBytes stays 0", () => {
  const k = byName(parseKernelResources(PTXAS_13_SM90_STDERR));
  assert.equal(k.saxpy!.arch, "sm_90");
  assert.equal(k.saxpy!.registers, 10);
  assert.equal(k.saxpy!.constBytes, 0);
  assert.equal(k.reduce!.sharedBytes, 1024);
  assert.equal(k.withcall!.registers, 40);
});

test("items after the register count are optional; other lines are ignored", () => {
  const log = [
    "ptxas info    : Overriding maximum register limit 256 for 'k' with  32 of maxrregcount option",
    "ptxas info    : Compiling entry function 'k' for 'sm_75'",
    "ptxas info    : Used 7 registers",
    "ptxas warning : Registers are spilled to local memory in function 'k2', 8 bytes spill stores, 8 bytes spill loads",
    "ptxas info    : Compiling entry function '_Z2k2Pf' for 'sm_75'\r",
    "ptxas info    : Function properties for _Z2k2Pf\r",
    "ptxas         .     16 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\r",
    "ptxas info    : Used 255 registers, 36+16 bytes smem, 8 bytes lmem, 64 bytes cmem[0], 4 bytes cmem[2], 1 textures\r",
    "ptxas info    : Compiling entry function 'noUsedLine' for 'sm_75'",
  ].join("\n");
  assert.deepEqual(parseKernelResources(log), [
    { name: "k", arch: "sm_75", registers: 7, sharedBytes: 0, constBytes: 0, localBytes: 0, spillStores: 0, spillLoads: 0 },
    { name: "_Z2k2Pf", arch: "sm_75", registers: 255, sharedBytes: 52, constBytes: 64, localBytes: 16, spillStores: 8, spillLoads: 8 },
  ]);
});

test("an empty log (virtual arch, or no -v) has no kernels", () => {
  assert.deepEqual(parsePtxasReport(""), { kernels: [], moduleConstBytes: {} });
});
