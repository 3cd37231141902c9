/**
 * cuda.random end to end on the simulator: states made by cuda.random.createXoroshiro128pStates are
 * Numba's (test/runtime/fixtures/numba/xoroshiro128p.json, made by Numba's CUDA simulator), a kernel
 * drawing from them draws Numba's uniform bits and leaves Numba's states (normals within the documented
 * ulps), draws are bounds-checked (CSR020) and shape-checked (CSR033), and bad host arguments are CSR032/CSR033.
 */
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cuda, f64, u64, type Xoroshiro128pStates } from "cudascript";
import { xoroshiroFixture } from "../runtime/fixtures/numba/xoroshiro128p-fixture";
import { compileSource, kernel } from "./helpers";
import { uniformFloat64 } from "cudascript/dist/random/xoroshiro128p";

const K = xoroshiroFixture.drawsPerKind;

function f32Bits(x: number): number {
  return new Uint32Array(new Float32Array([x]).buffer)[0]!;
}
function f64Bits(x: number): string {
  return new BigUint64Array(new Float64Array([x]).buffer)[0]!.toString();
}
function fromF32Bits(b: number): number {
  return new Float32Array(new Uint32Array([b]).buffer)[0]!;
}
function fromF64Bits(b: string): number {
  return new Float64Array(new BigUint64Array([BigInt(b)]).buffer)[0]!;
}

const KERNEL = `
import { cuda, i32, type Xoroshiro128pStates } from "cudascript";
/** Per state i: K f32 uniforms, K f64 uniforms, K f32 normals, K f64 normals, in Numba's fixture order. */
export const draws = cuda.jit((states: Xoroshiro128pStates, u32: Float32Array, u64: Float64Array, n32: Float32Array, n64: Float64Array, k: i32) => {
  const i = cuda.grid(1);
  if (i < states.length) {
    for (let j = 0; j < k; j++) u32[i * k + j] = cuda.random.xoroshiro128pUniformFloat32(states, i);
    for (let j = 0; j < k; j++) u64[i * k + j] = cuda.random.xoroshiro128pUniformFloat64(states, i);
    for (let j = 0; j < k; j++) n32[i * k + j] = cuda.random.xoroshiro128pNormalFloat32(states, i);
    for (let j = 0; j < k; j++) n64[i * k + j] = cuda.random.xoroshiro128pNormalFloat64(states, i);
  }
});
/** Draws from state 'row' (out of range on purpose in a test). */
export const one = cuda.jit((states: Xoroshiro128pStates, out: Float64Array, row: i32) => {
  out[0] = cuda.random.xoroshiro128pUniformFloat64(states, row);
});
`;

