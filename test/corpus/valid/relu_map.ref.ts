import { CorpusCase, randomF32 } from "../case";

function reluCase(n: number, block: number, slope: number, leaky: boolean, seed: number): CorpusCase {
  return {
    name: `reluMap n=${n}, block=${block}, ${leaky ? `leaky slope=${slope}` : "plain"}`,
    setup: () => ({ x: randomF32(n, seed), out: new Float32Array(n), slope, leaky }),
    launches: [{ kernel: "reluMap", grid: Math.ceil(n / block), block, args: ["x", "out", "slope", "leaky"] }],
    reference: (inp) => {
      const x = inp.x as Float32Array;
      const s = Math.fround(slope);
      return { out: x.map((v) => (v > 0 ? v : leaky ? v * s : 0)) };
    },
    tolerance: { abs: 1e-7, rel: 1e-6 },
  };
}

function clampCase(n: number, block: number, lo: number, hi: number, seed: number): CorpusCase {
  return {
    name: `clampMap n=${n}, [${lo}, ${hi}]`,
    setup: () => ({ x: randomF32(n, seed), out: new Float32Array(n), lo, hi }),
    launches: [{ kernel: "clampMap", grid: Math.ceil(n / block), block, args: ["x", "out", "lo", "hi"] }],
    reference: (inp) => {
      const x = inp.x as Float32Array;
      const flo = Math.fround(lo), fhi = Math.fround(hi);
      return { out: x.map((v) => Math.min(Math.max(2 * v + 1, flo), fhi)) };
    },
    tolerance: { abs: 1e-6, rel: 1e-6 },
  };
}

export const cases: CorpusCase[] = [
  reluCase(1000, 128, 0.1, true, 161),
  reluCase(1000, 128, 0.1, false, 162),
  reluCase(2048, 256, 0.25, true, 163),
  clampCase(999, 96, -0.5, 2, 164),
];
