import { Float16Array } from "cudascript";
import { CorpusCase, randomI32 } from "../case";

function histogramCase(n: number, block: number, seed: number): CorpusCase {
  const blocks = Math.ceil(n / block);
  return {
    name: `halfHistogram n=${n}, block=${block}`,
    setup: () => {
      const data = randomI32(n, seed, 0, 8);
      const weights = new Float16Array(n);
      for (let i = 0; i < n; i++) weights[i] = 0.5 * (1 + (i % 4));
      return { data, weights, bins: new Float16Array(8), perBlock: new Float16Array(blocks * 8) };
    },
    launches: [{ kernel: "halfHistogram", grid: blocks, block, args: ["data", "weights", "bins", "perBlock"] }],
    reference: (inp) => {
      const data = inp.data as Int32Array, weights = inp.weights as Float16Array;
      const bins = new Float16Array(8), perBlock = new Float16Array(blocks * 8);
      for (let i = 0; i < n; i++) {
        bins[data[i]!] = bins[data[i]!]! + weights[i]!;
        const b = Math.floor(i / block) * 8 + data[i]!;
        perBlock[b] = perBlock[b]! - weights[i]!;
      }
      return { bins, perBlock };
    },
  };
}

export const cases: CorpusCase[] = [histogramCase(500, 128, 601), histogramCase(64, 32, 602)];
