import { CorpusCase, randomF32 } from "../case";

function dotCase(kernel: "dotBlocks" | "dotAtomic", n: number, grid: number, block: number, seed: number): CorpusCase {
  return {
    name: `${kernel} n=${n}, grid=${grid}, block=${block}`,
    setup: () => ({ a: randomF32(n, seed), b: randomF32(n, seed + 1), result: new Float32Array(1) }),
    launches: [{ kernel, grid, block, args: ["a", "b", "result"] }],
    reference: (inp) => {
      const a = inp.a as Float32Array, b = inp.b as Float32Array;
      let s = 0;
      for (let i = 0; i < n; i++) s += a[i] * b[i];
      return { result: Float32Array.of(s) };
    },
    // f32 accumulation in an unspecified order.
    tolerance: { abs: 5e-3, rel: 1e-3 },
  };
}

export const cases: CorpusCase[] = [
  dotCase("dotBlocks", 1000, 4, 256, 151), // 1024 threads for 1000 elements: partial last block
  dotCase("dotBlocks", 20000, 8, 256, 152), // grid-stride loop, ~10 elements per thread
  dotCase("dotBlocks", 10, 1, 256, 153),
  dotCase("dotAtomic", 3000, Math.ceil(3000 / 128), 128, 154),
];