describe("cuda.random on the simulator against Numba's draws", () => {
  const artifact = compileSource(KERNEL);
  for (const c of xoroshiroFixture.cases) {
    it(`seed ${c.seed}, subsequence ${c.subsequence}, ${c.n} states: createXoroshiro128pStates and a kernel's draws are Numba's`, () => {
      const states = cuda.random.createXoroshiro128pStates(c.n, BigInt(c.seed), { subsequenceStart: c.subsequence });
      assert.deepEqual(states.shape, [c.n, 2]);
      assert.equal(states.dtype, u64);
      const initial = states.copyToHost() as unknown as { data: BigUint64Array };
      assert.deepEqual([...initial.data].map(String), c.states.flat(), "the initial states are Numba's");
      const u32 = new Float32Array(c.n * K), u64a = new Float64Array(c.n * K), n32 = new Float32Array(c.n * K), n64 = new Float64Array(c.n * K);
      const d = [u32, u64a, n32, n64].map((a) => cuda.toDevice(a));
      kernel(artifact, "draws").launch(Math.ceil(c.n / 32), 32)(states, ...d, K);
      const [g32, g64, gn32, gn64] = d.map((x) => x.copyToHost() as Float32Array | Float64Array);
      for (let i = 0; i < c.n; i++) {
        const row = (a: Float32Array | Float64Array) => [...a.subarray(i * K, (i + 1) * K)];
        assert.deepEqual(row(g32!).map(f32Bits), c.uniformFloat32Bits[i], `state ${i}: uniform f32 bits`);
        assert.deepEqual(row(g64!).map(f64Bits), c.uniformFloat64Bits[i], `state ${i}: uniform f64 bits`);
        row(gn32!).forEach((x, k) => {
          const want = fromF32Bits(c.normalFloat32Bits[i]![k]!);
          assert.ok(Math.abs(x - want) <= 2 * 2 ** -23 * Math.max(1, Math.abs(want)), `state ${i}: normal f32 ${x} vs Numba ${want}`);
        });
        row(gn64!).forEach((x, k) => {
          const want = fromF64Bits(c.normalFloat64Bits[i]![k]!);
          assert.ok(Math.abs(x - want) <= 1e-6 * Math.max(1, Math.abs(want)), `state ${i}: normal f64 ${x} vs Numba ${want}`);
        });
      }
      const after = states.copyToHost() as unknown as { data: BigUint64Array };
      assert.deepEqual([...after.data].map(String), c.statesAfter.flat(), "the states after the draws are Numba's");
    });
  }

  it("initXoroshiro128pStates reseeds an existing state array like createXoroshiro128pStates", () => {
    const c = xoroshiroFixture.cases[xoroshiroFixture.cases.length - 1]!;
    const states = cuda.deviceArray([c.n, 2], u64);
    cuda.random.initXoroshiro128pStates(states, BigInt(c.seed), { subsequenceStart: c.subsequence, stream: cuda.stream() });
    assert.deepEqual([...(states.copyToHost() as unknown as { data: BigUint64Array }).data].map(String), c.states.flat());
  });

  it("a draw from a row past the states is CSR020, from an array whose rows are not two words CSR033", () => {
    const states = cuda.random.createXoroshiro128pStates(4, 1);
    const o = cuda.toDevice(new Float64Array(1));
    assert.throws(() => kernel(artifact, "one").launch(1, 1)(states, o, 4), (e: Error & { code?: string }) => e.code === "CSR020" && /one state per row/.test(e.message));
    const wide = cuda.deviceArray([4, 3], u64);
    assert.throws(() => kernel(artifact, "one").launch(1, 1)(wide, o, 0), (e: Error & { code?: string }) => e.code === "CSR033" && /\[n, 2\] u64/.test(e.message));
    const fOrder = cuda.deviceArray([4, 2], u64, { order: "F" });
    assert.throws(() => kernel(artifact, "one").launch(1, 1)(fOrder, o, 0), (e: Error & { code?: string }) => e.code === "CSR033" && /not C order \(element strides \[1, 4\]\)/.test(e.message));
  });
});

const FISSION = `
import { cuda, f64, i32, type Xoroshiro128pStates } from "cudascript";
/** Synchronises, then draws: a device function the simulator inlines into the kernel's pieces. */
const drawAfterSync = cuda.device((states: Xoroshiro128pStates, i: i32): f64 => {
  cuda.syncthreads();
  return cuda.random.xoroshiro128pUniformFloat64(states, i);
});
export const fission = cuda.jit((states: Xoroshiro128pStates, out: Float64Array, k: i32) => {
  const i = cuda.grid(1);
  const t = cuda.threadIdx.x;
  const s = cuda.shared.array(64, f64);
  for (let j = 0; j < k; j++) {
    s[t] = cuda.random.xoroshiro128pUniformFloat64(states, i);
    cuda.syncthreads();
    out[2 * (i * k + j)] = s[t];
    out[2 * (i * k + j) + 1] = drawAfterSync(states, i);
    cuda.syncthreads();
  }
});
`;

