/**
 * Privatized global atomics on worker threads: used when a kernel's array only takes result-unused
 * atomics of one commutative class (and the launch does not alias it), not used otherwise, and the
 * results are exact for integers on 2 workers. Also: kernels whose global atomics stay real Atomics
 * try all workers and one executor and keep the faster; a single executor uses plain operations.
 */
import * as assert from "node:assert/strict";
import { describe, it, after, beforeEach } from "node:test";
import { configureSimulator, cuda, u32 } from "cudascript";
import { lastLaunch } from "cudascript/dist/simulator/executor";
import { DeviceNDArray } from "cudascript/dist/host/arrays";
import { dtypes } from "cudascript/dist/dtypes";
import { identity, mergePrivate, privatizeArgs } from "cudascript/dist/simulator/privatize";
import { compileSource, kernel } from "./helpers";

const POOL = { workers: 2, inProcessThreshold: 0, mainThreadExecutes: true, sanitize: false, deadline: Infinity, privatize: true, adaptive: true };
after(() => configureSimulator({ workers: 2, inProcessThreshold: 32768, mainThreadExecutes: true, sanitize: false, deadline: Infinity, privatize: true, adaptive: true }));
beforeEach(() => configureSimulator(POOL));

const art = compileSource(`
import { cuda, f32, i32, u32, Array2D } from "cudascript";

export const histogram = cuda.jit((data: Uint8Array, hist: Uint32Array) => {
  const i = cuda.grid(1);
  if (i < data.length) cuda.atomic.add(hist, data[i], 1);
});

/** Every commutative class on one launch: add/sub, and, or, xor, max, min (ints) and a float sum. */
export const classes = cuda.jit((data: Uint8Array, sum: Int32Array, a: Uint32Array, o: Uint32Array, x: Int32Array, mx: Int32Array, mn: Uint32Array, f: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= data.length) return;
  const v = data[i];
  cuda.atomic.add(sum, v & 7, v);
  cuda.atomic.sub(sum, (v >> 3) & 7, 3);
  cuda.atomic.and(a, v & 3, ~(1 << (v & 31)));
  cuda.atomic.or(o, v & 3, 1 << (v & 31));
  cuda.atomic.xor(x, v & 3, i);
  cuda.atomic.max(mx, v & 3, (v * 7919 + i) % 100003 - 50000);
  cuda.atomic.min(mn, v & 3, (v * 104729 + i) % 999983);
  cuda.atomic.add(f, 0, 0.25);
});

const bump = cuda.device((h: Uint32Array, i: i32): void => {
  cuda.atomic.add(h, i, 1);
});
export const viaDevice = cuda.jit((data: Uint8Array, hist: Uint32Array) => {
  const i = cuda.grid(1);
  if (i < data.length) bump(hist, data[i]);
});

export const grid2d = cuda.jit((data: Uint8Array, hist: Array2D<u32>) => {
  const i = cuda.grid(1);
  if (i < data.length) cuda.atomic.add(hist, [data[i] & 3, data[i] >> 6], 1);
});

/** Reads the histogram it builds: never privatized. */
export const reads = cuda.jit((data: Uint8Array, hist: Uint32Array, seen: Uint32Array) => {
  const i = cuda.grid(1);
  if (i < data.length) {
    cuda.atomic.add(hist, data[i], 1);
    if (i === 0) seen[0] = hist.length;
  }
  if (i < seen.length && i === 1) seen[1] = hist[0] >= 0 ? 1 : 0;
});

/** Uses the old value: the slot each thread got must be unique. */
export const tickets = cuda.jit((data: Uint8Array, counter: Uint32Array, out: Uint32Array) => {
  const i = cuda.grid(1);
  if (i < data.length) out[i] = cuda.atomic.add(counter, 0, 1);
});

/** The same, for the worker-count test only (each kernel has its own measurements). */
export const tickets2 = cuda.jit((data: Uint8Array, counter: Uint32Array, out: Uint32Array) => {
  const i = cuda.grid(1);
  if (i < data.length) out[i] = cuda.atomic.add(counter, 0, 1);
});

export const exch = cuda.jit((data: Uint8Array, last: Int32Array) => {
  const i = cuda.grid(1);
  if (i < data.length) cuda.atomic.exch(last, data[i] & 1, 7);
});

export const twoHists = cuda.jit((data: Uint8Array, h1: Uint32Array, h2: Uint32Array) => {
  const i = cuda.grid(1);
  if (i < data.length) {
    cuda.atomic.add(h1, data[i], 1);
    cuda.atomic.add(h2, data[i], 1);
  }
});

export const cas = cuda.jit((data: Uint8Array, flags: Int32Array, count: Uint32Array) => {
  const i = cuda.grid(1);
  if (i < data.length && cuda.atomic.compareAndSwap(flags, data[i], 0, 1) === 0) cuda.atomic.add(count, 0, 1);
});
`);

