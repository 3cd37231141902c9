// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver: nothing runs on a
// GPU and launches execute nothing. Proves the GPU launch path of cuda.guvectorize: the kernel the
// compiler made from the function and its layout is compiled by NVRTC, loaded and launched with the loop
// shape, each argument as [loop rows, core…] and each input's loop strides the host computed (packed as
// the kernel's ABI), and every temporary device array (copies of host inputs, the outputs) is freed.
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cuda, f32 } from "cudascript";
import type { KernelArtifact } from "@cudascript/compiler";
import { compileSource, gpuOnDouble } from "./helpers";

const SOURCE = `
import { cuda, f32, type Array1D, type Array2D } from "cudascript";
export const dot = cuda.guvectorize((a: Array1D<f32>, b: Array1D<f32>, out: Array1D<f32>): void => {
  let s: f32 = 0;
  for (let k = 0; k < a.length; k++) s += a[k] * b[k];
  out[0] = s;
}, "(n),(n)->()");
export const matmul = cuda.guvectorize((a: Array2D<f32>, b: Array2D<f32>, c: Array2D<f32>): void => {
  for (let i = 0; i < c.shape[0]; i++)
    for (let j = 0; j < c.shape[1]; j++) {
      let s: f32 = 0;
      for (let k = 0; k < a.shape[1]; k++) s += a[i][k] * b[k][j];
      c[i][j] = s;
    }
}, "(m,n),(n,p)->(m,p)");
`;

/** The launch's parameters as the kernel received them, read as 32-bit integers (pointers skipped). */
function ints(params: readonly string[], indices: readonly number[]): number[] {
  return indices.map((i) => Buffer.from(params[i]!, "hex").readInt32LE());
}

function gufunc(art: KernelArtifact, name: string, layout: string): (...args: unknown[]) => unknown {
  return (cuda.guvectorize as unknown as (f: null, l: string, a: KernelArtifact, n: string) => (...args: unknown[]) => unknown)(null, layout, art, `${name}_guvectorize`);
}

describe("cuda.guvectorize on the GPU backend (libcuda TEST DOUBLE)", () => {
  it("(n),(n)->() launches <name>_guvectorize with the loop shape, [loop, n] rows with loop strides (0 where broadcast) and a [loop, 1] output, then frees its copies", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const dot = gufunc(compileSource(SOURCE), "dot", "(n),(n)->()");
    dot(cuda.ndarray(new Float32Array(20), [4, 5]), new Float32Array(5));
    const [launch] = double.calls("cuLaunchKernel");
    assert.ok(launch, "one launch");
    assert.deepEqual(launch.grid, [1, 1, 1]);
    assert.deepEqual(launch.block, [256, 1, 1]);
    // (d1, d2, in0 ptr, in0 [4, 5], element strides ×2, loop strides s00, s01, s02, in1 ptr, in1 [1, 5], ×2, s10, s11, s12, out0 ptr, out0 [4, 1], ×2)
    const p = launch.params as string[];
    assert.equal(p.length, 23);
    assert.deepEqual(ints(p, [0, 1]), [1, 4], "the loop shape [4] padded to [1, 1, 4]: d1 = 1, d2 = 4");
    assert.deepEqual(ints(p, [3, 4, 7, 8, 9]), [4, 5, 4, 4, 1], "a: 4 rows of 5, loop strides along c0, c1, c2");
    assert.deepEqual(ints(p, [5, 6]), [5, 1], "a: its element strides (C order) after its extents");
    assert.deepEqual(ints(p, [11, 12, 15, 16, 17]), [1, 5, 1, 1, 0], "b: one row, stride 0 along the loop dimension it is broadcast over");
    assert.deepEqual(ints(p, [19, 20]), [4, 1], "the () output as [loop, 1]");
    assert.equal(double.live().allocations, 0, "the copies of both inputs and the output were freed");
  });

  it("(m,n),(n,p)->(m,p) on device arrays: NVRTC compiles the 2-D row views; the result stays on the device", (t) => {
    const env = gpuOnDouble(t);
    if (!env) return;
    const { double } = env;
    const matmul = gufunc(compileSource(SOURCE), "matmul", "(m,n),(n,p)->(m,p)");
    const a = cuda.deviceArray([2, 3, 4], f32), b = cuda.deviceArray([4, 5], f32);
    const c = matmul(a, b) as { shape: readonly number[]; free(): void };
    assert.deepEqual(c.shape, [2, 3, 5]);
    const [launch] = double.calls("cuLaunchKernel");
    const p = launch!.params as string[];
    // (d1, d2, in0 ptr, [2, 3, 4], element strides ×3, loop strides ×3, in1 ptr, [1, 4, 5], ×3, ×3, out0 ptr, [2, 3, 5], element strides ×3)
    assert.deepEqual(ints(p, [0, 1]), [1, 2]);
    assert.deepEqual(ints(p, [3, 4, 5, 9, 10, 11]), [2, 3, 4, 2, 2, 1]);
    assert.deepEqual(ints(p, [13, 14, 15, 19, 20, 21]), [1, 4, 5, 1, 1, 0]);
    assert.deepEqual(ints(p, [23, 24, 25]), [2, 3, 5]);
    for (const d of [a, b, c]) d.free();
    assert.equal(double.live().allocations, 0, "nothing but the caller's arrays was allocated");
  });
});
