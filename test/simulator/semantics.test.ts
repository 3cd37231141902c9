/**
 * The simulator's semantics, kernel by kernel against plain JavaScript: integer wraparound, integer
 * division, conversions, f32 rounding, atomics, warp operations with lockstep and inactive lanes,
 * block votes, barriers inside device functions and divergent control flow, printf.
 */
import * as assert from "node:assert/strict";
import { describe, it, after } from "node:test";
import { configureSimulator, cuda, CudaScriptError } from "cudascript";
import { compileSource, kernel } from "./helpers";

after(() => configureSimulator({ sanitize: false, print: (t) => process.stdout.write(t) }));

const art = compileSource(`
import { cuda, f32, f64, i32, u32, i8, u8 } from "cudascript";

export const intOps = cuda.jit((a: Int32Array, b: Int32Array, out: Int32Array) => {
  const i = cuda.grid(1);
  if (i >= a.length) return;
  const x = a[i];
  const y = b[i];
  out[i * 8 + 0] = x + y;
  out[i * 8 + 1] = x * y;
  out[i * 8 + 2] = (x / y) | 0;
  out[i * 8 + 3] = x % y;
  out[i * 8 + 4] = x << y;
  out[i * 8 + 5] = x >> y;
  out[i * 8 + 6] = x >>> y;
  out[i * 8 + 7] = Math.imul(x, y) ^ ~x;
});

export const u32Ops = cuda.jit((a: Uint32Array, b: Uint32Array, out: Uint32Array) => {
  const i = cuda.grid(1);
  if (i >= a.length) return;
  const x: u32 = a[i];
  const y: u32 = b[i];
  out[i * 4 + 0] = x + y;
  out[i * 4 + 1] = x - y;
  out[i * 4 + 2] = x * y;
  out[i * 4 + 3] = Math.trunc(x / y);
});

export const conversions = cuda.jit((v: Float64Array, toI32: Int32Array, toU32: Uint32Array, toI8: Int8Array, toU8: Uint8Array, toF32: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= v.length) return;
  const x = v[i];
  toI32[i] = x | 0;
  toU32[i] = x >>> 0;
  toI8[i] = x | 0;
  toU8[i] = x | 0;
  toF32[i] = Math.fround(x);
});

export const f32Math = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= x.length) return;
  const v = x[i];
  out[i * 6 + 0] = v * 3.1 + 0.7;
  out[i * 6 + 1] = Math.sqrt(Math.abs(v)) / 3;
  out[i * 6 + 2] = Math.round(v);
  out[i * 6 + 3] = Math.max(v, 0.5);
  out[i * 6 + 4] = Math.exp(v) - Math.log(Math.abs(v) + 1);
  out[i * 6 + 5] = cuda.fma(v, 1.5, -0.25);
});

export const atomicsAll = cuda.jit((u: Uint32Array, s: Int32Array, f: Float32Array) => {
  const t = cuda.grid(1);
  cuda.atomic.inc(u, 0, 9);
  cuda.atomic.dec(u, 1, 100);
  cuda.atomic.max(s, 0, t);
  cuda.atomic.min(s, 1, -t);
  cuda.atomic.add(f, 0, 0.5);
  cuda.atomic.compareAndSwap(s, 2, t, t + 1);
  cuda.atomic.xor(s, 3, t);
  cuda.atomic.sub(s, 4, 2);
});

export const warpOps = cuda.jit((out: Int32Array) => {
  const t = cuda.threadIdx.x;
  const lane = cuda.laneid;
  const v = t * 10;
  out[t * 8 + 0] = cuda.shflSync(0xffffffff, v, 3);
  out[t * 8 + 1] = cuda.shflUpSync(0xffffffff, v, 1);
  out[t * 8 + 2] = cuda.shflDownSync(0xffffffff, v, 2);
  out[t * 8 + 3] = cuda.shflXorSync(0xffffffff, v, 1);
  out[t * 8 + 4] = cuda.ballotSync(0xffffffff, lane % 3 === 0);
  out[t * 8 + 5] = cuda.anySync(0xffffffff, t === 5) ? 1 : 0;
  out[t * 8 + 6] = cuda.allSync(0xffffffff, lane < 31) ? 1 : 0;
  if (lane < 8) {
    out[t * 8 + 7] = cuda.activemask();
  }
});

export const divergentShuffle = cuda.jit((out: Int32Array) => {
  const t = cuda.threadIdx.x;
  let v = t;
  if (t % 2 === 0) {
    // Only even lanes take part; odd sources are inactive and give the lane's own value.
    v = cuda.shflDownSync(0x55555555, v, 2) + cuda.shflDownSync(0x55555555, v, 1) * 1000;
  }
  out[t] = v;
});

export const votes = cuda.jit((x: Int32Array, out: Int32Array) => {
  const t = cuda.threadIdx.x;
  const c = cuda.syncthreadsCount(x[t] > 0);
  const a = cuda.syncthreadsAnd(x[t] > -100);
  const o = cuda.syncthreadsOr(x[t] > 90);
  if (t === 0) {
    out[0] = c;
    out[1] = a;
    out[2] = o;
  }
});

const blockReduce = cuda.device((v: f32, tile: Float32Array): f32 => {
  const t = cuda.threadIdx.x;
  tile[t] = v;
  cuda.syncthreads();
  if (cuda.blockDim.x === 1) {
    return tile[0];
  }
  for (let s = cuda.blockDim.x >> 1; s > 0; s >>= 1) {
    if (t < s) {
      tile[t] += tile[t + s];
    }
    cuda.syncthreads();
  }
  const total = tile[0];
  cuda.syncthreads();
  return total;
});

export const twoReductions = cuda.jit((x: Float32Array, out: Float32Array) => {
  const tile = cuda.shared.array(64, f32);
  const t = cuda.threadIdx.x;
  const a = blockReduce(x[t], tile);
  const b = blockReduce(x[t] * 2, tile);
  if (t === 0) {
    out[0] = a;
    out[1] = b;
  }
});

export const maskedLoop = cuda.jit((n: Int32Array, out: Int32Array) => {
  const t = cuda.threadIdx.x;
  let acc = 0;
  let k = 0;
  // Thread-dependent trip count with warp ops inside: lanes drop out as they finish.
  while (k < n[t]) {
    if (k === 3) {
      k++;
      continue;
    }
    acc += cuda.shflXorSync(cuda.activemask(), k, 1);
    if (acc > 1000) break;
    k++;
  }
  out[t] = acc;
});

export const localAcrossBarrier = cuda.jit((out: Int32Array) => {
  const mine = cuda.local.array(4, i32);
  const sh = cuda.shared.array(64, i32);
  const t = cuda.threadIdx.x;
  for (let k = 0; k < 4; k++) mine[k] = t * 4 + k;
  sh[t] = mine[3];
  cuda.syncthreads();
  out[t] = mine[0] + sh[(t + 1) % 64];
});

export const printer = cuda.jit((x: Float32Array) => {
  const t = cuda.threadIdx.x;
  const big: u32 = 4000000000;
  if (t < 2) {
    console.log("thread", t, "value", x[t], "u", big);
  }
});

const FILTER = new Float32Array([0.25, 0.5, 0.25]);
export const constMem = cuda.jit((x: Float32Array, out: Float32Array) => {
  const w = cuda.const.arrayLike(FILTER);
  const i = cuda.grid(1);
  if (i > 0 && i < x.length - 1) {
    out[i] = w[0] * x[i - 1] + w[1] * x[i] + w[2] * x[i + 1];
  }
});
`);

