import { CorpusCase, randomF32, seeded } from "../case";

function voteCase(n: number, block: number, seed: number): CorpusCase {
  const blocks = Math.ceil(n / block);
  const threshold = 0.5;
  return {
    name: `blockVote n=${n}, block=${block}${n % block ? ", partial last block" : ""}`,
    setup: () => {
      // Non-negative data with a few negative values planted in some blocks only.
      const x = randomF32(n, seed, 0, 1);
      const r = seeded(seed + 1);
      for (let b = 0; b < blocks; b += 3) {
        const i = b * block + Math.floor(r() * block);
        if (i < n) x[i] = -r();
      }
      return { x, threshold, counts: new Int32Array(blocks), anyNegative: new Uint8Array(blocks), allInRange: new Int32Array(blocks) };
    },
    launches: [
      { kernel: "blockVote", grid: blocks, block, args: ["x", "threshold", "counts", "anyNegative", "allInRange"] },
    ],
    reference: (inp) => {
      const x = inp.x as Float32Array;
      const counts = new Int32Array(blocks), anyNegative = new Uint8Array(blocks), allInRange = new Int32Array(blocks);
      for (let b = 0; b < blocks; b++) {
        allInRange[b] = (b + 1) * block <= n ? 1 : 0;
        for (let i = b * block; i < Math.min(n, (b + 1) * block); i++) {
          if (x[i] > threshold) counts[b]++;
          if (x[i] < 0) anyNegative[b] = 1;
        }
      }
      return { counts, anyNegative, allInRange };
    },
  };
}

export const cases: CorpusCase[] = [voteCase(1000, 128, 191), voteCase(4096, 256, 192), voteCase(50, 64, 193)];
