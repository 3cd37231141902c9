import { CorpusCase, randomI32 } from "../case";

function thirdsCase(n: number, block: number, seed: number): CorpusCase {
  return {
    name: `thirds n=${n}, block=${block}`,
    setup: () => {
      const nums = randomI32(n, seed, -1000000, 1000000);
      nums[0] = 1; // 1/3: 0.3333333333333333 in f64, 0.3333333432674408 if computed in f32
      return { n: nums, d: randomI32(n, seed + 1, 1, 1000), out: new Float64Array(n), outScaled: new Float64Array(n) };
    },
    launches: [{ kernel: "thirds", grid: Math.ceil(n / block), block, args: ["n", "d", "out", "outScaled"] }],
    reference: (inp) => {
      const nums = inp.n as Int32Array, d = inp.d as Int32Array;
      return { out: Float64Array.from(nums, (v) => v / 3), outScaled: Float64Array.from(nums, (v, i) => (v * 0.1) / d[i]!) };
    },
    // No tolerance: f64 multiplication and division are correctly rounded on every backend, so the
    // results equal plain TypeScript's exactly.
  };
}

export const cases: CorpusCase[] = [thirdsCase(1000, 128, 611), thirdsCase(64, 32, 612)];
