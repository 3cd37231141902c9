/**
 * Array views in kernels on the simulator (docs/kernel-language.md#views): an access through a view
 * is checked against the VIEW's bounds (an element past the view is out of bounds even where the base
 * has it), and the sanitizer sees the base's elements, so two overlapping views of one shared array
 * race on the same element.
 */
import * as assert from "node:assert/strict";
import { describe, it, after } from "node:test";
import { configureSimulator, cuda, CudaScriptError, f32, i32 } from "cudascript";
import { compileSource, kernel } from "./helpers";

after(() => configureSimulator({ sanitize: false, workers: 2, inProcessThreshold: 32768, mainThreadExecutes: true }));

const SOURCE = `
import { cuda, f32, i32 } from "cudascript";
const readAt = cuda.device((a: Float32Array, k: i32): f32 => a[k]);
export const pastTheView = cuda.jit((x: Float32Array, out: Float32Array, k: i32) => {
  const part = x.subarray(4, 8);
  out[0] = part[k]; // VIEW READ
});
export const pastTheViewWrite = cuda.jit((x: Float32Array, k: i32) => {
  const tile = cuda.shared.array(64, f32);
  const mid = tile.subarray(16, 32);
  mid[k] = 1; // VIEW WRITE
  x[0] = tile[0];
});
export const pastTheViewInDevice = cuda.jit((x: Float32Array, out: Float32Array, k: i32) => {
  out[0] = readAt(x.subarray(2, 6), k);
});
export const rowPastTheEnd = cuda.jit((m: Float32Array, out: Float32Array, rows: i32, k: i32) => {
  const tile = cuda.shared.array([4, 8], f32);
  const r = tile[k];
  out[0] = r.length + r[0];
});
export const overlappingViews = cuda.jit((out: Int32Array) => {
  const s = cuda.shared.array(64, i32);
  const t = cuda.threadIdx.x;
  const lo = s.subarray(0, 32);
  const hi = s.subarray(16, 48);
  if (t < 32) lo[t] = t; // LO WRITE
  if (t >= 32) out[t] = hi[t - 32]; // HI READ
});
/** A device function with a barrier (the simulator inlines it) that receives a view, and a view of that view. */
const treeSum = cuda.device((buf: Float32Array, t: i32): void => {
  for (let s = buf.length >> 1; s > 0; s >>= 1) {
    if (t < s) buf[t] += buf[t + s];
    cuda.syncthreads();
  }
});
const halves = cuda.device((buf: Float32Array, t: i32): void => {
  treeSum(buf.subarray(buf.length >> 1), t);
});
export const sumThroughViews = cuda.jit((x: Float32Array, out: Float32Array) => {
  const t = cuda.threadIdx.x;
  const dyn = cuda.shared.array(0, f32);
  const work = dyn.subarray(8, 8 + 2 * cuda.blockDim.x);
  work[t] = 100;
  work[t + cuda.blockDim.x] = x[t];
  cuda.syncthreads();
  halves(work, t);
  if (t === 0) out[0] = work[cuda.blockDim.x];
});
export const disjointViews = cuda.jit((out: Int32Array) => {
  const s = cuda.shared.array(64, i32);
  const t = cuda.threadIdx.x;
  const lo = s.subarray(0, 32);
  const hi = s.subarray(32);
  if (t < 32) lo[t] = t;
  else hi[t - 32] = t;
  cuda.syncthreads();
  out[t] = t < 32 ? hi[t] : lo[t - 32];
});
`;
const lineOf = (marker: string) => SOURCE.split("\n").findIndex((l) => l.includes(marker)) + 1;

