// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver: nothing runs on a
// GPU. Proves that the GPU backend packs every parameter kind exactly per the compiler's ABI
// (docs/abi.md): the bytes the "driver" copied for each parameter of each launch (its call log, at the
// sizes the PTX `.entry` declares) equal, C parameter by C parameter, the generated kernel's cParams
// filled with the launch's values — scalars of every dtype little-endian at their C size, 1-D arrays
// as device pointer + int length, 2-D/3-D arrays as pointer + int extents, bool arrays as bytes.
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { generateCuda, type CudaKernel } from "@cudascript/compiler";
import { parsePtx, type PtxEntry } from "@cudascript/native-bindings/cuda";
import type { DoubleLogEntry } from "../driver-double/test-double";
import { cuda, f16, f16round, f32, f64, Float16Array } from "cudascript";
import type { GpuBuffer } from "cudascript/dist/gpu/backend";
import { ArgPlan, parseCParam } from "cudascript/dist/gpu/abi";
import { gpuOnDouble, hex, kernel, kindsArtifact, leHex } from "./helpers";
import { throwsCode } from "../simulator/helpers";

type DeviceArray = ReturnType<typeof cuda.toDevice>;

/** What each C parameter of a launch must hold, from the generated kernel's cParams. */
function expectedParams(k: CudaKernel, values: readonly unknown[]): { decl: string; hex: string }[] {
  const out: { decl: string; hex: string }[] = [];
  k.params.forEach((p, i) => {
    const v = values[i];
    if (p.kind === "scalar") {
      const c = parseCParam(p.cParams[0]!)!;
      out.push({ decl: p.cParams[0]!, hex: leHex(c.type, v as number | boolean) });
      return;
    }
    const d = v as DeviceArray;
    out.push({ decl: p.cParams[0]!, hex: leHex("pointer", ((d as unknown as { buffer: GpuBuffer }).buffer).pointer) });
    // A 1-D array: its length; N-D: the extents, then the element strides (docs/abi.md).
    const extents = p.rank === 1 ? [d.size] : [...d.shape, ...d.strides.map((s) => s / d.dtype.bytes)];
    p.cParams.slice(1).forEach((decl, j) => out.push({ decl, hex: leHex("int", extents[j]!) }));
  });
  return out;
}

const PTX_TYPE_FOR_C: Record<string, string[]> = {
  float: [".f32"],
  double: [".f64"],
  int: [".u32", ".s32", ".b32"],
  unsigned: [".u32", ".b32"],
  short: [".u16", ".s16", ".b16"],
  "unsigned short": [".u16", ".b16"],
  "signed char": [".u8", ".s8", ".b8"],
  "unsigned char": [".u8", ".b8"],
  bool: [".u8", ".s8", ".b8"],
  "long long": [".u64", ".s64", ".b64"],
  "unsigned long long": [".u64", ".b64"],
  cs_half: [".b8"], // a 2-byte struct: `.param .align 2 .b8 name[2]`
};

function checkLaunch(launch: DoubleLogEntry, k: CudaKernel, entry: PtxEntry, values: readonly unknown[]): void {
  const params = launch.params as string[];
  const expected = expectedParams(k, values);
  const decls = k.params.flatMap((p) => p.cParams);
  assert.deepEqual(expected.map((e) => e.decl), decls, "one kernelParams entry per C parameter, in cParams order");
  assert.equal(params.length, decls.length, `${k.name}: ${params.length} parameters recorded for ${decls.length} C parameters`);
  assert.equal(entry.params.length, decls.length, `${k.name}: the PTX entry has one .param per C parameter`);
  decls.forEach((decl, i) => {
    const c = parseCParam(decl)!;
    const ptx = entry.params[i]!;
    assert.equal(params[i]!.length / 2, ptx.size, `${k.name} ${decl}: the driver copied the PTX parameter's ${ptx.size} bytes`);
    if (c.pointer) assert.equal(ptx.type, ".u64", `${decl} is a 64-bit address in the PTX`);
    else assert.ok(PTX_TYPE_FOR_C[c.type]?.includes(ptx.type), `${decl} is ${ptx.type} in the PTX`);
    assert.equal(params[i], expected[i]!.hex, `${k.name} parameter ${i} '${decl}'`);
  });
}

