import { CorpusCase, randomF32, randomI32 } from "../case";

function sumCase(n: number, block: number, seed: number): CorpusCase {
  const blocks = Math.ceil(n / block);
  return {
    name: `dynBlockSum n=${n}, block=${block}, sharedMem=${block * 4}`,
    setup: () => ({ x: randomF32(n, seed), partial: new Float32Array(blocks) }),
    launches: [{ kernel: "dynBlockSum", grid: blocks, block, sharedMem: block * 4, args: ["x", "partial"] }],
    reference: (inp) => {
      const x = inp.x as Float32Array;
      const partial = new Float32Array(blocks);
      for (let b = 0; b < blocks; b++) {
        let s = 0;
        for (let i = b * block; i < Math.min(n, (b + 1) * block); i++) s += x[i];
        partial[b] = s;
      }
      return { partial };
    },
    tolerance: { abs: 1e-4, rel: 1e-4 },
  };
}

function reverseCase(n: number, block: number, seed: number): CorpusCase {
  return {
    name: `dynReverse n=${n}, block=${block}${n % block ? ", shorter last chunk" : ""}`,
    setup: () => ({ x: randomI32(n, seed, -1000000, 1000000), out: new Int32Array(n) }),
    launches: [{ kernel: "dynReverse", grid: Math.ceil(n / block), block, sharedMem: block * 4, args: ["x", "out"] }],
    reference: (inp) => {
      const x = inp.x as Int32Array;
      const out = new Int32Array(n);
      for (let start = 0; start < n; start += block) {
        const end = Math.min(n, start + block);
        for (let i = start; i < end; i++) out[i] = x[end - 1 - (i - start)];
      }
      return { out };
    },
  };
}

export const cases: CorpusCase[] = [
  sumCase(1000, 64, 221),
  sumCase(5000, 256, 222),
  sumCase(100, 512, 223),
  reverseCase(1000, 128, 224),
  reverseCase(768, 256, 225),
];