const f = Math.fround;

describe("simulator semantics", () => {
  it("i32 arithmetic wraps; integer division truncates (÷0 → 0); shifts use the low 5 bits", () => {
    const a = Int32Array.of(2147483647, -7, 7, -2147483648, 123456789, 5);
    const b = Int32Array.of(1, 2, -2, -1, 33, 0);
    const out = new Int32Array(a.length * 8);
    kernel(art, "intOps").launch(1, 32)(a, b, out);
    for (let i = 0; i < a.length; i++) {
      const x = a[i]!, y = b[i]!;
      const want = [(x + y) | 0, Math.imul(x, y), y === 0 ? 0 : (x / y) | 0, (x % y) | 0, x << y, x >> y, (x >>> y) | 0, Math.imul(x, y) ^ ~x];
      assert.deepEqual([...out.subarray(i * 8, i * 8 + 8)], want, `a=${x} b=${y}`);
    }
  });
  it("u32 arithmetic wraps", () => {
    const a = Uint32Array.of(4294967295, 3, 100000, 7);
    const b = Uint32Array.of(2, 5, 100000, 0);
    const out = new Uint32Array(16);
    kernel(art, "u32Ops").launch(1, 32)(a, b, out);
    for (let i = 0; i < 4; i++) {
      const x = a[i]!, y = b[i]!;
      assert.deepEqual([...out.subarray(i * 4, i * 4 + 4)], [(x + y) >>> 0, (x - y) >>> 0, Math.imul(x, y) >>> 0, y === 0 ? 0 : Math.trunc(x / y)]);
    }
  });
  it("float → int truncates and wraps like ToInt32 / ToUint32 (NaN → 0); narrow stores wrap", () => {
    const v = Float64Array.of(3.99, -3.99, 2 ** 32 + 5.5, -1, NaN, 1e20, 300.7, -129.2);
    const n = v.length;
    const i32 = new Int32Array(n), u32 = new Uint32Array(n), i8 = new Int8Array(n), u8 = new Uint8Array(n), f32a = new Float32Array(n);
    kernel(art, "conversions").launch(1, 32)(v, i32, u32, i8, u8, f32a);
    assert.deepEqual([...i32], [...v].map((x) => x | 0));
    assert.deepEqual([...u32], [...v].map((x) => x >>> 0));
    assert.deepEqual([...i8], [...v].map((x) => ((x | 0) << 24) >> 24));
    assert.deepEqual([...u8], [...v].map((x) => (x | 0) & 255));
    assert.deepEqual([...f32a], [...v].map((x) => f(x)));
  });
  it("f32 results are rounded after every operation", () => {
    const x = Float32Array.of(0.1, -2.5, 3.5, 1e-3, 7.25, NaN);
    const out = new Float32Array(x.length * 6);
    kernel(art, "f32Math").launch(1, 32)(x, out);
    for (let i = 0; i < x.length; i++) {
      const v = x[i]!;
      const want = [
        f(f(v * f(3.1)) + f(0.7)),
        f(f(Math.sqrt(Math.abs(v))) / 3),
        Math.round(v),
        Number.isNaN(v) ? 0.5 : Math.max(v, 0.5), // C's fmaxf: a NaN operand gives the other one
        f(f(Math.exp(v)) - f(Math.log(f(Math.abs(v) + 1)))),
        f(v * 1.5 + -0.25),
      ];
      assert.deepEqual([...out.subarray(i * 6, i * 6 + 6)], want.map((w) => f(w)), `x=${v}`);
    }
  });
  it("atomics return old values; inc/dec follow CUDA", () => {
    const u = Uint32Array.of(0, 0), s = Int32Array.of(-1, 1, 0, 0, 0), fl = new Float32Array(1);
    kernel(art, "atomicsAll").launch(2, 32)(u, s, fl);
    // inc with limit 9 over 64 increments: ((64) mod 10); dec from 0 with limit 100: 0 → 100 → 99 … 64 steps.
    let inc = 0, dec = 0;
    for (let k = 0; k < 64; k++) {
      inc = inc >= 9 ? 0 : inc + 1;
      dec = dec === 0 || dec > 100 ? 100 : dec - 1;
    }
    assert.deepEqual([...u], [inc, dec]);
    let cas = 0;
    for (let t = 0; t < 64; t++) if (cas === t) cas = t + 1;
    let xor = 0;
    for (let t = 0; t < 64; t++) xor ^= t;
    assert.deepEqual([...s], [63, -63, cas, xor, -128]);
    assert.equal(fl[0], 32);
  });
  it("warp shuffles, votes and ballot work in lockstep per 32 lanes (partial last warp)", () => {
    const T = 48;
    const out = new Int32Array(T * 8);
    kernel(art, "warpOps").launch(1, T)(out);
    for (let t = 0; t < T; t++) {
      const w = t & ~31, lane = t & 31, size = Math.min(32, T - w);
      const val = (l: number) => (w + l) * 10;
      const src = (s: number) => (s >= 0 && s < size ? val(s) : val(lane));
      let ballot = 0;
      for (let l = 0; l < size; l++) if (l % 3 === 0) ballot |= 1 << l;
      const any = w === 0 ? 1 : 0;
      const all = size < 32 || lane >= 0 ? (size === 32 ? 0 : 1) : 0;
      const got = [...out.subarray(t * 8, t * 8 + 8)];
      assert.deepEqual(got.slice(0, 7), [src(3), src(lane - 1), lane + 2 < 32 ? src(lane + 2) : val(lane), src(lane ^ 1), ballot, any, all], `thread ${t}`);
      assert.equal(got[7], lane < 8 ? 0xff : 0, `activemask thread ${t}`);
    }
  });
  it("shuffles inside a divergent branch read only active lanes (inactive source → own value)", () => {
    const out = new Int32Array(32);
    kernel(art, "divergentShuffle").launch(1, 32)(out);
    for (let t = 0; t < 32; t++) {
      if (t % 2) assert.equal(out[t], t);
      else {
        const down2 = t + 2 < 32 ? t + 2 : t;
        const down1 = t; // t + 1 is odd: inactive
        assert.equal(out[t], down2 + down1 * 1000, `lane ${t}`);
      }
    }
  });
  it("syncthreadsCount / And / Or reduce over the block", () => {
    const x = Int32Array.from({ length: 64 }, (_, i) => i - 20);
    const out = new Int32Array(3);
    kernel(art, "votes").launch(1, 64)(x, out);
    assert.deepEqual([...out], [43, 1, 0]);
  });
  it("barriers inside a device function with an early return, called twice", () => {
    const x = Float32Array.from({ length: 64 }, (_, i) => i);
    const out = new Float32Array(2);
    kernel(art, "twoReductions").launch(1, 64)(x, out);
    assert.deepEqual([...out], [2016, 4032]);
    const one = new Float32Array(2);
    kernel(art, "twoReductions").launch(1, 1)(Float32Array.of(5), one);
    assert.deepEqual([...one], [5, 10]);
  });
  it("warp operations in a loop with thread-dependent trip counts, continue and break", () => {
    const n = Int32Array.from({ length: 64 }, (_, i) => i % 7);
    const out = new Int32Array(64);
    kernel(art, "maskedLoop").launch(1, 64)(n, out);
    // Reference: lockstep simulation of the loop.
    const k = new Int32Array(64), acc = new Int32Array(64), active = n.map(() => 1);
    for (;;) {
      for (let t = 0; t < 64; t++) if (active[t] && !(k[t]! < n[t]!)) active[t] = 0;
      if (!active.some((a) => a)) break;
      const cont = new Int32Array(64);
      for (let t = 0; t < 64; t++) if (active[t] && k[t] === 3) {
        k[t]!++;
        cont[t] = 1;
      }
      const vals = [...k];
      for (let t = 0; t < 64; t++) {
        if (!active[t] || cont[t]) continue;
        const s = t ^ 1;
        const srcActive = active[s] && !cont[s];
        acc[t] += srcActive ? vals[s]! : vals[t]!;
      }
      for (let t = 0; t < 64; t++) {
        if (!active[t] || cont[t]) continue;
        if (acc[t]! > 1000) active[t] = 0;
        else k[t]!++;
      }
    }
    assert.deepEqual([...out], [...acc]);
  });
  it("local arrays keep one copy per thread across barriers", () => {
    const out = new Int32Array(64);
    kernel(art, "localAcrossBarrier").launch(1, 64)(out);
    assert.deepEqual([...out], Array.from({ length: 64 }, (_, t) => t * 4 + (((t + 1) % 64) * 4 + 3)));
  });
  it("console.log in kernels prints like printf (%d %g %u)", () => {
    let text = "";
    configureSimulator({ print: (t) => (text += t) });
    kernel(art, "printer").launch(1, 32)(Float32Array.of(0.5, 1e-7));
    configureSimulator({ print: (t) => process.stdout.write(t) });
    assert.equal(text, "thread 0 value 0.5 u 4000000000\nthread 1 value 1e-07 u 4000000000\n");
  });
  it("constant memory", () => {
    const x = Float32Array.of(1, 2, 3, 4);
    const out = new Float32Array(4);
    kernel(art, "constMem").launch(1, 4)(x, out);
    assert.deepEqual([...out], [0, 2, 3, 0]);
  });
  it("a kernel fault is an error the host can catch, and the simulator keeps working", () => {
    assert.throws(() => kernel(art, "constMem").launch(1, 8)(new Float32Array(8), new Float32Array(2)), (e: unknown) => e instanceof CudaScriptError && e.code === "CSR020");
    const out = new Float32Array(4);
    kernel(art, "constMem").launch(1, 4)(Float32Array.of(1, 2, 3, 4), out);
    assert.equal(out[1], 2);
  });
});
