import { CorpusCase, seeded } from "../case";

type Scalar = number | bigint;

/** Lanes 0…30 of warp `w` (mask 0x7fffffff) whose value is `same` as lane `l`'s. */
function peersOf(v: (i: number) => Scalar, w: number, l: number, same: (a: Scalar, b: Scalar) => boolean): number {
  let m = 0;
  for (let q = 0; q < 31; q++) if (same(v(w + q), v(w + l))) m |= 1 << q;
  return m >>> 0;
}

/** Bits as the GPU compares them: Object.is tells 0 from -0 (the pools' NaN is one NaN). */
const sameScalar = (a: Scalar, b: Scalar) => Object.is(a, b);

function wideCase(kernel: "shuffleI64" | "shuffleU64" | "shuffleF64", pool: readonly Scalar[], n: number, block: number, seed: number): CorpusCase {
  const make = (values: Scalar[]) =>
    kernel === "shuffleI64" ? BigInt64Array.from(values as bigint[]) : kernel === "shuffleU64" ? BigUint64Array.from(values as bigint[]) : Float64Array.from(values as number[]);
  const combine = (a: Scalar, b: Scalar): Scalar =>
    kernel === "shuffleI64" ? BigInt.asIntN(64, (a as bigint) + (b as bigint)) : kernel === "shuffleU64" ? BigInt.asUintN(64, (a as bigint) + (b as bigint)) : (a as number) * (b as number);
  return {
    name: `${kernel} n=${n}, block=${block}`,
    setup: () => {
      const r = seeded(seed);
      return { x: make(Array.from({ length: n }, () => pool[Math.floor(r() * pool.length)]!)), out: make(new Array(3 * n).fill(kernel === "shuffleF64" ? 0 : 0n)), peers: new Uint32Array(n) };
    },
    launches: [{ kernel, grid: n / block, block, args: ["x", "out", "peers"] }],
    reference: (inp) => {
      const x = inp.x as BigInt64Array | BigUint64Array | Float64Array;
      const v = (i: number): Scalar => x[i]!;
      const out: Scalar[] = [];
      const peers = new Uint32Array(n);
      for (let i = 0; i < n; i++) {
        const w = i - (i % 32), l = i % 32;
        if (l === 31) {
          out.push(v(i), v(i), v(i));
          peers[i] = 0x80000000;
          continue;
        }
        out.push(v(w + 30 - l), l > 0 ? v(i - 1) : v(i), combine(v(w + (l < 30 ? l ^ 1 : l)), v(i + (l < 29 ? 2 : 0))));
        peers[i] = peersOf(v, w, l, sameScalar);
      }
      return { out: make(out), peers };
    },
  };
}

function boolCase(n: number, block: number, seed: number): CorpusCase {
  return {
    name: `shuffleBool n=${n}, block=${block}`,
    setup: () => {
      const r = seeded(seed);
      const x = Int32Array.from({ length: n }, () => Math.floor(r() * 4) - 1);
      // Warp 1: every lane true (all and eq hold, matchAll gives the mask).
      for (let i = 32; i < Math.min(n, 64); i++) x[i] = 2;
      return { x, out: new Int32Array(n), votes: new Uint32Array(4 * n) };
    },
    launches: [{ kernel: "shuffleBool", grid: n / block, block, args: ["x", "out", "votes"] }],
    reference: (inp) => {
      const x = inp.x as Int32Array;
      const p = (i: number) => x[i]! > 0;
      const out = new Int32Array(n), votes = new Uint32Array(4 * n);
      for (let i = 0; i < n; i++) {
        const w = i - (i % 32), l = i % 32;
        if (l === 31) {
          out[i] = p(i) ? 1 : 0;
          votes.set([p(i) ? 0x80000000 : 0, 0x80000000, p(i) ? 7 : 4, 0x80000000], 4 * i);
          continue;
        }
        out[i] = p(w + 30 - l) ? 1 : 0;
        let ballot = 0, trues = 0;
        for (let q = 0; q < 31; q++) {
          if (p(w + 30 - q)) ballot |= 1 << q;
          if (p(w + q)) trues++;
        }
        const same = peersOf((j) => (p(j) ? 1 : 0), w, l, sameScalar);
        votes.set([ballot >>> 0, same, (trues > 0 ? 1 : 0) + (trues === 31 ? 2 : 0) + (trues === 0 || trues === 31 ? 4 : 0), same === 0x7fffffff ? 0x7fffffff : 0], 4 * i);
      }
      return { out, votes };
    },
  };
}

const I64 = [-(2n ** 63n), 2n ** 63n - 1n, -1n, 0n, 1n, 2n ** 40n];
const U64 = [0n, 2n ** 64n - 1n, 2n ** 63n, 1n, 2n ** 32n];
const F64 = [0, -0, NaN, Infinity, 1e308, 5e-324, -1.5];

export const cases: CorpusCase[] = [
  wideCase("shuffleI64", I64, 128, 64, 2821),
  wideCase("shuffleU64", U64, 64, 32, 2822),
  wideCase("shuffleF64", F64, 128, 128, 2823),
  boolCase(128, 64, 2824),
];
