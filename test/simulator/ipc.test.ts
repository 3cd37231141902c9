/**
 * CUDA IPC on the simulator, between two real Node processes: `getIpcHandle()` here, `cuda.openIpcArray`
 * in a child (test/simulator/ipc-child.ts). The memory is shared through a /dev/shm file mapping, so
 * what the child writes — by a copy and by a kernel — is in this process's array at once. Ported from
 * Numba's test_ipc.py (test_ipc_handle, the sliced variants, reopening and errors).
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { cuda, f64, f32, type DeviceNDArray, type IpcHandle, type OpenIpcArrayOptions } from "cudascript";
import { compileSource, kernel, throwsCode } from "./helpers";

const CHILD = path.join(__dirname, "ipc-child.js");

const negate = kernel(
  compileSource(`
import { cuda } from "cudascript";
export const negate = cuda.jit((a: Float64Array) => {
  const i = cuda.grid(1);
  if (i < a.length) a[i] = -a[i];
});
`),
  "negate",
);

interface ChildOut {
  read?: number[];
  after?: number[];
  freedCode?: string;
  backend?: string;
  error?: { code?: string; message: string };
}

function child(job: { handle: IpcHandle | string; shape: number[]; options?: OpenIpcArrayOptions; kernel?: boolean }): ChildOut {
  const env = { ...process.env, CUDASCRIPT_BACKEND: "simulator" };
  const r = spawnSync(process.execPath, [CHILD, JSON.stringify(job)], { env, encoding: "utf8", timeout: 120_000 });
  const line = r.stdout.trim().split("\n").pop() ?? "";
  try {
    return JSON.parse(line) as ChildOut;
  } catch {
    throw new Error(`the child printed no result (status ${r.status}, signal ${r.signal}):\n${r.stdout}\n${r.stderr}`);
  }
}

const arange = (n: number) => Float64Array.from({ length: n }, (_, i) => i);

describe("IPC between two Node processes on the simulator", () => {
  it("test_ipc_handle: the child reads the array, writes it by a copy and a kernel, and this process sees the writes", () => {
    const d = cuda.toDevice(arange(10));
    const h = d.getIpcHandle();
    assert.equal(h.format, "cudascript-ipc/1");
    assert.equal(h.backend, "simulator");
    assert.match(h.handle, /^[0-9a-f]{128}$/);
    assert.deepEqual([h.size, h.offset, h.dtype, h.typestr], [80, 0, "f64", "<f8"]);
    const out = child({ handle: JSON.parse(JSON.stringify(h)), shape: [10], kernel: true });
    assert.equal(out.error, undefined, out.error?.message);
    assert.equal(out.backend, "simulator");
    assert.deepEqual(out.read, [...arange(10)]);
    assert.deepEqual(out.after, [...arange(10)].map((x) => x + 1100));
    assert.equal(out.freedCode, "CSR010", "free() closed the child's array");
    // The same memory here: the child's copy and its kernel's writes.
    assert.deepEqual([...(d.copyToHost() as Float64Array)], [...arange(10)].map((x) => x + 1100));
    // Kernels here still run on the (now file-backed) array — on this thread, even a launch big enough for workers.
    d.copyToDevice(arange(10));
    negate.launch(1, 32)(d);
    assert.deepEqual([...(d.copyToHost() as Float64Array)], [...arange(10)].map((x) => -x));
    const big = cuda.toDevice(new Float64Array(100_000).fill(1));
    big.getIpcHandle();
    negate.launch(Math.ceil(100_000 / 256), 256)(big);
    assert.equal((big.copyToHost() as Float64Array).reduce((a, b) => a + b, 0), -100_000);
  });

  for (const [label, view] of [
    ["slice(3)", (d: DeviceNDArray<Float64Array>) => d.slice(3)],
    ["slice(3, 8)", (d: DeviceNDArray<Float64Array>) => d.slice(3, 8)],
    ["slice(undefined, 8)", (d: DeviceNDArray<Float64Array>) => d.slice(undefined, 8)],
    ["a view through the CUDA Array Interface", (d: DeviceNDArray<Float64Array>) => cuda.asCudaArray(d.slice(3, 8))],
  ] as const) {
    it(`test_ipc_array variants: a handle of ${label} opens at the view's offset`, () => {
      const d = cuda.toDevice(arange(10));
      const v = view(d);
      const expect = [...(v.copyToHost() as Float64Array)];
      const h = v.getIpcHandle();
      assert.equal(h.offset, v.byteOffset);
      const out = child({ handle: JSON.stringify(h), shape: [...v.shape] });
      assert.equal(out.error, undefined, out.error?.message);
      assert.deepEqual(out.read, expect);
      assert.deepEqual([...(v.copyToHost() as Float64Array)], expect.map((x) => x + 100));
    });
  }

  it("strides and offset as options (Numba's open_ipc_array keywords): every other element from element 1", () => {
    const d = cuda.toDevice(arange(10));
    const h = d.getIpcHandle();
    const out = child({ handle: h, shape: [4], options: { strides: [16], offset: 8 } });
    // A strided 1-D array: the child reads and copies it (no kernel: 1-D kernel parameters are contiguous).
    assert.equal(out.error, undefined, out.error?.message);
    assert.deepEqual(out.read, [1, 3, 5, 7]);
    assert.deepEqual([...(d.copyToHost() as Float64Array)], [0, 101, 2, 103, 4, 105, 6, 107, 8, 9]);
  });

  it("errors in the child: a shape past the allocation, a handle whose exporter freed the array (CSR063)", () => {
    const d = cuda.toDevice(arange(4));
    const h = d.getIpcHandle();
    const tooBig = child({ handle: h, shape: [5] });
    assert.equal(tooBig.error?.code, "CSR063");
    assert.match(tooBig.error!.message, /reaches 40 bytes, but the shared allocation holds 32/);
    d.free();
    const gone = child({ handle: h, shape: [4] });
    assert.equal(gone.error?.code, "CSR063");
    assert.match(gone.error!.message, /is gone/);
  });

  it("the exporter's free() removes the shared file; the handle is stable while the array lives", () => {
    const d = cuda.toDevice(arange(4));
    const h1 = d.getIpcHandle(), h2 = d.getIpcHandle();
    assert.equal(h1.handle, h2.handle);
    const name = Buffer.from(h1.handle, "hex").subarray(24).toString("latin1").replace(/\0.*$/s, "");
    assert.ok(fs.existsSync(`/dev/shm/${name}`));
    d.free();
    assert.ok(!fs.existsSync(`/dev/shm/${name}`));
  });
});

describe("IPC errors in one process", () => {
  it("opening a handle in the process that made it is CSR063 (as with CUDA)", () => {
    const d = cuda.toDevice(arange(4));
    throwsCode(() => cuda.openIpcArray(d.getIpcHandle(), [4], f64), "CSR063", /made by this process/);
  });
  it("not a handle, a GPU handle on the simulator, a bad offset, an empty array (CSR063)", () => {
    throwsCode(() => cuda.openIpcArray("nope", [4], f64), "CSR063", /neither 128 hex digits nor the JSON/);
    throwsCode(() => cuda.openIpcArray({} as IpcHandle, [4], f64), "CSR063", /not a CudaScript IPC handle/);
    throwsCode(() => cuda.openIpcArray(new Uint8Array(10), [4], f64), "CSR063", /10 bytes, not 64/);
    const d = cuda.toDevice(arange(4));
    const h = { ...d.getIpcHandle(), pid: 1 };
    throwsCode(() => cuda.openIpcArray({ ...h, backend: "gpu" }, [4], f64), "CSR063", /made on the gpu backend/);
    throwsCode(() => cuda.openIpcArray(h, [2], f64, { offset: 3 }), "CSR063", /multiple of the 8-byte item size/);
    throwsCode(() => cuda.openIpcArray(new Uint8Array(64), [4], f64), "CSR063", /not an IPC handle of the CudaScript simulator/);
    throwsCode(() => cuda.deviceArray(0, f32).getIpcHandle(), "CSR063", /empty array/);
  });
});
