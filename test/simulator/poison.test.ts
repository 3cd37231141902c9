/**
 * Poison mode (docs/simulator.md, "Poison mode"; issue 32 item 4): with `uninitialized: "poison"` the
 * simulator's shared memory starts every block as NaN (floats) or 0xCD bytes (integers, bools) instead
 * of zeros, so a plain run — no sanitizer — computes from unwritten memory what a GPU's garbage could
 * give. Each dtype's pattern, on one executor and on two workers, static and dynamic shared memory, the
 * GPU-Puzzles matmul still right (its unwritten reads never reach a result), and the option's checks.
 */
import * as assert from "node:assert/strict";
import { describe, it, after } from "node:test";
import { configureSimulator, cuda, CudaScriptError, f32, f64, i32 } from "cudascript";
import { simulatorOptionsFromEnv } from "cudascript/dist/simulator/backend";
import { compileSource, kernel } from "./helpers";

const SOURCE = `
import { cuda, f16, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64 } from "cudascript";
/** Thread t copies shared element t, which only even threads wrote. */
export const copyF32 = cuda.jit((out: Float32Array) => {
  const s = cuda.shared.array(64, f32);
  const t = cuda.threadIdx.x;
  if (t % 2 === 0) s[t] = t;
  cuda.syncthreads();
  out[cuda.blockIdx.x * 64 + t] = s[t];
});
export const copyI32 = cuda.jit((out: Int32Array) => {
  const s = cuda.shared.array(64, i32);
  const t = cuda.threadIdx.x;
  if (t % 2 === 0) s[t] = t;
  cuda.syncthreads();
  out[cuda.blockIdx.x * 64 + t] = s[t];
});
/** Every other dtype's unwritten element 0, read by thread 0. */
export const others = cuda.jit((f: Float64Array, h: Float64Array, i: Int32Array, big: BigInt64Array, ubig: BigUint64Array) => {
  const a = cuda.shared.array(4, f64);
  const b = cuda.shared.array(4, f16);
  const c = cuda.shared.array(4, i8);
  const d = cuda.shared.array(4, u8);
  const e = cuda.shared.array(4, i16);
  const g = cuda.shared.array(4, u16);
  const k = cuda.shared.array(4, u32);
  const l = cuda.shared.array(4, i64);
  const m = cuda.shared.array(4, u64);
  if (cuda.threadIdx.x === 0) {
    f[0] = a[0];
    h[0] = b[0];
    i[0] = c[0];
    i[1] = d[0];
    i[2] = e[0];
    i[3] = g[0];
    f[1] = k[0];
    big[0] = l[0];
    ubig[0] = m[0];
  }
});
/** Dynamic shared memory: unwritten elements too. */
export const dynamic = cuda.jit((out: Float32Array) => {
  const s = cuda.shared.array(0, f32);
  const t = cuda.threadIdx.x;
  if (t < 16) s[t] = 1;
  cuda.syncthreads();
  out[t] = s[t];
});
`;
const art = compileSource(SOURCE);

after(() => configureSimulator({ uninitialized: "zero", sanitize: false, workers: 2, inProcessThreshold: 32768, mainThreadExecutes: true }));

function copy(name: "copyF32" | "copyI32", blocks: number): number[] {
  const out = cuda.deviceArray(64 * blocks, name === "copyF32" ? f32 : i32);
  kernel(art, name).launch(blocks, 64)(out);
  return Array.from(out.copyToHost() as Float32Array | Int32Array);
}

