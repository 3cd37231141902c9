import { CorpusCase, randomF32 } from "../case";

const WEIGHTS = new Float32Array([0.5, 1, 2, 4, 8, 16]);

function splitCase(n: number, block: number, seed: number): CorpusCase {
  const blocks = Math.ceil(n / block);
  return {
    name: `splitDynamicShared n=${n}, block=${block}`,
    setup: () => ({ x: randomF32(n, seed), sums: new Float32Array(blocks), negatives: new Int32Array(blocks) }),
    launches: [{ kernel: "splitDynamicShared", grid: blocks, block, sharedMem: block * 8, args: ["x", "sums", "negatives"] }],
    reference: (inp) => {
      const x = inp.x as Float32Array;
      const sums = new Float32Array(blocks), negatives = new Int32Array(blocks);
      for (let b = 0; b < blocks; b++) {
        let s = 0, neg = 0;
        for (let i = b * block; i < Math.min(n, (b + 1) * block); i++) {
          s = Math.fround(s + x[i]!);
          if (x[i]! < 0) neg++;
        }
        sums[b] = s;
        negatives[b] = neg;
      }
      return { sums, negatives };
    },
    tolerance: { abs: 1e-4, rel: 1e-4 },
  };
}

/** The kernel's arithmetic in plain TypeScript, with TypedArray.prototype.subarray itself. */
function everywhereCase(n: number, begin: number, end: number, seed: number): CorpusCase {
  const block = 64;
  return {
    name: `subarrayEverywhere n=${n}, subarray(${begin}, ${end})`,
    setup: () => ({ x: randomF32(n, seed), out: new Float32Array(n), lengths: new Int32Array(5), begin, end }),
    launches: [{ kernel: "subarrayEverywhere", grid: Math.ceil(n / block), block, args: ["x", "out", "lengths", "begin", "end"] }],
    reference: (inp) => {
      const x = inp.x as Float32Array;
      const out = new Float32Array(n);
      const g = x.subarray(begin, end);
      const scratch = new Float32Array(8).map((_, k) => k);
      const loc = scratch.subarray(2, -2), cw = WEIGHTS.subarray(1, 100);
      for (let i = 0; i < n; i++) {
        const t = i % block, b0 = i - t;
        const tile = new Float32Array(block).map((_, k) => (b0 + k < n ? x[b0 + k]! : 0));
        const sh = tile.subarray(-8);
        let s = 0;
        if (i < g.length) s = Math.fround(s + g[i]!);
        s = Math.fround(s + Math.fround(sh[t % sh.length]! + Math.fround(loc[t % loc.length]! * cw[t % cw.length]!)));
        out[i] = s;
      }
      const lengths = new Int32Array([g.length, 8, loc.length, cw.length, x.subarray(end, begin).length]);
      return { out, lengths };
    },
    tolerance: { abs: 1e-5, rel: 1e-5 },
  };
}

export const cases: CorpusCase[] = [
  splitCase(1000, 64, 301),
  splitCase(300, 128, 302),
  everywhereCase(200, 10, 150, 303),
  everywhereCase(200, -50, -3, 304),
  everywhereCase(100, 120, 5, 305),
  everywhereCase(130, 0, 1000, 306),
];
