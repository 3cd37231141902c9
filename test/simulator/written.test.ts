/**
 * Device memory nothing wrote, seen from the host (docs/simulator.md, "Device memory nothing wrote";
 * issue 32 item 3): under the sanitizer `copyToHost` of an array made by `cuda.deviceArray` (or
 * `deviceArrayLike`, `toDevice(a, { copy: false })`) warns, CSR069, when an element was written by no
 * kernel and no copy — naming where the array was made and the first such element. Kernel stores,
 * atomics, stores through a device function, host copies and memsets all count as writes, on one
 * executor and on two workers; without the sanitizer nothing is tracked.
 */
import * as assert from "node:assert/strict";
import { describe, it, after, beforeEach } from "node:test";
import { configureSimulator, cuda, f32, i32 } from "cudascript";
import { compileSource, kernel } from "./helpers";

const SOURCE = `
import { cuda, f32, i32, type Array2D } from "cudascript";
/** Writes out[i] for i < n only. */
export const fill = cuda.jit((out: Float32Array, n: i32) => {
  const i = cuda.grid(1);
  if (i < n) out[i] = i;
});
export const fill2d = cuda.jit((out: Array2D<f32>, skipRow: i32, skipCol: i32) => {
  const [r, c] = cuda.grid(2);
  if (r < out.shape[0] && c < out.shape[1] && !(r === skipRow && c === skipCol)) out[r][c] = 1;
});
export const histogram = cuda.jit((x: Int32Array, bins: Int32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) cuda.atomic.add(bins, x[i], 1);
});
const put = cuda.device((a: Float32Array, i: i32, v: f32): void => {
  a[i] = v;
});
export const viaDevice = cuda.jit((out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) put(out, i, 2);
});
`;
const art = compileSource(SOURCE);
const FILE_LINE = /written\.test\.[jt]s:\d+:\d+/;

const printed: string[] = [];
const sink = (text: string) => void printed.push(text);
after(() => configureSimulator({ sanitize: false, warn: (t: string) => void process.stderr.write(t), workers: 2, inProcessThreshold: 32768, mainThreadExecutes: true }));
beforeEach(() => {
  printed.length = 0;
  configureSimulator({ sanitize: true, warn: sink, workers: 1, inProcessThreshold: 1 << 30, mainThreadExecutes: true });
});

describe("copyToHost of elements nothing wrote (CSR069)", () => {
  for (const [label, workers] of [["one executor", 1], ["two workers", 2]] as const) {
    it(`a kernel that misses the last elements: warned once, with the array's origin and the first index (${label})`, () => {
      configureSimulator({ workers, inProcessThreshold: workers > 1 ? 0 : 1 << 30, mainThreadExecutes: workers === 1 });
      const out = cuda.deviceArray(1000, f32);
      kernel(art, "fill").launch(8, 128)(out, 996);
      const got = out.copyToHost() as Float32Array;
      assert.equal(got[995], 995);
      assert.equal(printed.length, 1, printed.join(""));
      assert.match(printed[0]!, /^cudascript: CSR069 warning: copyToHost of the device array \(f32, shape \[1000\]\) made by cuda\.deviceArray at \S+: element 996 \(and 3 more elements\) was never written by a kernel or a copy/);
      assert.match(printed[0]!, FILE_LINE);
      out.copyToHost();
      assert.equal(printed.length, 1, "once per array");
    });
  }

  it("every element written (kernel, atomics, a device function, a host copy, a memset-free toDevice): no warning", () => {
    const out = cuda.deviceArray(256, f32);
    kernel(art, "fill").launch(2, 128)(out, 256);
    out.copyToHost();
    const bins = cuda.deviceArray(4, i32);
    kernel(art, "histogram").launch(1, 64)(cuda.toDevice(new Int32Array(64).map((_, k) => k % 4)), bins);
    assert.deepEqual(Array.from(bins.copyToHost() as Int32Array), [16, 16, 16, 16]);
    const viaFn = cuda.deviceArrayLike(new Float32Array(100));
    kernel(art, "viaDevice").launch(1, 128)(viaFn);
    viaFn.copyToHost();
    const copied = cuda.deviceArray(10, f32);
    copied.copyToDevice(new Float32Array(10).fill(3));
    copied.copyToHost();
    cuda.toDevice(new Float32Array(8)).copyToHost();
    assert.deepEqual(printed, []);
  });

  it("a 2-D array names the element by row and column; toDevice(a, { copy: false }) is tracked too", () => {
    const out = cuda.deviceArray([4, 8], f32);
    kernel(art, "fill2d").launch([1, 1], [4, 8])(out, 2, 5);
    out.copyToHost();
    assert.equal(printed.length, 1, printed.join(""));
    assert.match(printed[0]!, /\(f32, shape \[4, 8\]\) made by cuda\.deviceArray at \S+: element \[2, 5\] was never written/);
    printed.length = 0;
    const lazy = cuda.toDevice(new Float32Array(16), { copy: false });
    lazy.copyToHost();
    assert.match(printed.join(""), /made by cuda\.toDevice\(a, \{ copy: false \}\) at \S+: element 0 \(and 15 more elements\)/);
  });

  it("without the sanitizer nothing is tracked; a plain launch stops the tracking of its arrays", () => {
    configureSimulator({ sanitize: false });
    const a = cuda.deviceArray(16, f32);
    a.copyToHost();
    assert.deepEqual(printed, []);
    configureSimulator({ sanitize: true });
    const b = cuda.deviceArray(16, f32);
    configureSimulator({ sanitize: false });
    kernel(art, "fill").launch(1, 16)(b, 16);
    configureSimulator({ sanitize: true });
    b.copyToHost();
    assert.deepEqual(printed, [], "written by a launch the sanitizer did not see: not reported");
  });
});
