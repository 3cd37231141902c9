// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver: nothing runs on a
// GPU. Proves that the GPU backend passes record arrays as docs/abi.md says: a 1-D record array as its
// bytes' device pointer and byte count; a 2-D record array (cuda.recordArray(P, [rows, cols]), directly
// or through cuda.toDevice) as the pointer, its bytes' extents (the last one counting bytes) and byte
// strides; and that the bytes copied in are the record array's and come back into it (NVRTC is real).
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cuda, f32, i32 } from "cudascript";
import type { GpuBuffer } from "cudascript/dist/gpu/backend";
import { compileSource, gpuOnDouble, kernel, leHex } from "./helpers";

const SOURCE = `import { cuda, f32, i32, type Array1D, type Array2D } from "cudascript";
interface Cell { w: f32; n: i32; tag: i32 }
const Cell = cuda.record({ w: f32, n: i32, tag: i32 });
export const flat = cuda.jit((cs: Array1D<Cell>) => {
  const i = cuda.grid(1);
  if (i < cs.length) cs[i].n = i;
});
export const grid = cuda.jit((g: Array2D<Cell>) => {
  const [r, c] = cuda.grid(2);
  if (r < g.shape[0] && c < g.shape[1]) g[r][c].n = r * 100 + c;
});
`;

describe("GPU backend: record arrays (libcuda TEST DOUBLE)", () => {
  const Cell = cuda.record({ w: f32, n: i32, tag: i32 });

  it("packs 1-D and 2-D record arrays as pointer + their bytes' extents (and byte strides)", (t) => {
    const env = gpuOnDouble(t, { needsNvrtc: true });
    if (!env) return;
    const { double } = env;
    const art = compileSource(SOURCE);
    const flat = cuda.recordArray(Cell, 10);
    const dflat = cuda.toDevice(flat);
    kernel(art, "flat").launch(1, 32)(dflat);
    const g = cuda.recordArray(Cell, [3, 5]);
    g.set(2, 4, { w: 1.5, n: -1, tag: 7 });
    const dg = cuda.toDevice(g);
    kernel(art, "grid").launch([1, 1], [8, 8])(dg);
    const launches = double.calls("cuLaunchKernel");
    assert.equal(launches.length, 2);
    const pointer = (d: unknown) => leHex("pointer", (d as { buffer: GpuBuffer }).buffer.pointer);
    assert.deepEqual(launches[0]!.params, [pointer(dflat), leHex("int", 10 * 12)]);
    // Array2D<Cell>: extents [3, 5 × 12] and strides [60, 1], in bytes.
    assert.deepEqual(launches[1]!.params, [pointer(dg), leHex("int", 3), leHex("int", 60), leHex("int", 60), leHex("int", 1)]);
    // The bytes copied to the device are the record array's; they come back into it.
    const back = cuda.recordArray(Cell, [3, 5]);
    dg.copyToHost(back);
    assert.deepEqual(back.get(2, 4), { w: 1.5, n: -1, tag: 7 });
    dflat.free();
    dg.free();
  });
});
