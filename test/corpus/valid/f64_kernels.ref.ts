import { CorpusCase, seeded } from "../case";

const TPB = 128;

function randomF64(n: number, seed: number, lo = -1, hi = 1): Float64Array {
  const r = seeded(seed);
  const a = new Float64Array(n);
  // Two draws per value so the data uses the full f64 mantissa (not f32-representable).
  for (let i = 0; i < n; i++) a[i] = lo + (hi - lo) * (r() + r() / 4294967296);
  return a;
}

function daxpyCase(n: number, block: number, seed: number): CorpusCase {
  const a = 0.1; // not representable in f32: an f32 path would be off by ~1e-9
  return {
    name: `daxpy n=${n}, block=${block}`,
    setup: () => ({ a, x: randomF64(n, seed), y: randomF64(n, seed + 1) }),
    launches: [{ kernel: "daxpy", grid: Math.ceil(n / block), block, args: ["a", "x", "y"] }],
    reference: (inp) => {
      const x = inp.x as Float64Array, y = inp.y as Float64Array;
      return { y: y.map((v, i) => a * x[i] + v) };
    },
    tolerance: { abs: 1e-14, rel: 1e-14 },
  };
}

function sumCase(n: number, seed: number): CorpusCase {
  const blocks = Math.ceil(n / TPB);
  return {
    name: `dsumSquares n=${n}${n % TPB ? ", partial last block" : ""}`,
    setup: () => ({ x: randomF64(n, seed), partial: new Float64Array(blocks), total: new Float64Array(1) }),
    launches: [{ kernel: "dsumSquares", grid: blocks, block: TPB, args: ["x", "partial", "total"] }],
    reference: (inp) => {
      const x = inp.x as Float64Array;
      const partial = new Float64Array(blocks);
      let total = 0;
      for (let i = 0; i < n; i++) {
        partial[Math.floor(i / TPB)] += x[i] * x[i];
        total += x[i] * x[i];
      }
      return { partial, total: Float64Array.of(total) };
    },
    tolerance: { abs: 1e-11, rel: 1e-12 },
  };
}

function normCase(count: number, block: number, seed: number): CorpusCase {
  return {
    name: `dnorm3 ${count} vectors, block=${block}`,
    setup: () => ({ v: randomF64(3 * count, seed, -100, 100), norms: new Float64Array(count) }),
    launches: [{ kernel: "dnorm3", grid: Math.ceil(count / block), block, args: ["v", "norms"] }],
    reference: (inp) => {
      const v = inp.v as Float64Array;
      const norms = new Float64Array(count);
      for (let i = 0; i < count; i++) norms[i] = Math.hypot(v[3 * i], v[3 * i + 1], v[3 * i + 2]);
      return { norms };
    },
    tolerance: { abs: 1e-12, rel: 1e-14 },
  };
}

export const cases: CorpusCase[] = [
  daxpyCase(1000, 128, 231),
  daxpyCase(4096, 256, 232),
  sumCase(1000, 233),
  sumCase(10000, 234),
  normCase(500, 64, 235),
];
