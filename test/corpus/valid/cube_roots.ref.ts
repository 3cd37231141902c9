import { CorpusCase, randomF32, seeded } from "../case";

/** Exact cubes, signed zeros and tiny values first, then random values of both signs. */
const EDGES = [0, -0, 1, -1, 8, -27, 1000, 1e-30, -1e-30, 3.4e38, 0.001];

function f32Case(n: number, block: number, seed: number): CorpusCase {
  return {
    name: `cubeRootsF32 n=${n}, block=${block}`,
    setup: () => {
      const x = randomF32(n, seed, -1e6, 1e6);
      x.set(EDGES.slice(0, Math.min(EDGES.length, n)));
      return { x, out: new Float32Array(n), sameAsMath: new Int32Array(n) };
    },
    launches: [{ kernel: "cubeRootsF32", grid: Math.ceil(n / block), block, args: ["x", "out", "sameAsMath"] }],
    reference: (inp) => {
      const x = inp.x as Float32Array;
      return { out: x.map((v) => Math.fround(Math.cbrt(v))), sameAsMath: new Int32Array(n).fill(1) };
    },
    tolerance: { abs: 0, rel: 2e-7 },
  };
}

function f64Case(n: number, block: number, seed: number): CorpusCase {
  return {
    name: `cubeRootsF64 n=${n}, block=${block}`,
    setup: () => {
      const r = seeded(seed);
      const x = new Float64Array(n);
      for (let i = 0; i < n; i++) x[i] = (r() - 0.5) * 1e9 * (r() + r() / 4294967296);
      x.set(EDGES.slice(0, Math.min(EDGES.length, n)));
      return { x, out: new Float64Array(n) };
    },
    launches: [{ kernel: "cubeRootsF64", grid: Math.ceil(n / block), block, args: ["x", "out"] }],
    reference: (inp) => ({ out: (inp.x as Float64Array).map(Math.cbrt) }),
    tolerance: { abs: 0, rel: 1e-15 },
  };
}

export const cases: CorpusCase[] = [f32Case(1000, 128, 611), f32Case(37, 32, 612), f64Case(777, 64, 613)];