describe("array views on the simulator", () => {
  const art = compileSource(SOURCE);

  it("a read past a subarray of a global array is out of bounds at the view's length, though the base has the element", () => {
    configureSimulator({ sanitize: false, workers: 1, inProcessThreshold: 1 << 30 });
    const x = cuda.toDevice(new Float32Array(16).map((_, i) => i));
    const out = cuda.deviceArray(1, f32);
    kernel(art, "pastTheView").launch(1, 1)(x, out, 3);
    assert.equal(out.copyToHost()[0], 7);
    assert.throws(
      () => kernel(art, "pastTheView").launch(1, 1)(x, out, 4),
      (e: unknown) => e instanceof CudaScriptError && e.code === "CSR020" && e.details?.line === lineOf("VIEW READ") && /read of array 'part' at .*: index 4 is outside 0\.\.3/.test(e.message),
    );
    assert.throws(
      () => kernel(art, "pastTheView").launch(1, 1)(x, out, -1),
      (e: unknown) => e instanceof CudaScriptError && e.code === "CSR020" && /'part' at .*: index -1 is outside 0\.\.3/.test(e.message),
    );
  });

  it("a write past a subarray of a shared array is out of bounds at the view's length", () => {
    configureSimulator({ sanitize: false, workers: 1, inProcessThreshold: 1 << 30 });
    const x = cuda.deviceArray(1, f32);
    assert.throws(
      () => kernel(art, "pastTheViewWrite").launch(1, 1)(x, 16),
      (e: unknown) => e instanceof CudaScriptError && e.code === "CSR020" && e.details?.line === lineOf("VIEW WRITE") && /write of shared array 'mid' at .*: index 16 is outside 0\.\.15/.test(e.message),
    );
  });

  it("a device function's parameter that received a view is checked against the view", () => {
    configureSimulator({ sanitize: false, workers: 1, inProcessThreshold: 1 << 30 });
    const x = cuda.toDevice(new Float32Array(16).map((_, i) => i));
    const out = cuda.deviceArray(1, f32);
    kernel(art, "pastTheViewInDevice").launch(1, 1)(x, out, 3);
    assert.equal(out.copyToHost()[0], 5);
    assert.throws(
      () => kernel(art, "pastTheViewInDevice").launch(1, 1)(x, out, 4),
      (e: unknown) => e instanceof CudaScriptError && e.code === "CSR020" && /'a' at .*\(device function 'readAt'\).*: index 4 is outside 0\.\.3/.test(e.message),
    );
  });

  it("a row of a 2-D shared array checks its row index", () => {
    configureSimulator({ sanitize: false, workers: 1, inProcessThreshold: 1 << 30 });
    const out = cuda.deviceArray(1, f32);
    kernel(art, "rowPastTheEnd").launch(1, 1)(cuda.deviceArray(1, f32), out, 4, 3);
    assert.equal(out.copyToHost()[0], 8);
    assert.throws(
      () => kernel(art, "rowPastTheEnd").launch(1, 1)(cuda.deviceArray(1, f32), out, 4, 4),
      (e: unknown) => e instanceof CudaScriptError && e.code === "CSR020" && /'tile' at .*: index 4 is outside 0\.\.3/.test(e.message),
    );
  });

  it("the sanitizer finds a race through two overlapping views of one shared array (the same base element)", () => {
    configureSimulator({ sanitize: true, workers: 1, inProcessThreshold: 1 << 30 });
    assert.throws(
      () => kernel(art, "overlappingViews").launch(1, 64)(cuda.deviceArray(64, i32)),
      (e: unknown) => e instanceof CudaScriptError && e.code === "CSR021" && e.details?.line === lineOf("HI READ") && /\bs\b/.test(e.message),
    );
  });

  it("a device function with a barrier receives a view, and passes on a view of it (inlined: the views compose)", () => {
    for (const sanitize of [false, true]) {
      configureSimulator({ sanitize, workers: 1, inProcessThreshold: 1 << 30 });
      const x = cuda.toDevice(new Float32Array(32).map((_, i) => i));
      const out = cuda.deviceArray(1, f32);
      kernel(art, "sumThroughViews").launch(1, 32, { sharedMem: (8 + 64) * 4 })(x, out);
      assert.equal(out.copyToHost()[0], (31 * 32) / 2);
    }
  });

  it("disjoint views of one shared array do not race, and read each other's halves after a barrier", () => {
    configureSimulator({ sanitize: true, workers: 1, inProcessThreshold: 1 << 30 });
    const out = cuda.deviceArray(64, i32);
    kernel(art, "disjointViews").launch(1, 64)(out);
    assert.deepEqual([...out.copyToHost()], Array.from({ length: 64 }, (_, t) => (t < 32 ? t + 32 : t - 32)));
  });
});
