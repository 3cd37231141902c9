import { CorpusCase, randomF32, randomI32 } from "../case";

function f32Case(n: number, block: number, seed: number): CorpusCase {
  return {
    name: `warpSum n=${n}, block=${block}`,
    setup: () => ({ x: randomF32(n, seed), result: new Float32Array(1) }),
    launches: [{ kernel: "warpSum", grid: Math.ceil(n / block), block, args: ["x", "result"] }],
    reference: (inp) => {
      let s = 0;
      for (const v of inp.x as Float32Array) s += v;
      return { result: Float32Array.of(s) };
    },
    // Warp sums are added atomically in any order.
    tolerance: { abs: 1e-3, rel: 1e-4 },
  };
}

function i32Case(n: number, block: number, seed: number): CorpusCase {
  const warps = Math.ceil(n / block) * (block / 32);
  return {
    name: `warpSumI32 n=${n}, block=${block}`,
    setup: () => ({ x: randomI32(n, seed, -5000, 5000), result: new Int32Array(1), perWarp: new Int32Array(warps) }),
    launches: [{ kernel: "warpSumI32", grid: Math.ceil(n / block), block, args: ["x", "result", "perWarp"] }],
    reference: (inp) => {
      const x = inp.x as Int32Array;
      const perWarp = new Int32Array(warps);
      let total = 0;
      for (let i = 0; i < n; i++) {
        perWarp[i >> 5] += x[i];
        total += x[i];
      }
      return { result: Int32Array.of(total), perWarp };
    },
  };
}

export const cases: CorpusCase[] = [
  f32Case(1000, 128, 111),
  f32Case(5000, 64, 112),
  f32Case(31, 32, 113),
  i32Case(1000, 128, 114),
  i32Case(4096, 256, 115),
];
