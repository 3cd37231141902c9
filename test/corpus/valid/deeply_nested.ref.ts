import { CorpusCase, randomF32 } from "../case";

const COEFFICIENTS = [0.5, -0.25, 0.125, 1, -1, 0.75, 0.0625, -0.5, 2, 0.375, -0.125, 0.25, 1.5, -0.75, 0.03125, 0.625, -2, 0.875, -0.0625, 3];

function hornerCase(n: number, block: number, seed: number): CorpusCase {
  return {
    name: `horner n=${n}, block=${block}`,
    setup: () => ({ x: randomF32(n, seed), out: new Float32Array(n) }),
    launches: [{ kernel: "horner", grid: Math.ceil(n / block), block, args: ["x", "out"] }],
    reference: (inp) => ({
      out: (inp.x as Float32Array).map((v) => COEFFICIENTS.slice(1).reduce((acc, c) => Math.fround(Math.fround(acc * v) + c), COEFFICIENTS[0]!)),
    }),
    // A compiler may fuse each multiply-add.
    tolerance: { abs: 1e-5, rel: 1e-5 },
  };
}

function nestedIfsCase(n: number, block: number, seed: number): CorpusCase {
  return {
    name: `nestedIfs n=${n}, block=${block}`,
    setup: () => ({ x: randomF32(n, seed, -0.2, 1.2), out: new Int32Array(n) }),
    launches: [{ kernel: "nestedIfs", grid: Math.ceil(n / block), block, args: ["x", "out"] }],
    reference: (inp) => ({
      out: Int32Array.from(inp.x as Float32Array, (v) => {
        let k = 0;
        while (k < 100 && v > Math.fround((k + 1) / 100)) k++;
        return k;
      }),
    }),
  };
}

function longSumCase(n: number, block: number, seed: number): CorpusCase {
  return {
    name: `longSum n=${n}, block=${block}`,
    setup: () => ({ x: randomF32(n, seed), out: new Float32Array(n) }),
    launches: [{ kernel: "longSum", grid: Math.ceil(n / block), block, args: ["x", "out"] }],
    reference: (inp) => ({
      out: (inp.x as Float32Array).map((v) => {
        let s = v;
        for (let t = 1; t < 500; t++) s = Math.fround(s + v);
        return s;
      }),
    }),
    tolerance: { abs: 1e-6, rel: 1e-6 },
  };
}

export const cases: CorpusCase[] = [hornerCase(1000, 128, 171), nestedIfsCase(1000, 128, 172), longSumCase(1000, 128, 173)];
