import { initStates, normalFloat32, normalFloat64, uniformFloat32, uniformFloat64 } from "cudascript/dist/random/xoroshiro128p";
import type { CorpusCase, HostBigIntNDArray } from "../case";

/** A [n, 2] u64 state array as the host makes it (cuda.random.createXoroshiro128pStates(n, seed, { subsequenceStart })). */
function states(n: number, seed: bigint, subsequenceStart: number): HostBigIntNDArray {
  const w = new Uint32Array(4 * n);
  initStates(w, n, seed, subsequenceStart);
  return { data: new BigUint64Array(w.buffer), shape: [n, 2] };
}

/** The reference: the runtime's generator (bit-exact with Numba, test/runtime/xoroshiro128p.test.ts) on the same states. */
function words(s: HostBigIntNDArray): Uint32Array {
  return new Uint32Array(s.data.buffer, s.data.byteOffset, s.data.length * 2);
}

function uniformCase(n: number, draws: number, block: number, seed: bigint, sub: number): CorpusCase {
  return {
    name: `uniforms n=${n}, ${draws} draws, seed ${seed}, subsequence ${sub}`,
    setup: () => ({ states: states(n, seed, sub), u32: new Float32Array(n * draws), u64: new Float64Array(n * draws), draws }),
    launches: [{ kernel: "uniforms", grid: Math.ceil(n / block), block, args: ["states", "u32", "u64", "draws"] }],
    reference: (inp) => {
      const s = inp.states as HostBigIntNDArray, w = words(s);
      const u32 = new Float32Array(n * draws), u64 = new Float64Array(n * draws);
      for (let i = 0; i < n; i++)
        for (let k = 0; k < draws; k++) {
          u32[i * draws + k] = uniformFloat32(w, i);
          u64[i * draws + k] = uniformFloat64(w, i);
        }
      return { u32, u64, states: s };
    },
  };
}

function normalCase(n: number, block: number, seed: bigint): CorpusCase {
  return {
    name: `normals n=${n}, seed ${seed}`,
    setup: () => ({ states: states(n, seed, 0), n32: new Float32Array(n), n64: new Float64Array(n) }),
    launches: [{ kernel: "normals", grid: Math.ceil(n / block), block, args: ["states", "n32", "n64"] }],
    reference: (inp) => {
      const s = inp.states as HostBigIntNDArray, w = words(s);
      const n32 = new Float32Array(n), n64 = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        n32[i] = normalFloat32(w, i);
        n64[i] = normalFloat64(w, i);
      }
      return { n32, n64, states: s };
    },
    // logf/cosf/sqrtf of the GPU (and of g++) are within 2 ulp, V8's Math.log/cos rounded to f32 within 1.
    tolerance: { abs: 1e-6, rel: 1e-6 },
  };
}

export const cases: CorpusCase[] = [uniformCase(100, 3, 32, 1234n, 0), uniformCase(33, 2, 64, 2n ** 64n - 1n, 3), normalCase(200, 64, 42n)];
