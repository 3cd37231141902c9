/**
 * DLPack on the simulator: `toDlpack()` makes a DLManagedTensor in native memory (koffi) that a native
 * addon would read — read here through the same koffi structs, as an addon would — and `cuda.fromDlpack`
 * views a tensor another producer made, calling its deleter exactly once (free(), a second free(),
 * garbage collection). Pointers are simulated device addresses (docs/interop.md).
 */
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cuda, f32, f64, i32 } from "cudascript";
import { callDeleter, makeManagedTensor, managedTensorSize, readManagedTensor } from "@cudascript/native-bindings/dlpack";
import { compileSource, kernel, throwsCode } from "./helpers";
import { collectGarbageUntil } from "../driver-double/test-double";

const artifact = compileSource(`
import { cuda } from "cudascript";
export const double = cuda.jit((a: Float32Array) => {
  const i = cuda.grid(1);
  if (i < a.length) a[i] *= 2;
});
`);
const doubleIt = kernel(artifact, "double");

/** A tensor as another producer (a native addon) would make it, with a deleter that counts its calls. */
function foreignCapsule(fields: Partial<Parameters<typeof makeManagedTensor>[0]> & { data: bigint; shape: bigint[] }): { capsule: bigint; deletes: () => number } {
  let n = 0;
  const capsule = makeManagedTensor({ deviceType: 2, deviceId: 0, code: 2, bits: 32, lanes: 1, strides: null, byteOffset: 0n, ...fields }, () => n++);
  return { capsule, deletes: () => n };
}

describe("DLPack", () => {
  it("DLManagedTensor is 64 bytes (DLPack's layout on 64-bit systems)", () => {
    assert.equal(managedTensorSize(), 64);
  });

  it("toDlpack describes the array: kDLCUDA, float32, shape, strides in elements, base pointer + byte_offset", () => {
    const d = cuda.toDevice(Float32Array.from({ length: 12 }, (_, i) => i));
    const m = d.reshape(3, 4);
    const view = m.T;
    const capsule = view.toDlpack();
    assert.equal(typeof capsule, "bigint");
    const t = readManagedTensor(capsule);
    assert.equal(t.deviceType, 2);
    assert.deepEqual([t.code, t.bits, t.lanes], [2, 32, 1]);
    assert.deepEqual(t.shape, [4n, 3n]);
    assert.deepEqual(t.strides, [1n, 4n]);
    assert.equal(t.data, d.__cuda_array_interface__.data[0]);
    assert.equal(t.byteOffset, 0n);
    const sliced = readManagedTensor(d.slice(5).toDlpack());
    assert.equal(sliced.byteOffset, 20n);
    assert.equal(sliced.data % 256n, 0n, "data is the allocation's 256-byte-aligned base");
  });

  it("round trip: fromDlpack(toDlpack()) views the same memory; a kernel through it is seen by the original; free() calls the deleter once", () => {
    const d = cuda.toDevice(Float32Array.of(1, 2, 3, 4));
    const capsule = d.slice(1, 3).toDlpack();
    const v = cuda.fromDlpack(capsule);
    assert.deepEqual(v.shape, [2]);
    doubleIt.launch(1, 32)(v);
    assert.deepEqual([...(d.copyToHost() as Float32Array)], [1, 4, 6, 4]);
    v.free();
    v.free();
    // The deleter ran (it freed the capsule's native memory): the capsule can be consumed no more
    // as an array still holding it, and a second free called nothing.
    assert.deepEqual([...(d.copyToHost() as Float32Array)], [1, 4, 6, 4]);
  });

  it("a capsule another producer made: viewed without copying; the deleter runs exactly once, at free()", () => {
    const owner = cuda.toDevice(Float32Array.of(10, 20, 30, 40, 50, 60));
    const data = owner.__cuda_array_interface__.data[0];
    const { capsule, deletes } = foreignCapsule({ data, shape: [2n, 3n], byteOffset: 0n });
    const a = cuda.fromDlpack(capsule);
    assert.deepEqual(a.shape, [2, 3]);
    assert.deepEqual([...(a.copyToHost() as unknown as { data: Float32Array }).data], [10, 20, 30, 40, 50, 60]);
    assert.equal(deletes(), 0);
    throwsCode(() => cuda.fromDlpack(capsule), "CSR065", /consumed already/);
    a.free();
    assert.equal(deletes(), 1);
    a.free();
    assert.equal(deletes(), 1, "exactly once");
  });

  it("an array dropped without free() calls the deleter when garbage-collected", async () => {
    const owner = cuda.toDevice(new Float32Array(4));
    const { capsule, deletes } = foreignCapsule({ data: owner.__cuda_array_interface__.data[0], shape: [4n] });
    (() => void cuda.fromDlpack(capsule))();
    assert.ok(await collectGarbageUntil(() => deletes() === 1), "the deleter ran once the array was collected");
    assert.equal(deletes(), 1);
  });

  it("a native consumer calls the deleter of toDlpack's capsule; the exported array lives until then", () => {
    const d = cuda.toDevice(Float64Array.of(1, 2));
    const capsule = d.toDlpack();
    callDeleter(capsule); // what a native addon does when done
    callDeleter(capsule); // a buggy second call does nothing (the tensor is gone from our records)
    assert.deepEqual([...(d.copyToHost() as Float64Array)], [1, 2]);
  });

  it("bad capsules are CSR065: not an address, host memory, vector lanes, unknown dtypes, too many dimensions, negative strides", () => {
    const owner = cuda.toDevice(new Float32Array(8));
    const data = owner.__cuda_array_interface__.data[0];
    throwsCode(() => cuda.fromDlpack("x" as unknown as bigint), "CSR065", /address of a DLManagedTensor/);
    throwsCode(() => cuda.fromDlpack(0n), "CSR065");
    throwsCode(() => cuda.fromDlpack(foreignCapsule({ data, shape: [4n], deviceType: 1 }).capsule), "CSR065", /host memory/);
    throwsCode(() => cuda.fromDlpack(foreignCapsule({ data, shape: [4n], lanes: 4 }).capsule), "CSR065", /4 lanes/);
    throwsCode(() => cuda.fromDlpack(foreignCapsule({ data, shape: [4n], code: 4, bits: 16 }).capsule), "CSR065", /bfloat|not one CudaScript has/);
    throwsCode(() => cuda.fromDlpack(foreignCapsule({ data, shape: [1n, 1n, 1n, 1n] }).capsule), "CSR065", /1 to 3 dimensions/);
    throwsCode(() => cuda.fromDlpack(foreignCapsule({ data, shape: [4n], strides: [-1n] }).capsule), "CSR065", /not all positive/);
    throwsCode(() => cuda.fromDlpack(foreignCapsule({ data: 0x1000n, shape: [4n] }).capsule), "CSR062", /outside every live allocation/);
  });

  it("every dtype maps to DLPack and back", () => {
    for (const dt of [f32, f64, i32]) {
      const d = cuda.deviceArray(3, dt as typeof f32);
      const back = cuda.fromDlpack(d.toDlpack());
      assert.equal(back.dtype.name, d.dtype.name);
      back.free();
    }
  });
});
