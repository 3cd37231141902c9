/**
 * Bounds checks proven once per block (compiler/src/js/in-range.ts): blocks whose thread-indexed accesses
 * are all in range run a copy of the body without their checks. These tests prove that nothing a user sees
 * changes: the results, and the out-of-bounds errors — same access, block, thread and index — of blocks
 * where the proof fails.
 */
import * as assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { configureSimulator, cuda, CudaScriptError, f32 } from "cudascript";
import { compileSource, kernel } from "./helpers";

after(() => configureSimulator({ sanitize: false, workers: 2, inProcessThreshold: 32768, mainThreadExecutes: true }));

const art = compileSource(`
import { cuda, f32 } from "cudascript";
export const saxpyTail = cuda.jit((x: Float32Array, y: Float32Array, out: Float32Array, k: f32) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = k * x[i] + y[i];
});
export const nextOne = cuda.jit((a: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  out[i] = a[i + 1]; // READ NEXT
});
export const previousOne = cuda.jit((a: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  out[i] = a[i - 1]; // READ PREVIOUS
});
`);

function oob(f: () => void): CudaScriptError {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof CudaScriptError, String(e));
    return e;
  }
  assert.fail("expected an out-of-bounds error");
}

for (const sanitize of [false, true]) {
  describe(`proven bounds checks (sanitize ${sanitize})`, () => {
    it("a partial last block gives the same results as plain TypeScript", () => {
      configureSimulator({ sanitize, workers: 1, inProcessThreshold: 1 << 30 });
      const n = 1000;
      const x = Float32Array.from({ length: n }, (_, i) => i * 0.5), y = Float32Array.from({ length: n }, (_, i) => 3 - i);
      const out = new Float32Array(n);
      kernel(art, "saxpyTail").launch(Math.ceil(n / 128), 128)(x, y, out, 2);
      assert.deepEqual(out, Float32Array.from({ length: n }, (_, i) => Math.fround(Math.fround(2 * x[i]!) + y[i]!)));
    });

    it("a read past the end in the last block is reported at its access, block and thread, after the earlier blocks wrote", () => {
      configureSimulator({ sanitize, workers: 1, inProcessThreshold: 1 << 30 });
      // Device arrays: a failed launch copies no host array back, and the writes before the fault are what this test looks at.
      const a = cuda.toDevice(Float32Array.from({ length: 1024 }, (_, i) => i)), dout = cuda.deviceArray(1024, f32);
      const e = oob(() => kernel(art, "nextOne").launch(4, 256)(a, dout));
      const out = dout.copyToHost() as Float32Array;
      assert.equal(e.code, "CSR020");
      assert.match(e.message, /read of array 'a' at .*:9:\d+ in kernel 'nextOne', block \(3, 0, 0\), thread \(255, 0, 0\): index 1024 is outside 0\.\.1023/);
      assert.equal(out[767], 768); // block 2 ran (proven), block 3 ran its threads up to the faulting one
      assert.equal(out[1022], 1023);
    });

    it("a read before the start in the first block is reported at thread 0", () => {
      configureSimulator({ sanitize, workers: 1, inProcessThreshold: 1 << 30 });
      const e = oob(() => kernel(art, "previousOne").launch(2, 64)(new Float32Array(128), new Float32Array(128)));
      assert.match(e.message, /read of array 'a' at .*:13:\d+ in kernel 'previousOne', block \(0, 0, 0\), thread \(0, 0, 0\): index -1 is outside 0\.\.127/);
    });
  });
}

// Barrier kernels (fission): a shared array indexed by threadIdx.x, in blocks that fit it and one that does not.
const fission = compileSource(`
import { cuda, f32 } from "cudascript";
export const blockSums = cuda.jit((x: Float32Array, sums: Float32Array) => {
  const tile = cuda.shared.array(64, f32);
  const t = cuda.threadIdx.x;
  tile[t] = x[cuda.grid(1)]; // STORE TILE
  cuda.syncthreads();
  for (let s = 32; s > 0; s >>= 1) {
    if (t < s) tile[t] += tile[t + s];
    cuda.syncthreads();
  }
  if (t === 0) sums[cuda.blockIdx.x] = tile[0];
});
export const rows = cuda.jit((out: Float32Array) => {
  const tile = cuda.shared.array(100, f32);
  tile[cuda.threadIdx.y * 40 + cuda.threadIdx.x] = cuda.threadIdx.y; // STORE ROW
  cuda.syncthreads();
  out[cuda.threadIdx.x] = tile[cuda.threadIdx.x];
});
`);

for (const sanitize of [false, true]) {
  describe(`shared arrays indexed by threadIdx.x in barrier kernels (sanitize ${sanitize})`, () => {
    it("blocks no larger than the array give the sums plain TypeScript gives", () => {
      configureSimulator({ sanitize, workers: 1, inProcessThreshold: 1 << 30 });
      const x = Float32Array.from({ length: 256 }, (_, i) => (i % 7) - 2.5);
      const sums = new Float32Array(4);
      kernel(fission, "blockSums").launch(4, 64)(x, sums);
      const expected = Array.from({ length: 4 }, (_, b) => x.slice(b * 64, b * 64 + 64).reduce((p, v) => p + v, 0));
      assert.deepEqual(Array.from(sums), expected);
    });

    it("a block wider than the array faults at the first thread past it, at the store", () => {
      configureSimulator({ sanitize, workers: 1, inProcessThreshold: 1 << 30 });
      const e = oob(() => kernel(fission, "blockSums").launch(2, 96)(new Float32Array(192), new Float32Array(2)));
      assert.equal(e.code, "CSR020");
      assert.match(e.message, /write of shared array 'tile' at .*:6:3 in kernel 'blockSums', block \(0, 0, 0\), thread \(64, 0, 0\): index 64 is outside 0\.\.63/);
    });

    it("in a 2-D block the fault names the thread's x and y", () => {
      configureSimulator({ sanitize, workers: 1, inProcessThreshold: 1 << 30 });
      const e = oob(() => kernel(fission, "rows").launch(1, [40, 3])(new Float32Array(40)));
      assert.match(e.message, /write of shared array 'tile' at .*:16:3 in kernel 'rows', block \(0, 0, 0\), thread \(20, 2, 0\): index 100 is outside 0\.\.99/);
    });
  });
}
