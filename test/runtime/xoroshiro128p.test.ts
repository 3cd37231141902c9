/**
 * CudaScript's xoroshiro128+ draws are Numba's, bit for bit: the fixture was made by Numba's own
 * `numba.cuda.random` on its CUDA simulator (fixtures/numba/make-xoroshiro128p.py), for several seeds
 * (0, 1, 42, 2^64 - 1) and subsequence starts, and every state and uniform draw must match exactly.
 */
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { xoroshiroFixture, type XoroshiroCase } from "./fixtures/numba/xoroshiro128p-fixture";
import {
  initStates,
  nextU64,
  normalFloat32,
  normalFloat64,
  uniformFloat32,
  uniformFloat64,
} from "cudascript/dist/random/xoroshiro128p";

const fixture = xoroshiroFixture;
const K = fixture.drawsPerKind;

function freshStates(c: XoroshiroCase): Uint32Array {
  const w = new Uint32Array(4 * c.n);
  initStates(w, c.n, BigInt(c.seed), c.subsequence);
  return w;
}
function statePairs(w: Uint32Array, n: number): [string, string][] {
  const words = new BigUint64Array(w.buffer, w.byteOffset, 2 * n);
  return Array.from({ length: n }, (_, i) => [String(words[2 * i]), String(words[2 * i + 1])]);
}
const f32Bits = (x: number) => new Uint32Array(new Float32Array([x]).buffer)[0]!;
const f64Bits = (x: number) => String(new BigUint64Array(new Float64Array([x]).buffer)[0]);
const ulpsF32 = (a: number, b: number) => Math.abs(f32Bits(a) - f32Bits(b));

describe("xoroshiro128+ (cuda.random) against Numba's own draws", () => {
  for (const c of fixture.cases) {
    const label = `seed ${c.seed}, subsequence ${c.subsequence}, ${c.n} states`;

    it(`creates the same states as Numba's create_xoroshiro128p_states (${label})`, () => {
      assert.deepEqual(statePairs(freshStates(c), c.n), c.states);
    });

    it(`draws the same uniform f32 and f64 sequences and leaves the same states (${label})`, () => {
      const w = freshStates(c);
      const u32: number[][] = [], u64: string[][] = [], n32: number[][] = [], n64: number[][] = [];
      for (let i = 0; i < c.n; i++) {
        u32.push(Array.from({ length: K }, () => f32Bits(uniformFloat32(w, i))));
        u64.push(Array.from({ length: K }, () => f64Bits(uniformFloat64(w, i))));
        n32.push(Array.from({ length: K }, () => normalFloat32(w, i)));
        n64.push(Array.from({ length: K }, () => normalFloat64(w, i)));
      }
      assert.deepEqual(u32, c.uniformFloat32Bits);
      assert.deepEqual(u64, c.uniformFloat64Bits);
      assert.deepEqual(statePairs(w, c.n), c.statesAfter, "each normal draw advances the state by two draws, as Numba's");
      // Normal draws go through log/cos: Numba's simulator computes them in Python's float64 math, its
      // GPU code (and CudaScript) in f32 for f32 and with an f32 log (logf) for f64 (Numba's typing of
      // math.log on an f32). Within 2 ulps of f32 (f64: 1e-6 relative, the f32 log) is the documented agreement.
      for (let i = 0; i < c.n; i++) {
        for (let k = 0; k < K; k++) {
          const want32 = new Float32Array(new Uint32Array([c.normalFloat32Bits[i]![k]!]).buffer)[0]!;
          assert.ok(ulpsF32(n32[i]![k]!, want32) <= 2, `normal f32 [${i}][${k}]: ${n32[i]![k]} vs Numba ${want32}`);
          const want64 = new Float64Array(new BigUint64Array([BigInt(c.normalFloat64Bits[i]![k]!)]).buffer)[0]!;
          assert.ok(Math.abs(n64[i]![k]! - want64) <= 1e-6 * Math.max(1, Math.abs(want64)), `normal f64 [${i}][${k}]: ${n64[i]![k]} vs Numba ${want64}`);
        }
      }
    });
  }

  it("the raw u64 output is s0 + s1 modulo 2^64 (xoroshiro128+), carry included", () => {
    // s0 = 2^64 - 1, s1 = 1: the low halves carry into the high ones and the sum wraps to 0.
    const w = new Uint32Array([0xffffffff, 0xffffffff, 1, 0]);
    assert.equal(nextU64(w, 0), 0n);
    const v = new Uint32Array([0xffffffff, 0, 1, 0]);
    assert.equal(nextU64(v, 0), 1n << 32n);
  });
});
