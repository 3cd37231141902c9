// The CUresult table, the sticky-error set and the enum values, checked against the installed
// cuda.h (the CUDA toolkit's driver-API header). No driver or GPU is needed.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { CU_DEVICE_ATTRIBUTE, CU_EVENT, CU_FUNC_ATTRIBUTE, CU_JIT, CU_LIMIT, CU_MEMHOSTALLOC, CU_STREAM } from "./constants";
import { CU_RESULTS, STICKY_CU_RESULTS, cuResultName, cuResultNumber, isStickyCuResult } from "./results";

/** cuda.h from $CUDA_PATH, $CUDA_HOME or /usr/local/cuda; undefined (test skipped) without one. */
function cudaHeaderOrSkip(t: TestContext): string | undefined {
  const roots = [process.env.CUDA_PATH, process.env.CUDA_HOME, "/usr/local/cuda"].filter((r): r is string => !!r);
  for (const root of roots) {
    const file = path.join(root, "include", "cuda.h");
    if (fs.existsSync(file)) return fs.readFileSync(file, "utf8");
  }
  const why = `no cuda.h in ${roots.map((r) => path.join(r, "include")).join(", ")} (install the CUDA Toolkit)`;
  if (process.env.CUDASCRIPT_REQUIRE_CUDA_HEADER === "1") throw new Error(`CUDASCRIPT_REQUIRE_CUDA_HEADER=1 but ${why}`);
  console.warn(`\n*** SKIPPING "${t.name}": ${why}\n`);
  t.skip(why);
  return undefined;
}

interface HeaderResult {
  name: string;
  value: number;
  doc: string;
}

function headerResults(header: string): HeaderResult[] {
  const body = /typedef enum cudaError_enum \{([\s\S]*?)\}\s*CUresult;/.exec(header)?.[1];
  assert.ok(body, "cuda.h has no CUresult enum");
  const results: HeaderResult[] = [];
  const item = /\/\*\*([\s\S]*?)\*\/\s*(CUDA_[A-Z0-9_]+)\s*=\s*(\d+)/g;
  for (let m = item.exec(body); m; m = item.exec(body)) {
    const doc = (m[1] ?? "").replace(/^\s*\*/gm, " ").replace(/\s+/g, " ").trim();
    results.push({ name: m[2] ?? "", value: Number(m[3]), doc });
  }
  // Every enumerator must have been matched (none without a doc comment slipped through).
  const enumerators = body.replace(/\/\*[\s\S]*?\*\//g, "").match(/CUDA_[A-Z0-9_]+\s*=/g) ?? [];
  assert.equal(results.length, enumerators.length, "every CUresult in cuda.h was parsed");
  return results;
}

function headerEnum(header: string, tag: string): Map<string, number> {
  const body = new RegExp(`typedef enum ${tag}\\s*\\{([\\s\\S]*?)\\}`).exec(header)?.[1];
  assert.ok(body, `cuda.h has no enum ${tag}`);
  const values = new Map<string, number>();
  const clean = body.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/[^\n]*/g, "");
  for (const m of clean.matchAll(/([A-Z0-9_]+)\s*=\s*(0x[0-9a-fA-F]+|\d+)/g)) values.set(m[1] ?? "", Number(m[2]));
  return values;
}

test("every CUresult in cuda.h is in the table with its number and name, and nothing else is", (t) => {
  const header = cudaHeaderOrSkip(t);
  if (!header) return;
  const fromHeader = headerResults(header);
  assert.ok(fromHeader.length >= 100, `${fromHeader.length} CUresults`);
  assert.deepEqual(
    CU_RESULTS.map(([value, name]) => [value, name]),
    fromHeader.map((r) => [r.value, r.name]),
  );
  for (const r of fromHeader) {
    assert.equal(cuResultName(r.value), r.name);
    assert.equal(cuResultNumber(r.name), r.value);
  }
  assert.equal(cuResultName(123456), undefined);
});

