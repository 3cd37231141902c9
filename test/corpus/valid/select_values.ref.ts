import { CorpusCase, randomF32, randomI32 } from "../case";

function selectCase(n: number, block: number, seed: number): CorpusCase {
  const grid = Math.ceil(n / block);
  const threads = grid * block;
  return {
    name: `selectValues n=${n}, block=${block} (${threads - n} threads past the end)`,
    setup: () => ({ x: randomF32(n, seed, -4, 4), k: randomI32(n, seed + 1, -1000, 1000), out: new Float32Array(n), flags: new Int32Array(threads) }),
    launches: [{ kernel: "selectValues", grid, block, args: ["x", "k", "out", "flags"] }],
    reference: (inp) => {
      const x = inp.x as Float32Array, k = inp.k as Int32Array;
      const out = new Float32Array(n), flags = new Int32Array(threads);
      for (let i = 0; i < threads; i++) {
        const inRange = i < n;
        const v = inRange ? x[i]! : -1;
        const m = inRange ? k[i]! : 0;
        const mixed = m % 2 === 0 ? m : v;
        flags[i] = (inRange && v > 0 ? 1 : 0) + (i ? 2 : 0);
        if (inRange) out[i] = Math.fround(mixed * 0.5);
      }
      return { out, flags };
    },
  };
}

export const cases: CorpusCase[] = [selectCase(1000, 128, 401), selectCase(37, 32, 402)];
