import { CorpusCase, randomI32 } from "../case";

const K = 8;

function sortCase(n: number, block: number, lo: number, hi: number, seed: number): CorpusCase {
  const groups = Math.floor(n / K);
  return {
    name: `sortGroupsOf8 n=${n} (${groups} groups), block=${block}`,
    setup: () => ({ x: randomI32(n, seed, lo, hi), out: new Int32Array(n) }),
    launches: [{ kernel: "sortGroupsOf8", grid: Math.max(1, Math.ceil(groups / block)), block, args: ["x", "out"] }],
    reference: (inp) => {
      const x = inp.x as Int32Array;
      const out = new Int32Array(n); // a tail shorter than K stays 0
      for (let g = 0; g < groups; g++) out.set(x.slice(g * K, g * K + K).sort(), g * K);
      return { out };
    },
  };
}

export const cases: CorpusCase[] = [
  sortCase(8000, 128, -100000, 100000, 141), // 1000 groups: partial last block
  sortCase(1029, 64, -3, 3, 142), // duplicates, and a 5-element tail
  sortCase(8, 32, -10, 10, 143),
];