const N = 1 << 16;
function bytes(n: number, seed: number): Uint8Array {
  const d = new Uint8Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    d[i] = s >>> 24;
  }
  return d;
}
const data = bytes(N, 7);
const launch = (name: string, ...args: unknown[]) => kernel(art, name).launch(N / 256, 256)(...args);

function histRef(d: Uint8Array, bins = 256): Uint32Array {
  const h = new Uint32Array(bins);
  for (const v of d) h[v]!++;
  return h;
}

describe("privatized global atomics", () => {
  it("a histogram on 2 workers is privatized, and exact", () => {
    const dd = cuda.toDevice(data);
    for (let rep = 0; rep < 3; rep++) {
      const h = cuda.toDevice(new Uint32Array(256).fill(rep)); // merges add to what is there
      launch("histogram", dd, h);
      assert.deepEqual(lastLaunch(), { kernel: "histogram", executors: 2, privatized: ["hist"] });
      assert.deepEqual(h.copyToHost(), histRef(data).map((v) => v + rep));
    }
  });

  it("every commutative class is privatized, and gives exactly what one executor gives (ints; the float sum of quarters too)", () => {
    const init = {
      sum: new Int32Array(8).fill(5),
      a: new Uint32Array(4).fill(0xffffffff),
      o: new Uint32Array(4),
      x: new Int32Array(4).fill(-3),
      mx: new Int32Array(4).fill(-2147483648),
      mn: new Uint32Array(4).fill(0xffffffff),
      f: new Float32Array(1),
    };
    const run = () => {
      const dev = Object.values(init).map((v) => cuda.toDevice(v.slice()));
      launch("classes", cuda.toDevice(data), ...dev);
      return { report: lastLaunch(), results: dev.map((d) => d.copyToHost()) };
    };
    const pooled = run();
    assert.deepEqual(pooled.report, { kernel: "classes", executors: 2, privatized: ["sum", "a", "o", "x", "mx", "mn", "f"] });
    configureSimulator({ workers: 1, inProcessThreshold: 1 << 30 });
    const one = run();
    assert.equal(one.report?.executors, 1);
    assert.deepEqual(pooled.results, one.results);
    assert.equal((one.results[6] as unknown as Float32Array)[0], N / 4);
    // and the histogram-style ones against plain JavaScript
    const sum = new Int32Array(8).fill(5), o = new Uint32Array(4);
    for (const v of data) {
      sum[v & 7]! += v;
      sum[(v >> 3) & 7]! -= 3;
      o[v & 3]! |= 1 << (v & 31);
    }
    assert.deepEqual(pooled.results[0], sum);
    assert.deepEqual(pooled.results[2], o);
  });

  it("arrays passed to device functions and 2-D arrays are privatized too", () => {
    const h = cuda.toDevice(new Uint32Array(256));
    launch("viaDevice", cuda.toDevice(data), h);
    assert.deepEqual(lastLaunch()?.privatized, ["hist"]);
    assert.deepEqual(h.copyToHost(), histRef(data));
    const h2 = cuda.toDevice(cuda.ndarray(new Uint32Array(16), [4, 4]));
    launch("grid2d", cuda.toDevice(data), h2);
    assert.deepEqual(lastLaunch()?.privatized, ["hist"]);
    const want = new Uint32Array(16);
    for (const v of data) want[(v & 3) * 4 + (v >> 6)]!++;
    assert.deepEqual((h2.copyToHost() as unknown as { data: Uint32Array }).data, want);
  });

  it("not privatized when the kernel reads the array, uses atomic results, or uses exch / compareAndSwap", () => {
    const dd = cuda.toDevice(data);
    const h = cuda.toDevice(new Uint32Array(256)), seen = cuda.deviceArray(2, u32);
    launch("reads", dd, h, seen);
    assert.deepEqual(lastLaunch()?.privatized, []);
    assert.deepEqual(h.copyToHost(), histRef(data));

    const counter = cuda.toDevice(new Uint32Array(1)), out = cuda.deviceArray(N, u32);
    launch("tickets", dd, counter, out);
    assert.deepEqual(lastLaunch()?.privatized, []);
    assert.equal((counter.copyToHost() as Uint32Array)[0], N);
    const slots = (out.copyToHost() as Uint32Array).slice().sort();
    assert.ok(slots.every((v, i) => v === i), "every ticket handed out exactly once");

    const last = cuda.toDevice(new Int32Array(2));
    launch("exch", dd, last);
    assert.deepEqual(lastLaunch()?.privatized, []);
    assert.deepEqual(last.copyToHost(), new Int32Array([7, 7]));

    const flags = cuda.toDevice(new Int32Array(256)), count = cuda.toDevice(new Uint32Array(1));
    launch("cas", dd, flags, count);
    // `count` qualifies (add, result unused); `flags` (compareAndSwap) does not.
    assert.deepEqual(lastLaunch()?.privatized, ["count"]);
    assert.equal((count.copyToHost() as Uint32Array)[0], new Set(data).size);
  });

  it("not privatized when the launch binds the array's memory to another parameter too (aliasing)", () => {
    const dd = cuda.toDevice(data);
    const h1 = cuda.toDevice(new Uint32Array(256)), h2 = cuda.toDevice(new Uint32Array(256));
    launch("twoHists", dd, h1, h2);
    assert.deepEqual(lastLaunch()?.privatized, ["h1", "h2"]);
    assert.deepEqual(h1.copyToHost(), histRef(data));
    assert.deepEqual(h2.copyToHost(), histRef(data));
    const h = cuda.toDevice(new Uint32Array(256));
    launch("twoHists", dd, h, h); // one device array bound to both parameters
    assert.deepEqual(lastLaunch()?.privatized, []);
    assert.deepEqual(h.copyToHost(), histRef(data).map((v) => 2 * v));
    // Another array object over the same device memory aliases it just the same.
    const words = cuda.toDevice(new Uint32Array(256));
    const view = new DeviceNDArray([256], dtypes.u32, words.buffer);
    launch("twoHists", dd, words, view);
    assert.deepEqual(lastLaunch()?.privatized, []);
    assert.deepEqual(words.copyToHost(), histRef(data).map((v) => 2 * v));
  });

  it("not privatized when the copy would be large next to the launch, when disabled, or on one executor", () => {
    const dd = cuda.toDevice(data);
    const big = cuda.toDevice(new Uint32Array(N)); // as many bins as threads: merging would cost more than it saves
    launch("histogram", dd, big);
    assert.deepEqual(lastLaunch()?.privatized, []);
    assert.deepEqual(big.copyToHost().slice(0, 256), histRef(data));

    configureSimulator({ privatize: false, adaptive: false });
    const h = cuda.toDevice(new Uint32Array(256));
    launch("histogram", dd, h);
    assert.deepEqual(lastLaunch(), { kernel: "histogram", executors: 2, privatized: [] });
    assert.deepEqual(h.copyToHost(), histRef(data));

    configureSimulator({ privatize: true, workers: 1, inProcessThreshold: 1 << 30 });
    launch("histogram", dd, h);
    assert.deepEqual(lastLaunch(), { kernel: "histogram", executors: 1, privatized: [] });
  });

  it("with the sanitizer, the launch runs on one executor (global race detection needs one clock): no private copies, the same result", () => {
    configureSimulator({ sanitize: true });
    const h = cuda.toDevice(new Uint32Array(256));
    launch("viaDevice", cuda.toDevice(data), h);
    assert.equal(lastLaunch()?.executors, 1);
    assert.deepEqual(lastLaunch()?.privatized, []);
    assert.deepEqual(h.copyToHost(), histRef(data));
  });

  it("merging: identities leave elements alone, and concurrent merges are Atomics", () => {
    assert.equal(identity("and", "u32"), -1);
    assert.ok(Object.is(identity("add", "f32"), -0));
    const real = new Float32Array(new SharedArrayBuffer(8));
    real[0] = -0;
    const args: unknown[] = [real];
    const { flags, copies } = privatizeArgs(args, [{ param: 0, name: "r", op: "add", dtype: "f32" }]);
    assert.deepEqual(flags, [true]);
    assert.notEqual(args[0], real);
    (args[0] as Float32Array)[1] = 1.5;
    mergePrivate(copies[0]!);
    assert.ok(Object.is(real[0], -0), "an untouched -0 stays -0 (x + -0 === x)");
    assert.equal(real[1], 1.5);
  });

  it("merging float max/min follows the atomics' rule: a NaN in the real array stays, +0 does not replace -0", () => {
    for (const op of ["max", "min"] as const) {
      const real = new Float64Array(new SharedArrayBuffer(3 * 8));
      real.set([NaN, -0, 1]);
      const args: unknown[] = [real];
      const { copies } = privatizeArgs(args, [{ param: 0, name: "r", op, dtype: "f64" }]);
      (args[0] as Float64Array).set([5, 0, op === "max" ? 2 : 0.5]);
      mergePrivate(copies[0]!);
      assert.ok(Number.isNaN(real[0]!), `${op}: the real NaN stays (as cuda.atomic.${op} keeps a NaN element)`);
      assert.ok(Object.is(real[1], -0), `${op}: -0 stays (+0 is not greater or smaller)`);
      assert.equal(real[2], op === "max" ? 2 : 0.5);
    }
  });
});

