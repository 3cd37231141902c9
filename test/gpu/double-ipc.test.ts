// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver: its
// cuIpcGetMemHandle moves an allocation's bytes into a /dev/shm file mapped MAP_SHARED and its
// cuIpcOpenMemHandle_v2 maps that file in another process, so two Node processes share "device
// memory" as two processes on one GPU do. Proves on the GPU backend: getIpcHandle → openIpcArray in a
// child process (test/simulator/ipc-child.ts) reads and writes this process's array; free() closes
// the handle (cuIpcCloseMemHandle, once); the CUDA Array Interface hands out the driver's pointers and
// a foreign view is never cuMemFree'd; errors keep their codes.
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { describe, it } from "node:test";
import { cuda, f64, type IpcHandle, type OpenIpcArrayOptions } from "cudascript";
import type { GpuBuffer } from "cudascript/dist/gpu/backend";
import { childEnv, compileSource, gpuOnDouble, kernel } from "./helpers";

const CHILD = path.join(__dirname, "..", "simulator", "ipc-child.js");
const arange = (n: number) => Float64Array.from({ length: n }, (_, i) => i);

interface ChildOut {
  closes?: number;
  closedByGc?: boolean;
  read?: number[];
  after?: number[];
  freedCode?: string;
  backend?: string;
  error?: { code?: string; message: string };
}

function child(doublePath: string, job: { handle: IpcHandle | string; shape: number[]; options?: OpenIpcArrayOptions; drop?: boolean }): ChildOut {
  const r = spawnSync(process.execPath, [CHILD, JSON.stringify(job)], { env: childEnv(doublePath), encoding: "utf8", timeout: 120_000 });
  const line = r.stdout.trim().split("\n").pop() ?? "";
  try {
    return JSON.parse(line) as ChildOut;
  } catch {
    throw new Error(`the child printed no result (status ${r.status}, signal ${r.signal}):\n${r.stdout}\n${r.stderr}`);
  }
}

describe("IPC between two Node processes on the GPU backend (libcuda TEST DOUBLE)", () => {
  it("the child opens the handle (cuIpcOpenMemHandle_v2), reads, writes; this process sees the writes", (t) => {
    const env = gpuOnDouble(t, { needsNvrtc: false });
    if (!env) return;
    const d = cuda.toDevice(arange(10));
    const h = d.getIpcHandle();
    assert.equal(h.backend, "gpu");
    assert.equal(env.double.calls("cuIpcGetMemHandle").length, 1);
    // The handle bytes are the driver's CUipcMemHandle (the double's begins with its magic).
    assert.equal(Buffer.from(h.handle, "hex").subarray(0, 8).toString("latin1"), "CSDBLIPC");
    const out = child(env.double.path, { handle: h, shape: [10] });
    assert.equal(out.error, undefined, out.error?.message);
    assert.equal(out.backend, "gpu");
    assert.deepEqual(out.read, [...arange(10)]);
    assert.equal(out.freedCode, "CSR010");
    assert.equal(out.closes, 1, "free() closed the handle: one cuIpcCloseMemHandle");
    assert.deepEqual([...(d.copyToHost() as Float64Array)], [...arange(10)].map((x) => x + 100));
    d.free();
    assert.equal(env.double.calls("cuMemFree_v2").length, 1);
  });

  it("an opened array dropped without free() closes its handle when garbage-collected", (t) => {
    const env = gpuOnDouble(t, { needsNvrtc: false });
    if (!env) return;
    const d = cuda.toDevice(arange(3));
    const out = child(env.double.path, { handle: d.getIpcHandle(), shape: [3], drop: true });
    assert.equal(out.error, undefined, out.error?.message);
    assert.deepEqual(out.read, [0, 1, 2]);
    assert.equal(out.closedByGc, true);
    assert.equal(out.closes, 1);
  });

  it("a view's handle opens at its offset (Numba's sliced variants)", (t) => {
    const env = gpuOnDouble(t, { needsNvrtc: false });
    if (!env) return;
    const d = cuda.toDevice(arange(10));
    const v = d.slice(3, 8);
    const h = v.getIpcHandle();
    assert.equal(h.offset, 24);
    const out = child(env.double.path, { handle: JSON.stringify(h), shape: [5] });
    assert.equal(out.error, undefined, out.error?.message);
    assert.deepEqual(out.read, [3, 4, 5, 6, 7]);
    assert.deepEqual([...(d.copyToHost() as Float64Array)], [0, 1, 2, 103, 104, 105, 106, 107, 8, 9]);
  });

  it("raw 64 handle bytes (another library's CUipcMemHandle) open with an explicit offset", (t) => {
    const env = gpuOnDouble(t, { needsNvrtc: false });
    if (!env) return;
    const d = cuda.toDevice(arange(6));
    const h = d.getIpcHandle();
    const out = child(env.double.path, { handle: h.handle, shape: [2], options: { offset: 32 } });
    assert.equal(out.error, undefined, out.error?.message);
    assert.deepEqual(out.read, [4, 5]);
  });

  it("opening in the exporting process, or after the exporter freed the array, is CSR063", (t) => {
    const env = gpuOnDouble(t, { needsNvrtc: false });
    if (!env) return;
    const d = cuda.toDevice(arange(4));
    const h = d.getIpcHandle();
    assert.throws(() => cuda.openIpcArray({ ...h, pid: 1 }, [4], f64), (e: Error & { code?: string }) => e.code === "CSR063" && /not in the process that made it/.test(e.message));
    d.free();
    const out = child(env.double.path, { handle: h, shape: [4] });
    assert.equal(out.error?.code, "CSR063", out.error?.message);
  });
});

