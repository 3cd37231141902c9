/**
 * f16 arrays in simulated kernels are Uint16Arrays of their bits, decoded and encoded through the
 * tables of runtime/src/simulator/f16-table.ts: never element by element through a Float16Array (on
 * Node 20/22 the polyfill's Proxy, which made f16 kernels ~200x slower than f32). Every kind of array
 * (parameter, shared, dynamic shared, local, constant, a device function's parameter, atomics, warp
 * shuffles of loaded values, the sanitizer variant) must still give what TypeScript computes with
 * Float16Array and Math.f16round, special values included.
 */
import * as assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { configureSimulator, Float16Array, f16round } from "cudascript";
import { lastLaunch, makeArgs } from "cudascript/dist/simulator/executor";
import { compileSource, kernel } from "./helpers";

after(() => configureSimulator({ sanitize: false, workers: 2, inProcessThreshold: 32768, mainThreadExecutes: true }));

const SOURCE = `
import { cuda, f16, i32, Float16Array } from "cudascript";

const K = new Float16Array([0.5, 1.5, -2, 3]);

const twice = cuda.device((a: Float16Array, i: i32): f16 => {
  a[i] = a[i] * 2;
  return a[i];
});

export const halfPaths = cuda.jit((x: Float16Array, out: Float16Array, sums: Float16Array) => {
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  const tile = cuda.shared.array(32, f16);
  const dyn = cuda.shared.array(0, f16);
  const loc = cuda.local.array(2, f16);
  const c = cuda.const.arrayLike(K);
  const v = x[i];
  tile[t] = v;
  dyn[t] = v * c[t % 4];
  loc[0] = v;
  loc[1] = v * 0.5;
  cuda.syncthreads();
  const o = i * 7;
  out[o] = tile[31 - t];
  out[o + 1] = dyn[t];
  out[o + 2] = loc[0] - loc[1];
  out[o + 3] = cuda.shflDownSync(0xffffffff, v, 1);
  out[o + 4] = v;
  out[o + 5] = v * 4096;
  out[o + 6] = twice(out, o + 4);
  cuda.atomic.add(sums, t % 4, c[t % 4]);
});
`;

const art = compileSource(SOURCE);

/** Special values first (signed zeros, NaN, infinities, subnormals, the largest finite), then ordinary ones. */
function inputs(): Float16Array {
  const special = [-0, 0, NaN, Infinity, -Infinity, 2 ** -24, -(2 ** -24), 2 ** -14 - 2 ** -24, 65504, -65504, 1 / 3, 0.1];
  const x = new Float16Array(64);
  for (let i = 0; i < 64; i++) x[i] = i < special.length ? special[i]! : (i - 30) * 1.37;
  return x;
}

/** The same computation in TypeScript: Float16Array stores and Math.f16round after every operation. */
function expected(x: Float16Array): { out: Float16Array; sums: Float16Array } {
  const K = [0.5, 1.5, -2, 3];
  const out = new Float16Array(64 * 7), sums = new Float16Array(4);
  for (let i = 0; i < 64; i++) {
    const t = i % 32, block = i - t, v = x[i]!, o = i * 7;
    out[o] = x[block + 31 - t]!;
    out[o + 1] = f16round(v * K[t % 4]!);
    out[o + 2] = f16round(v - f16round(v * 0.5));
    out[o + 3] = t < 31 ? x[i + 1]! : v; // the last lane of a warp reads its own value
    out[o + 4] = v;
    out[o + 5] = f16round(v * 4096);
    out[o + 4] = f16round(out[o + 4]! * 2);
    out[o + 6] = out[o + 4]!;
    sums[t % 4] = f16round(sums[t % 4]! + K[t % 4]!);
  }
  return { out, sums };
}

/** Bits, so that -0 and NaN compare exactly. */
function bits(a: Float16Array): number[] {
  return Array.from(new Uint16Array(a.buffer, a.byteOffset, a.length));
}

describe("f16 arrays on the simulator are their raw 16-bit storage", () => {
  it("a kernel gets an f16 argument as a Uint16Array over the argument's bytes, and no emitted code names Float16Array", () => {
    const host = new Float16Array([1.5, -0]);
    const [view] = makeArgs([{ kind: "array", buffer: host.buffer, byteOffset: 0, length: 2, dtype: "f16", shape: [2], strides: [1] }]);
    assert.ok(view instanceof Uint16Array, `got ${Object.prototype.toString.call(view)}`);
    assert.equal(view.buffer, host.buffer);
    assert.deepEqual(Array.from(view), bits(host));
    for (const source of [art.simulator.js, art.simulator.jsSanitize]) assert.doesNotMatch(source, /Float16Array|halfBits/);
  });

  for (const mode of [
    { name: "in the calling thread", opts: { sanitize: false, workers: 1, inProcessThreshold: 1 << 30 } },
    { name: "on 2 workers (atomics as compare-and-swap on the bits)", opts: { sanitize: false, workers: 2, inProcessThreshold: 0, mainThreadExecutes: true } },
    { name: "under the sanitizer", opts: { sanitize: true, workers: 1, inProcessThreshold: 1 << 30 } },
  ])
    it(`parameter, shared, dynamic shared, local and constant f16 arrays, a device function and atomics agree with TypeScript, special values included (${mode.name})`, () => {
      configureSimulator(mode.opts);
      const x = inputs(), out = new Float16Array(64 * 7), sums = new Float16Array(4);
      kernel(art, "halfPaths").launch(2, 32, { sharedMem: 64 })(x, out, sums);
      assert.equal(lastLaunch()?.executors, mode.opts.workers);
      const want = expected(x);
      assert.deepEqual(bits(out), bits(want.out));
      assert.deepEqual(bits(sums), bits(want.sums));
    });
});