function loadedPtx(double: NonNullable<ReturnType<typeof gpuOnDouble>>["double"]): ReturnType<typeof parsePtx> {
  const loads = double.calls("cuModuleLoadDataEx");
  assert.equal(loads.length, 1, "the artifact's kernels were loaded as one module");
  return parsePtx(loads[0]!.ptx as string);
}

describe("GPU backend argument packing (libcuda TEST DOUBLE)", () => {
  const artifact = kindsArtifact();
  const gen = generateCuda(artifact.ir!);
  const kernelOf = (name: string) => gen.kernels.find((k) => k.name === name)!;

  it("packs f32/f64/i32/u32/i16/u16/i8/u8/bool scalars at their C sizes, little-endian", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const out = cuda.deviceArray(1, f64);
    const cases: unknown[][] = [
      [1.5, Math.PI, -7, 4000000000, -12345, 65535, -128, 255, true],
      [-0, -1e300, 2147483647, 0, 32767, 0, 127, 0, false],
      [3.4028234663852886e38, Number.MIN_VALUE, -2147483648, 1, -32768, 1, -1, 128, 1],
      [0.1, NaN, 0, 4294967295, 0, 40000, 0, 1, 0],
    ];
    const k = kernel(artifact, "scalars");
    for (const values of cases) k.launch(1, 1)(...values, out);
    const ptx = loadedPtx(double);
    const entry = ptx.entries.find((e) => e.name === kernelOf("scalars").symbol)!;
    const launches = double.calls("cuLaunchKernel");
    assert.equal(launches.length, cases.length);
    cases.forEach((values, i) => {
      // f32 arguments are rounded to f32 by the host API; bool 1/0 mean true/false.
      const v = values.map((x, j) => (j === 0 ? Math.fround(x as number) : j === 8 ? x === true || x === 1 : x));
      checkLaunch(launches[i]!, kernelOf("scalars"), entry, [...v, out]);
    });
    // Spot-check a few byte patterns by hand, independent of the helpers.
    const first = launches[0]!.params as string[];
    assert.equal(first[0], "0000c03f", "1.5f");
    assert.equal(first[1], "182d4454fb210940", "π as a double");
    assert.equal(first[2], "f9ffffff", "-7 as int");
    assert.equal(first[3], "00286bee", "4000000000 as unsigned");
    assert.equal(first[4], "c7cf", "-12345 as short");
    assert.equal(first[5], "ffff", "65535 as unsigned short");
    assert.equal(first[6], "80", "-128 as signed char");
    assert.equal(first[7], "ff", "255 as unsigned char");
    assert.equal(first[8], "01", "true as bool");
    assert.equal(first[10], "01000000", "out_len = 1");
    out.free();
  });

  it("packs 1-D arrays of every dtype as device pointer + int length", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const n = 37;
    const arrays = [
      cuda.toDevice(new Float32Array(n)),
      cuda.toDevice(new Float64Array(n)),
      cuda.toDevice(new Int32Array(n)),
      cuda.toDevice(new Uint32Array(n)),
      cuda.toDevice(new Int16Array(n)),
      cuda.toDevice(new Uint16Array(n)),
      cuda.toDevice(new Int8Array(n)),
      cuda.toDevice(new Uint8Array(n)),
    ];
    kernel(artifact, "arrays1d").launch(2, 32)(...arrays);
    const allocs = double.calls("cuMemAlloc_v2");
    const entry = loadedPtx(double).entries.find((e) => e.name === "arrays1d")!;
    const [launch] = double.calls("cuLaunchKernel");
    checkLaunch(launch!, kernelOf("arrays1d"), entry, arrays);
    // The pointers are the allocations the driver handed out, in argument order.
    const params = launch!.params as string[];
    arrays.forEach((_, i) => {
      const ptr = Buffer.from(params[2 * i]!, "hex").readBigUInt64LE();
      assert.equal(hex(ptr), allocs[i]!.dptr, `argument ${i} points at its allocation`);
      assert.equal(allocs[i]!.bytes, n * [4, 8, 4, 4, 2, 2, 1, 1][i]!, `argument ${i}: ${n} elements`);
    });
    assert.deepEqual(launch!.grid, [2, 1, 1]);
    assert.deepEqual(launch!.block, [32, 1, 1]);
    for (const a of arrays) a.free();
  });

  it("packs 2-D and 3-D arrays as pointer + one int extent and one int element stride per dimension; bool arrays are byte pointers", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const m = cuda.toDevice(cuda.ndarray(new Float32Array(6 * 7), [6, 7]));
    const v = cuda.toDevice(cuda.ndarray(new Int32Array(2 * 3 * 5), [2, 3, 5]));
    const flags = cuda.toDevice(new Uint8Array([1, 0, 1]));
    kernel(artifact, "ndarrays").launch([1, 1], [8, 8])(m, v, 0.25, flags);
    const entry = loadedPtx(double).entries.find((e) => e.name === "ndarrays")!;
    const [launch] = double.calls("cuLaunchKernel");
    checkLaunch(launch!, kernelOf("ndarrays"), entry, [m, v, 0.25, flags]);
    const p = launch!.params as string[];
    assert.deepEqual(p.slice(1, 3), ["06000000", "07000000"], "m_shape0 = 6, m_shape1 = 7");
    assert.deepEqual(p.slice(3, 5), ["07000000", "01000000"], "m_stride0 = 7, m_stride1 = 1 (elements, C order)");
    assert.deepEqual(p.slice(6, 9), ["02000000", "03000000", "05000000"], "v_shape0..2 = 2, 3, 5");
    assert.deepEqual(p.slice(9, 12), ["0f000000", "05000000", "01000000"], "v_stride0..2 = 15, 5, 1");
    assert.equal(p[12], "0000803e", "scale = 0.25f");
    assert.equal(p[14], "03000000", "flags_len = 3");
    assert.deepEqual(launch!.block, [8, 8, 1]);
    for (const a of [m, v, flags]) a.free();
  });

  it("a device-array view (slice, row, reshape) is its base's pointer + byte offset with the view's extents; its copies start there", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const base = cuda.toDevice(cuda.ndarray(new Float32Array(6 * 7), [6, 7]));
    const grid = cuda.toDevice(cuda.ndarray(new Int32Array(2 * 3 * 5), [2, 3, 5]));
    const flags = cuda.toDevice(new Uint8Array([1, 0, 1, 1]));
    const basePtr = (base as unknown as { buffer: GpuBuffer }).buffer.pointer;
    const gridPtr = (grid as unknown as { buffer: GpuBuffer }).buffer.pointer;
    const flagsPtr = (flags as unknown as { buffer: GpuBuffer }).buffer.pointer;
    // rows 2..5 of m; the second 3×5 plane of v reshaped to 5×3 then taken as 1×5×3; flags from 1.
    kernel(artifact, "ndarrays").launch([1, 1], [8, 8])(base.slice(2, 5), grid.row(1).reshape(1, 5, 3), 0.5, flags.slice(1));
    const [launch] = double.calls("cuLaunchKernel");
    const p = launch!.params as string[];
    const ptr = (i: number) => Buffer.from(p[i]!, "hex").readBigUInt64LE();
    assert.equal(ptr(0), basePtr + BigInt(2 * 7 * 4), "m starts at row 2: 2 × 7 f32 past the base");
    assert.deepEqual(p.slice(1, 3), ["03000000", "07000000"], "m is 3 × 7");
    assert.deepEqual(p.slice(3, 5), ["07000000", "01000000"], "with its base's strides 7, 1");
    assert.equal(ptr(5), gridPtr + BigInt(3 * 5 * 4), "v starts at plane 1: 3 × 5 i32 past the base");
    assert.deepEqual(p.slice(6, 9), ["01000000", "05000000", "03000000"], "v is 1 × 5 × 3");
    assert.deepEqual(p.slice(9, 12), ["0f000000", "03000000", "01000000"], "C-order strides of 1 × 5 × 3");
    assert.equal(ptr(13), flagsPtr + 1n, "flags from element 1");
    assert.equal(p[14], "03000000", "flags_len = 3");
    double.clearLog();
    base.slice(4).copyToHost(new Float32Array(2 * 7));
    base.row(1).copyToDevice(new Float32Array(7));
    const copies = double.log().filter((e) => e.call === "cuMemcpyDtoH_v2" || e.call === "cuMemcpyHtoD_v2");
    assert.deepEqual(
      copies.map((c) => [c.call, c.call === "cuMemcpyDtoH_v2" ? c.src : c.dst, c.bytes]),
      [
        ["cuMemcpyDtoH_v2", hex(basePtr + BigInt(4 * 7 * 4)), 2 * 7 * 4],
        ["cuMemcpyHtoD_v2", hex(basePtr + BigInt(7 * 4)), 7 * 4],
      ],
    );
    for (const a of [base, grid, flags]) a.free();
  });

  it("an F-order device array and a transposed view are packed with their own element strides; a strided 1-D view is CSR059", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const f = cuda.deviceArray([6, 7], f32, { order: "F" });
    const grid = cuda.toDevice(cuda.ndarray(new Int32Array(2 * 3 * 5), [2, 3, 5]));
    const flags = cuda.toDevice(new Uint8Array([1, 0, 1]));
    const fPtr = (f as unknown as { buffer: GpuBuffer }).buffer.pointer;
    const k = kernel(artifact, "ndarrays");
    k.launch([1, 1], [8, 8])(f, grid.T, 0.5, flags);
    const [launch] = double.calls("cuLaunchKernel");
    checkLaunch(launch!, kernelOf("ndarrays"), loadedPtx(double).entries.find((e) => e.name === kernelOf("ndarrays").symbol)!, [f, grid.T, 0.5, flags]);
    const p = launch!.params as string[];
    assert.equal(Buffer.from(p[0]!, "hex").readBigUInt64LE(), fPtr);
    assert.deepEqual(p.slice(1, 5), ["06000000", "07000000", "01000000", "06000000"], "6 × 7 in F order: strides 1, 6");
    assert.deepEqual(p.slice(6, 12), ["05000000", "03000000", "02000000", "01000000", "05000000", "0f000000"], "the transpose of 2 × 3 × 5: 5 × 3 × 2, strides 1, 5, 15");
    throwsCode(() => k.launch([1, 1], [8, 8])(f, grid.T, 0.5, cuda.toDevice(cuda.ndarray(new Uint8Array(6), [2, 3])).T.row(0)), "CSR059", /strided view.*pass the 2-D array and index it/);
    for (const a of [f, grid, flags]) a.free();
  });

  it("packs i64/u64 scalars as 8 exact bytes, past 2^53 and at the ends of their ranges", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const x = cuda.toDevice(new BigInt64Array(4)), out = cuda.toDevice(new BigUint64Array(4));
    const cases: [bigint, bigint][] = [[2n ** 53n + 1n, 2n ** 64n - 1n], [-(2n ** 63n), 0n], [2n ** 63n - 1n, 12345678901234567890n], [-1n, 1n]];
    const k = kernel(artifact, "scalars64");
    for (const [a, b] of cases) k.launch(1, 4)(a, b, x, out);
    const entry = loadedPtx(double).entries.find((e) => e.name === kernelOf("scalars64").symbol)!;
    const launches = double.calls("cuLaunchKernel");
    assert.equal(launches.length, cases.length);
    cases.forEach(([a, b], i) => checkLaunch(launches[i]!, kernelOf("scalars64"), entry, [a, b, x, out]));
    const first = launches[0]!.params as string[];
    assert.equal(first[0], "0100000000002000", "2^53 + 1 as long long, not rounded to 2^53");
    assert.equal(first[1], "ffffffffffffffff", "2^64 - 1 as unsigned long long");
    x.free();
    out.free();
  });

  it("host typed arrays passed to a launch are copied in, pointed to, copied back and freed", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double, backend } = env;
    const mask = new Uint8Array([1, 0, 0, 1, 1]);
    const out = new Int32Array(5).fill(-1);
    double.clearLog();
    kernel(artifact, "boolArray").launch(1, 32)(mask, out, 9, true);
    const log = double.log().filter((e) => e.call !== "cuCtxSetCurrent");
    const calls = log.map((e) => e.call);
    const launchAt = calls.indexOf("cuLaunchKernel");
    assert.deepEqual(calls.slice(0, launchAt).filter((c) => c.startsWith("cuMem")), ["cuMemAlloc_v2", "cuMemcpyHtoD_v2", "cuMemAlloc_v2", "cuMemcpyHtoD_v2"]);
    const after = calls.slice(launchAt + 1).filter((c) => c.startsWith("cuMem") || c.includes("Synchronize"));
    assert.deepEqual(after.slice(0, 2), ["cuMemcpyDtoH_v2", "cuMemcpyDtoH_v2"], "both host arrays are copied back (the runtime cannot know which one the kernel wrote)");
    assert.deepEqual(after.filter((c) => c === "cuMemFree_v2").length, 2, "and their device copies freed");
    const launch = log[launchAt]!;
    const allocs = log.filter((e) => e.call === "cuMemAlloc_v2");
    const p = launch.params as string[];
    assert.equal(hex(Buffer.from(p[0]!, "hex").readBigUInt64LE()), allocs[0]!.dptr);
    assert.equal(p[1], "05000000");
    assert.equal(hex(Buffer.from(p[2]!, "hex").readBigUInt64LE()), allocs[1]!.dptr);
    assert.equal(p[3], "05000000");
    assert.equal(p[4], "09000000");
    assert.equal(p[5], "01");
    // The kernel ran nothing: the copies brought the host data back unchanged.
    assert.deepEqual([...out], [-1, -1, -1, -1, -1]);
    assert.equal(backend.memoryStats().liveAllocations, 0);
    assert.equal(double.live().allocations, 0);
  });

  it("packs f16 scalars as 2 little-endian bytes (rounded to f16) and f16 arrays as pointer + extents", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const x = cuda.toDevice(Float16Array.from([1, 2, 3]));
    const m = cuda.toDevice(cuda.ndarray(new Float16Array(6), [2, 3]));
    const out = cuda.deviceArray(3, f16);
    const k = kernel(artifact, "halves");
    const scalars = [1.5, 0.1, -65504, 1e6];
    for (const a of scalars) k.launch(1, 32)(a, x, m, out);
    const entry = loadedPtx(double).entries.find((e) => e.name === kernelOf("halves").symbol)!;
    const launches = double.calls("cuLaunchKernel");
    assert.equal(launches.length, scalars.length);
    scalars.forEach((a, i) => checkLaunch(launches[i]!, kernelOf("halves"), entry, [f16round(a), x, m, out]));
    // By hand: binary16 patterns of 1.5, 0.1 (rounds to 0x2e66), -65504 and 1e6 (overflows to +Infinity).
    assert.deepEqual(launches.map((l) => (l.params as string[])[0]), ["003e", "662e", "fffb", "007c"]);
    for (const d of [x, m, out]) d.free();
  });

  it("passes dynamic shared memory to cuLaunchKernel", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const out = cuda.deviceArray(128, f32);
    const k = kernel(artifact, "dynamicShared");
    k.launch(1, 128, { sharedMem: 512 })(out);
    k.launch(1, 128, { sharedMem: 48 * 1024 })(out);
    const launches = double.calls("cuLaunchKernel");
    assert.deepEqual(launches.map((l) => l.sharedMem), [512, 48 * 1024]);
    assert.ok(launches.every((l) => l.result === 0));
    out.free();
  });

  it("ArgPlan agrees with the PTX of every corpus-style kernel and rejects a mismatch as a CudaScript bug", () => {
    for (const k of gen.kernels) {
      const plan = new ArgPlan(k.name, k.params);
      assert.equal(plan.slots.length, k.params.flatMap((p) => p.cParams).length);
    }
    const scalars = kernelOf("scalars");
    const plan = new ArgPlan("scalars", scalars.params);
    assert.throws(
      () => plan.checkPtx([{ name: "p0", size: 8, type: ".f64" }]),
      (e: Error & { code?: string }) => e.code === "CSR046" && /PTX entry has 1 parameters/.test(e.message),
    );
    const wrong = scalars.params.map((p) => (p.name === "a" ? { ...p, cParams: ["double a"] } : p));
    assert.throws(() => new ArgPlan("scalars", wrong), (e: Error & { code?: string }) => e.code === "CSR046" && /should be a float for f32/.test(e.message));
  });
});
