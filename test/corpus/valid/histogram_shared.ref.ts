import { CorpusCase, randomI32 } from "../case";

const NBINS = 64;

function histCase(n: number, grid: number, block: number, seed: number): CorpusCase {
  return {
    name: `histogramShared n=${n}, grid=${grid}, block=${block}`,
    // Includes negative values: the bin is the low 6 bits of the two's-complement value.
    setup: () => ({ values: randomI32(n, seed, -1000, 1000), hist: new Uint32Array(NBINS) }),
    launches: [{ kernel: "histogramShared", grid, block, args: ["values", "hist"] }],
    reference: (inp) => {
      const hist = new Uint32Array(NBINS);
      for (const v of inp.values as Int32Array) hist[v & (NBINS - 1)]++;
      return { hist };
    },
  };
}

export const cases: CorpusCase[] = [
  histCase(1000, 8, 128, 51), // exactly one element per thread or fewer, partial coverage of last block
  histCase(20000, 4, 32, 52), // blockDim < NBINS: each thread clears/merges two bins; grid-stride loop
  histCase(65536, 16, 256, 53),
];
