/**
 * Every array the host API allocates starts zeroed on the simulator (docs/host-api.md#new-arrays-start-zeroed),
 * also where a freed array left other values, with the sanitizer on or off: a histogram accumulated
 * into a fresh cuda.deviceArray counts from 0, as examples/histogram.ts relies on (the GPU path is
 * test/gpu/double-memory.test.ts, against a libcuda double whose fresh memory is garbage).
 */
import * as assert from "node:assert/strict";
import { test } from "node:test";
import { configureSimulator, cuda, u32, u8 } from "cudascript";
import { compileSource, kernel } from "./helpers";

const art = compileSource(`
import { cuda, type Array1D, type u8, type u32 } from "cudascript";
export const fill = cuda.jit((a: Array1D<u32>, v: u32) => {
  const i = cuda.grid(1);
  if (i < a.length) a[i] = v;
});
export const histogram = cuda.jit((data: Array1D<u8>, hist: Array1D<u32>) => {
  const i = cuda.grid(1);
  if (i < data.length) cuda.atomic.add(hist, data[i], 1);
});
`);
const fill = kernel(art, "fill");
const histogram = kernel(art, "histogram");

for (const sanitize of [false, true]) {
  test(`a histogram into a fresh deviceArray counts from zero, after a freed array of the same size held other values (sanitizer ${sanitize ? "on" : "off"})`, () => {
    configureSimulator({ sanitize });
    try {
      for (let round = 0; round < 3; round++) {
        const dirty = cuda.deviceArray(256, u32);
        fill.launch(1, 256)(dirty, 0xdeadbeef);
        dirty.free();
        const data = Uint8Array.from({ length: 1000 }, (_, i) => (i * 7) & 255);
        const hist = cuda.deviceArray(256, u32);
        histogram.launch(4, 256)(cuda.toDevice(data), hist);
        const expected = new Uint32Array(256);
        for (const b of data) expected[b]!++;
        assert.deepEqual([...hist.copyToHost()], [...expected]);
        hist.free();
      }
      for (const a of [cuda.deviceArrayLike(new Uint32Array(64)).copyToHost(), cuda.toDevice(new Uint32Array(64).fill(9), { copy: false }).copyToHost(), cuda.pinnedArray(64, u32), cuda.mappedArray(64, u8), cuda.managedArray(64, u32)])
        assert.ok([...(a as Uint32Array)].every((v) => v === 0));
    } finally {
      configureSimulator({ sanitize: false });
    }
  });
}