describe("global atomics that stay Atomics: worker count", () => {
  it("the first launches alternate all workers / one executor, then the faster one runs; results stay exact", () => {
    const dd = cuda.toDevice(data);
    const seen: number[] = [];
    for (let rep = 0; rep < 6; rep++) {
      const counter = cuda.toDevice(new Uint32Array(1)), out = cuda.deviceArray(N, u32);
      launch("tickets2", dd, counter, out);
      seen.push(lastLaunch()!.executors);
      assert.equal((counter.copyToHost() as Uint32Array)[0], N);
      assert.ok((out.copyToHost() as Uint32Array).slice().sort().every((v, i) => v === i));
    }
    assert.deepEqual(seen.slice(0, 4), [2, 1, 2, 1]);
    assert.equal(new Set(seen.slice(4)).size, 1, "then one choice sticks");
  });

  it("adaptive: false always uses every worker", () => {
    configureSimulator({ adaptive: false });
    const dd = cuda.toDevice(data);
    for (let rep = 0; rep < 3; rep++) {
      const last = cuda.toDevice(new Int32Array(2));
      launch("exch", dd, last);
      assert.equal(lastLaunch()!.executors, 2);
    }
  });

  it("one worker alone (under a deadline) uses plain operations and is exact", () => {
    configureSimulator({ workers: 1, deadline: Date.now() + 60_000 });
    const counter = cuda.toDevice(new Uint32Array(1)), out = cuda.deviceArray(N, u32);
    launch("tickets", cuda.toDevice(data), counter, out);
    assert.equal(lastLaunch()!.executors, 1);
    assert.equal((counter.copyToHost() as Uint32Array)[0], N);
    assert.ok((out.copyToHost() as Uint32Array).every((v, i) => v === i), "one executor hands tickets out in thread order");
  });
});
