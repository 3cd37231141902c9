import { CorpusCase, randomF32, randomI32 } from "../case";

const NBINS = 16;

function intCase(n: number, bins: number, block: number, seed: number): CorpusCase {
  return {
    name: `histogram n=${n}, ${bins} bins, block=${block}`,
    setup: () => ({ values: randomI32(n, seed, 0, bins), hist: new Uint32Array(bins) }),
    launches: [{ kernel: "histogram", grid: Math.ceil(n / block), block, args: ["values", "hist"] }],
    reference: (inp) => {
      const values = inp.values as Int32Array;
      const hist = new Uint32Array(bins);
      for (const v of values) hist[v]++;
      return { hist };
    },
  };
}

function floatCase(n: number, lo: number, hi: number, block: number, seed: number): CorpusCase {
  return {
    name: `histogramF32 n=${n}, [${lo}, ${hi}), block=${block}`,
    // Data range is wider than [lo, hi) so that clamping is exercised.
    setup: () => ({ x: randomF32(n, seed, lo - 0.5, hi + 0.5), lo, hi, hist: new Int32Array(NBINS) }),
    launches: [{ kernel: "histogramF32", grid: Math.ceil(n / block), block, args: ["x", "lo", "hi", "hist"] }],
    reference: (inp) => {
      const x = inp.x as Float32Array;
      const flo = Math.fround(inp.lo as number);
      const fhi = Math.fround(inp.hi as number);
      const range = Math.fround(fhi - flo);
      const hist = new Int32Array(NBINS);
      for (const v of x) {
        // Same f32 operation sequence as the kernel: ((x - lo) / (hi - lo)) * NBINS, truncated.
        let bin = Math.trunc(Math.fround(Math.fround(Math.fround(v - flo) / range) * NBINS));
        bin = Math.min(Math.max(bin, 0), NBINS - 1);
        hist[bin]++;
      }
      return { hist };
    },
  };
}

export const cases: CorpusCase[] = [
  intCase(1000, 16, 128, 41),
  intCase(50000, 256, 256, 42),
  intCase(7, 3, 32, 43),
  floatCase(3000, -1, 1, 128, 44),
  floatCase(4096, 0, 8, 64, 45),
];
