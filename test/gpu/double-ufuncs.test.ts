// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver: nothing runs on a
// GPU and launches execute nothing. Proves the GPU launch path of cuda.vectorize and cuda.reduce: the
// kernels the compiler made are compiled by NVRTC, loaded and launched with the broadcast shape and
// strides the host computed (packed as the kernel's ABI), the reduction in its two passes, and every
// temporary device array (copies of host inputs, scalars, partials) is freed after the call.
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cuda } from "cudascript";
import type { KernelArtifact } from "@cudascript/compiler";
import { compileSource, gpuOnDouble } from "./helpers";

const SOURCE = `
import { cuda, f32, i32 } from "cudascript";
export const add = cuda.vectorize((a: f32, b: f32): f32 => a + b);
export const largest = cuda.reduce((a: i32, b: i32): i32 => (a > b ? a : b));
`;

/** The launch's parameters as the kernel received them, read as 32-bit integers (pointers skipped). */
function ints(params: readonly string[], indices: readonly number[]): number[] {
  return indices.map((i) => Buffer.from(params[i]!, "hex").readInt32LE());
}

describe("cuda.vectorize and cuda.reduce on the GPU backend (libcuda TEST DOUBLE)", () => {
  it("vectorize launches <name>_vectorize with the output's shape and each input's broadcast strides, then frees its copies", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const art = compileSource(SOURCE);
    const add = (cuda.vectorize as unknown as (f: null, a: KernelArtifact, n: string) => (...args: unknown[]) => unknown)(null, art, "add_vectorize");
    const m = cuda.ndarray(new Float32Array(6), [2, 3]);
    add(m, Float32Array.from([1, 2, 3]));
    const [launch] = double.calls("cuLaunchKernel");
    assert.ok(launch, "one launch");
    assert.deepEqual(launch.grid, [1, 1, 1]);
    assert.deepEqual(launch.block, [256, 1, 1]);
    // (d1, d2, out ptr, out len, in0 ptr, in0 len, s00, s01, s02, in1 ptr, in1 len, s10, s11, s12)
    const p = launch.params as string[];
    assert.equal(p.length, 14);
    assert.deepEqual(ints(p, [0, 1, 3]), [2, 3, 6], "d1 = 2, d2 = 3, out has 6 elements");
    assert.deepEqual(ints(p, [5, 6, 7, 8]), [6, 6, 3, 1], "m: 6 elements, C strides");
    assert.deepEqual(ints(p, [10, 11, 12, 13]), [3, 3, 0, 1], "the row: stride 0 along the rows it is broadcast over");
    assert.equal(double.live().allocations, 0, "the copies of both inputs and the output were freed");
  });

  it("reduce launches <name>_reduce twice: the partials over the grid, then one block over them", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const art = compileSource(SOURCE);
    const largest = (cuda.reduce as unknown as (f: null, a: KernelArtifact, n: string) => (arr: unknown, o?: object) => unknown)(null, art, "largest_reduce");
    const n = 300_000;
    const d = cuda.toDevice(new Int32Array(n));
    largest(d, { init: -5 });
    const launches = double.calls("cuLaunchKernel");
    assert.equal(launches.length, 2);
    assert.deepEqual(launches.map((l) => l.grid), [[1024, 1, 1], [1, 1, 1]], "at most 1024 blocks, then one");
    assert.deepEqual(launches.map((l) => l.block), [[256, 1, 1], [256, 1, 1]]);
    // (n, src ptr, src len, dst ptr, dst len, init, applyInit)
    const [first, second] = launches.map((l) => l.params as string[]);
    assert.deepEqual(ints(first!, [0, 2, 4, 5, 6]), [n, n, 1024, -5, 0]);
    const used = Math.ceil(n / (256 * Math.ceil(n / (1024 * 256))));
    assert.deepEqual(ints(second!, [0, 2, 4, 5, 6]), [used, 1024, 1, -5, 1]);
    d.free();
    assert.equal(double.live().allocations, 0, "the partials and the result were freed");
  });
});