describe("cuda.random in a kernel that synchronises", () => {
  it("each draw runs once per thread and in order across barriers and an inlined device function (1 and 2 workers, sanitizer)", async () => {
    const { configureSimulator } = await import("cudascript");
    const artifact = compileSource(FISSION);
    const n = 128, k = 3;
    for (const mode of [{ workers: 1, inProcessThreshold: 1 << 30, sanitize: false }, { workers: 2, inProcessThreshold: 0, mainThreadExecutes: false, sanitize: false }, { workers: 1, inProcessThreshold: 1 << 30, sanitize: true }]) {
      configureSimulator(mode);
      const states = cuda.random.createXoroshiro128pStates(n, 99n);
      const words = new Uint32Array((states.ravel().copyToHost() as BigUint64Array).buffer);
      const out = cuda.deviceArray(2 * n * k, f64);
      kernel(artifact, "fission").launch(n / 64, 64)(states, out, k);
      const got = out.copyToHost() as Float64Array;
      const want = new Float64Array(2 * n * k);
      for (let i = 0; i < want.length; i++) want[i] = uniformFloat64(words, Math.floor(i / (2 * k)));
      assert.deepEqual([...got], [...want], JSON.stringify(mode));
    }
    configureSimulator({ workers: 2, inProcessThreshold: 32768, mainThreadExecutes: true, sanitize: false });
  });
});

describe("cuda.random host arguments", () => {
  const bad: [string, () => unknown, string][] = [
    ["a negative n", () => cuda.random.createXoroshiro128pStates(-1, 1), "CSR032"],
    ["a fractional n", () => cuda.random.createXoroshiro128pStates(2.5, 1), "CSR032"],
    ["a negative seed", () => cuda.random.createXoroshiro128pStates(2, -1), "CSR032"],
    ["a fractional seed", () => cuda.random.createXoroshiro128pStates(2, 0.5), "CSR032"],
    ["a number seed above 2^53", () => cuda.random.createXoroshiro128pStates(2, 2 ** 60), "CSR032"],
    ["a bigint seed above 2^64 - 1", () => cuda.random.createXoroshiro128pStates(2, 2n ** 64n), "CSR032"],
    ["a negative bigint seed", () => cuda.random.createXoroshiro128pStates(2, -1n), "CSR032"],
    ["a string seed", () => cuda.random.createXoroshiro128pStates(2, "7" as never), "CSR032"],
    ["a negative subsequenceStart", () => cuda.random.createXoroshiro128pStates(2, 1, { subsequenceStart: -1 }), "CSR032"],
    ["a fractional subsequenceStart", () => cuda.random.createXoroshiro128pStates(2, 1, { subsequenceStart: 0.5 }), "CSR032"],
    ["init of a 1-D array", () => cuda.random.initXoroshiro128pStates(cuda.deviceArray(4, u64) as never, 1), "CSR033"],
    ["init of a [n, 2] f64 array", () => cuda.random.initXoroshiro128pStates(cuda.deviceArray([4, 2], f64) as never, 1), "CSR033"],
    ["init of a host array", () => cuda.random.initXoroshiro128pStates(new BigUint64Array(8) as never, 1), "CSR033"],
    ["init of an F-order [n, 2] u64 array", () => cuda.random.initXoroshiro128pStates(cuda.deviceArray([4, 2], u64, { order: "F" }) as never, 1), "CSR033"],
  ];
  for (const [what, run, code] of bad) {
    it(`${what} is ${code}, with what to write`, () => {
      assert.throws(run, (e: Error & { code?: string }) => e.code === code && e.message.length > 40);
    });
  }

  it("a number seed and the same bigint seed give the same states; 2^64 - 1 is a valid seed", () => {
    const a = cuda.random.createXoroshiro128pStates(3, 12345).copyToHost() as unknown as { data: BigUint64Array };
    const b = cuda.random.createXoroshiro128pStates(3, 12345n).copyToHost() as unknown as { data: BigUint64Array };
    assert.deepEqual([...a.data], [...b.data]);
    assert.equal(cuda.random.createXoroshiro128pStates(1, 2n ** 64n - 1n).shape[0], 1);
  });

  it("the draws are kernel-only: CSR001 on the host", () => {
    const s: Xoroshiro128pStates = cuda.random.createXoroshiro128pStates(1, 1) as never;
    assert.throws(() => cuda.random.xoroshiro128pUniformFloat32(s, 0), (e: Error & { code?: string }) => e.code === "CSR001");
  });
});