test("the sticky errors are exactly those cuda.h says corrupt the context or the process", (t) => {
  const header = cudaHeaderOrSkip(t);
  if (!header) return;
  const sticky = headerResults(header)
    .filter((r) => /inconsistent state|must be terminated and relaunched|context cannot be used/.test(r.doc))
    .map((r) => r.value)
    .sort((a, b) => a - b);
  assert.deepEqual([...STICKY_CU_RESULTS].sort((a, b) => a - b), sticky);
  for (const name of ["CUDA_ERROR_ILLEGAL_ADDRESS", "CUDA_ERROR_MISALIGNED_ADDRESS", "CUDA_ERROR_LAUNCH_FAILED", "CUDA_ERROR_ILLEGAL_INSTRUCTION", "CUDA_ERROR_HARDWARE_STACK_ERROR", "CUDA_ERROR_LAUNCH_TIMEOUT", "CUDA_ERROR_ASSERT"]) {
    assert.ok(isStickyCuResult(cuResultNumber(name) ?? -1), name);
  }
  for (const name of ["CUDA_ERROR_INVALID_VALUE", "CUDA_ERROR_OUT_OF_MEMORY", "CUDA_ERROR_INVALID_PTX", "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "CUDA_ERROR_NOT_FOUND"]) {
    assert.ok(!isStickyCuResult(cuResultNumber(name) ?? -1), name);
  }
});

test("device attribute, function attribute, JIT option, stream, event and host-alloc values match cuda.h", (t) => {
  const header = cudaHeaderOrSkip(t);
  if (!header) return;
  const check = (tag: string, prefix: string, table: Record<string, number>) => {
    const values = headerEnum(header, tag);
    for (const [key, value] of Object.entries(table)) assert.equal(values.get(`${prefix}${key}`), value, `${prefix}${key}`);
  };
  check("CUdevice_attribute_enum", "CU_DEVICE_ATTRIBUTE_", CU_DEVICE_ATTRIBUTE);
  check("CUfunction_attribute_enum", "CU_FUNC_ATTRIBUTE_", CU_FUNC_ATTRIBUTE);
  check("CUjit_option_enum", "CU_JIT_", CU_JIT);
  check("CUstream_flags_enum", "CU_STREAM_", CU_STREAM);
  check("CUevent_flags_enum", "CU_EVENT_", CU_EVENT);
  check("CUlimit_enum", "CU_LIMIT_", CU_LIMIT);
  for (const [key, value] of Object.entries(CU_MEMHOSTALLOC)) {
    const m = new RegExp(`#define CU_MEMHOSTALLOC_${key}\\s+(0x[0-9a-fA-F]+)`).exec(header);
    assert.equal(Number(m?.[1]), value, `CU_MEMHOSTALLOC_${key}`);
  }
});

test("the versioned symbols the bindings use are the ones cuda.h maps the API names to", (t) => {
  const header = cudaHeaderOrSkip(t);
  if (!header) return;
  const mapped = (name: string) => {
    const m = new RegExp(`#define ${name}\\s+(?:__CUDA_API_PT(?:DS|SZ)\\()?(\\w+)`).exec(header);
    return m?.[1] ?? name;
  };
  const expected: Record<string, string> = {
    cuDeviceTotalMem: "cuDeviceTotalMem_v2",
    cuDevicePrimaryCtxRelease: "cuDevicePrimaryCtxRelease_v2",
    cuMemAlloc: "cuMemAlloc_v2",
    cuMemFree: "cuMemFree_v2",
    cuMemcpyHtoD: "cuMemcpyHtoD_v2",
    cuMemcpyDtoH: "cuMemcpyDtoH_v2",
    cuMemcpyHtoDAsync: "cuMemcpyHtoDAsync_v2",
    cuMemcpyDtoHAsync: "cuMemcpyDtoHAsync_v2",
    cuMemsetD8: "cuMemsetD8_v2",
    cuStreamDestroy: "cuStreamDestroy_v2",
    cuEventDestroy: "cuEventDestroy_v2",
    cuEventElapsedTime: "cuEventElapsedTime_v2",
  };
  for (const [api, symbol] of Object.entries(expected)) assert.equal(mapped(api), symbol, api);
  // These have no versioned variant: the plain name is the symbol.
  for (const api of ["cuInit", "cuDeviceGetAttribute", "cuDevicePrimaryCtxRetain", "cuCtxSetCurrent", "cuModuleLoadDataEx", "cuLaunchKernel", "cuMemHostAlloc", "cuFuncSetAttribute"]) {
    assert.equal(mapped(api), api, api);
  }
});