describe("poison mode", () => {
  for (const [label, workers] of [["one executor", 1], ["two workers", 2]] as const) {
    it(`unwritten shared elements read as NaN (f32) and 0xCDCDCDCD (i32) in every block (${label})`, () => {
      configureSimulator({ uninitialized: "poison", sanitize: false, workers, inProcessThreshold: workers > 1 ? 0 : 1 << 30, mainThreadExecutes: workers === 1 });
      const f = copy("copyF32", 4), i = copy("copyI32", 4);
      for (let k = 0; k < 256; k++) {
        const t = k % 64;
        if (t % 2 === 0) {
          assert.equal(f[k], t);
          assert.equal(i[k], t);
        } else {
          assert.ok(Number.isNaN(f[k]), `f32 element ${k}: ${f[k]}`);
          assert.equal(i[k], -842150451, `i32 element ${k}`);
        }
      }
    });
  }

  it("the default (zero) still reads zeros", () => {
    configureSimulator({ uninitialized: "zero", workers: 1, inProcessThreshold: 1 << 30 });
    assert.equal(copy("copyF32", 1)[1], 0);
    assert.equal(copy("copyI32", 1)[1], 0);
  });

  it("every dtype's pattern: NaN for f64 and f16, 0xCD bytes for the integers", () => {
    configureSimulator({ uninitialized: "poison", workers: 1, inProcessThreshold: 1 << 30 });
    const f = cuda.deviceArray(2, f64), h = cuda.deviceArray(1, f64), i = cuda.deviceArray(4, i32);
    const big = cuda.toDevice(new BigInt64Array(1)), ubig = cuda.toDevice(new BigUint64Array(1));
    kernel(art, "others").launch(1, 32)(f, h, i, big, ubig);
    const fh = f.copyToHost() as Float64Array;
    assert.ok(Number.isNaN(fh[0]), "f64");
    assert.ok(Number.isNaN((h.copyToHost() as Float64Array)[0]), "f16");
    assert.equal(fh[1], 0xcdcdcdcd, "u32");
    assert.deepEqual(Array.from(i.copyToHost() as Int32Array), [-51, 0xcd, -12851, 0xcdcd]);
    assert.equal((big.copyToHost() as BigInt64Array)[0], -3617008641903833651n);
    assert.equal((ubig.copyToHost() as BigUint64Array)[0], 0xcdcdcdcdcdcdcdcdn);
  });

  it("dynamic shared memory is poisoned too", () => {
    configureSimulator({ uninitialized: "poison", workers: 1, inProcessThreshold: 1 << 30 });
    const out = cuda.deviceArray(32, f32);
    kernel(art, "dynamic").launch(1, 32, { sharedMem: 32 * 4 })(out);
    const got = out.copyToHost() as Float32Array;
    assert.equal(got[0], 1);
    assert.ok(Number.isNaN(got[20]));
  });

  it("poison works with the sanitizer on as well (the same fill, the findings unchanged)", () => {
    configureSimulator({ uninitialized: "poison", sanitize: true, uninitializedShared: "warn", warn: () => {}, workers: 1, inProcessThreshold: 1 << 30 });
    assert.ok(Number.isNaN(copy("copyF32", 1)[1]));
    configureSimulator({ sanitize: false });
  });

  it("refuses another value with CSR018, and reads CUDASCRIPT_UNINITIALIZED", () => {
    assert.throws(
      () => configureSimulator({ uninitialized: "garbage" as never }),
      (e: unknown) => e instanceof CudaScriptError && e.code === "CSR018" && /'zero' or 'poison'/.test(e.message) && /garbage/.test(e.message),
    );
    const old = process.env.CUDASCRIPT_UNINITIALIZED;
    try {
      process.env.CUDASCRIPT_UNINITIALIZED = "poison";
      assert.equal(simulatorOptionsFromEnv().uninitialized, "poison");
      delete process.env.CUDASCRIPT_UNINITIALIZED;
      assert.equal(simulatorOptionsFromEnv().uninitialized, "zero");
      process.env.CUDASCRIPT_UNINITIALIZED = "nan";
      assert.throws(() => simulatorOptionsFromEnv(), (e: unknown) => e instanceof CudaScriptError && e.code === "CSR018" && /CUDASCRIPT_UNINITIALIZED/.test(e.message));
    } finally {
      if (old === undefined) delete process.env.CUDASCRIPT_UNINITIALIZED;
      else process.env.CUDASCRIPT_UNINITIALIZED = old;
    }
  });
});