describe("CUDA Array Interface on the GPU backend (libcuda TEST DOUBLE)", () => {
  it("hands out the driver's device pointer; a foreign view copies through it and is never cuMemFree'd", (t) => {
    const env = gpuOnDouble(t, { needsNvrtc: false });
    if (!env) return;
    const d = cuda.toDevice(arange(8));
    const face = d.__cuda_array_interface__;
    assert.equal(face.data[0], (d.buffer as GpuBuffer).pointer);
    const v = cuda.fromCudaArrayInterface({ ...face, data: [face.data[0] + 16n, false], shape: [4] }, d);
    assert.deepEqual([...(v.copyToHost() as Float64Array)], [2, 3, 4, 5]);
    v.copyToDevice(Float64Array.of(-1, -2, -3, -4));
    v.free();
    assert.equal(env.double.calls("cuMemFree_v2").length, 0, "the view frees nothing");
    assert.deepEqual([...(d.copyToHost() as Float64Array)], [0, 1, -1, -2, -3, -4, 6, 7]);
  });

  it("a foreign stream is synchronised with cuStreamSynchronize; 1 (legacy default) with the device", (t) => {
    const env = gpuOnDouble(t, { needsNvrtc: false });
    if (!env) return;
    const d = cuda.toDevice(arange(4));
    const s = cuda.stream();
    const raw = (s.handle as unknown as { stream: { handle: bigint } }).stream.handle;
    const before = env.double.calls("cuStreamSynchronize").length;
    cuda.fromCudaArrayInterface({ ...d.__cuda_array_interface__, stream: raw }, d);
    assert.equal(env.double.calls("cuStreamSynchronize").length, before + 1);
    const ctxSyncs = env.double.calls("cuCtxSynchronize").length;
    cuda.fromCudaArrayInterface({ ...d.__cuda_array_interface__, stream: 1 }, d);
    assert.equal(env.double.calls("cuCtxSynchronize").length, ctxSyncs + 1);
  });
});

describe("kernel launches with foreign arrays on the GPU backend (libcuda TEST DOUBLE)", () => {
  it("a foreign array's pointer (plus its view offset) is what cuLaunchKernel receives", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const artifact = compileSource(`
import { cuda } from "cudascript";
export const touch = cuda.jit((a: Float64Array) => {
  const i = cuda.grid(1);
  if (i < a.length) a[i] = i;
});
`);
    const touch = kernel(artifact, "touch");
    const d = cuda.toDevice(arange(8));
    const face = d.__cuda_array_interface__;
    const foreign = { __cuda_array_interface__: { ...face, shape: [4], data: [face.data[0] + 32n, false] as const } };
    touch.launch(1, 32)(foreign); // a foreign object: the generic path imports it
    const viewed = cuda.asCudaArray(foreign);
    touch.launch(1, 32)(viewed); // a device array over foreign memory, launched twice (the second through the configured launcher)
    touch.launch(1, 32)(viewed);
    const launches = env.double.calls("cuLaunchKernel");
    assert.equal(launches.length, 3);
    const pointerHex = Buffer.alloc(8);
    pointerHex.writeBigUInt64LE(face.data[0] + 32n);
    for (const l of launches) assert.equal((l.params as string[])[0], pointerHex.toString("hex"));
    assert.equal(env.double.calls("cuMemFree_v2").length, 0);
  });
});

describe("DLPack on the GPU backend (libcuda TEST DOUBLE)", () => {
  it("toDlpack gives the driver's pointer on kDLCUDA; fromDlpack views it, never cuMemFree's it, and calls the deleter once", async (t) => {
    const env = gpuOnDouble(t, { needsNvrtc: false });
    if (!env) return;
    const { readManagedTensor, makeManagedTensor } = await import("@cudascript/native-bindings/dlpack");
    const d = cuda.toDevice(arange(6));
    const tensor = readManagedTensor(d.slice(2).toDlpack());
    assert.deepEqual([tensor.deviceType, tensor.deviceId, tensor.data, tensor.byteOffset], [2, 0, (d.buffer as GpuBuffer).pointer, 16n]);
    let deletes = 0;
    const capsule = makeManagedTensor({ data: (d.buffer as GpuBuffer).pointer, deviceType: 2, deviceId: 0, code: 2, bits: 64, lanes: 1, shape: [3n], strides: [2n], byteOffset: 8n }, () => deletes++);
    const v = cuda.fromDlpack(capsule);
    assert.deepEqual([...(v.copyToHost() as Float64Array)], [1, 3, 5]);
    v.free();
    v.free();
    assert.equal(deletes, 1);
    assert.equal(env.double.calls("cuMemFree_v2").length, 0);
  });
});
