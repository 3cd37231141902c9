/**
 * One flat loop over a 1-D grid (compiler/src/js/flat-grid.ts): plain kernels that see only their grid
 * index run the blocks whose checks are proven as one loop. Nothing a user sees may change: results
 * (with early returns, parameters assigned per thread, a bound that stops the loop early, 2-D launches
 * that cannot use it, blocks split over workers) and faults — reported at the same access, block,
 * thread and index, after the same earlier writes.
 */
import * as assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { configureSimulator, cuda, CudaScriptError, f32, u32 } from "cudascript";
import { compileSource, kernel } from "./helpers";

after(() => configureSimulator({ sanitize: false, workers: 2, inProcessThreshold: 32768, mainThreadExecutes: true }));

const art = compileSource(`
import { cuda, f32, i32 } from "cudascript";
export const histogram = cuda.jit((data: Int32Array, hist: Uint32Array) => {
  const i = cuda.grid(1);
  if (i < data.length) cuda.atomic.add(hist, data[i], 1); // COUNT
});
export const scaledPositive = cuda.jit((x: Float32Array, out: Float32Array, k: f32) => {
  const i = cuda.grid(1);
  if (i >= x.length) return;
  if (x[i] < 0) return;
  k = k * 2;
  out[i] = x[i] * k;
});
export const firstN = cuda.jit((x: Float32Array, out: Float32Array, n: i32) => {
  const i = cuda.grid(1);
  if (i < n) out[i] = x[i] + 1;
});
`);

function fault(f: () => void): CudaScriptError {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof CudaScriptError, String(e));
    return e;
  }
  assert.fail("expected a fault");
}

const modes = [
  { name: "in-process", opts: { sanitize: false, workers: 1, inProcessThreshold: 1 << 30 } },
  { name: "2 workers", opts: { sanitize: false, workers: 2, inProcessThreshold: 0, mainThreadExecutes: true } },
];

for (const mode of modes) {
  describe(`one flat loop over a 1-D grid (${mode.name})`, () => {
    it("early returns and a parameter assigned in the body give plain TypeScript's results", () => {
      configureSimulator(mode.opts);
      const n = 5000;
      const x = Float32Array.from({ length: n }, (_, i) => (i % 7) - 3);
      const out = new Float32Array(n).fill(-1);
      kernel(art, "scaledPositive").launch(Math.ceil(n / 128), 128)(x, out, 1.5);
      assert.deepEqual(out, Float32Array.from({ length: n }, (_, i) => (x[i]! < 0 ? -1 : Math.fround(x[i]! * 3))));
    });

    it("a bound below the arrays' length stops the loop there, and the threads past it do nothing", () => {
      configureSimulator(mode.opts);
      const x = Float32Array.from({ length: 4096 }, (_, i) => i);
      const out = new Float32Array(4096).fill(7);
      kernel(art, "firstN").launch(16, 256)(x, out, 1000);
      assert.deepEqual(out, Float32Array.from({ length: 4096 }, (_, i) => (i < 1000 ? i + 1 : 7)));
    });

    it("a 2-D launch, which cannot use the flat loop, gives the same results", () => {
      configureSimulator(mode.opts);
      const data = Int32Array.from({ length: 3000 }, (_, i) => (i * 31) % 10);
      const flat = new Uint32Array(10), twoD = new Uint32Array(10);
      kernel(art, "histogram").launch(12, 256)(data, flat);
      kernel(art, "histogram").launch([12, 1], [256, 1])(data, twoD);
      const expected = new Uint32Array(10);
      for (const v of data) expected[v]!++;
      assert.deepEqual(flat, expected);
      assert.deepEqual(twoD, expected);
    });

    it("a fault inside the flat loop names its access, block, thread and index, after the earlier threads' writes", () => {
      configureSimulator(mode.opts);
      const data = Int32Array.from({ length: 4096 }, (_, i) => (i === 1000 ? 300 : i % 4));
      const hist = cuda.deviceArray(256, u32);
      const e = fault(() => kernel(art, "histogram").launch(16, 256)(cuda.toDevice(data), hist));
      assert.equal(e.code, "CSR020");
      assert.match(e.message, /atomic .*'hist' at .*:5:\d+ in kernel 'histogram', block \(3, 0, 0\), thread \(232, 0, 0\): index 300 is outside 0\.\.255/);
      if (mode.name === "in-process") {
        // One executor runs the blocks in order: every thread before the faulting one counted.
        const counts = hist.copyToHost() as Uint32Array;
        assert.equal(counts[0]! + counts[1]! + counts[2]! + counts[3]!, 1000);
      }
    });
  });
}

describe("one flat loop over a 1-D grid: f32 results beside device arrays", () => {
  it("device arrays in and out, many blocks", () => {
    configureSimulator(modes[0]!.opts);
    const n = 1 << 16;
    const x = cuda.toDevice(Float32Array.from({ length: n }, (_, i) => i / 3));
    const out = cuda.deviceArray(n, f32);
    kernel(art, "firstN").launch(n / 256, 256)(x, out, n);
    const host = out.copyToHost() as Float32Array;
    for (let i = 0; i < n; i += 997) assert.equal(host[i], Math.fround(Math.fround(i / 3) + 1));
  });
});
