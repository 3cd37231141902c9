import { CorpusCase, randomF32, randomI32 } from "../case";

const BLOCK = 256; // runtime/src/ufunc.ts: threads per block of both ufunc kernels

/** The two passes of runtime/src/ufunc.ts reduce(): `blocks` partials, then one block over them with init. */
function reduceCase(kernel: string, n: number, blocks: number, make: () => Int32Array | Float64Array, init: number, fold: (a: number, b: number) => number): CorpusCase {
  const chunk = Math.ceil(n / (blocks * BLOCK));
  const used = Math.ceil(n / (BLOCK * chunk));
  const float = kernel === "larger_reduce";
  return {
    name: `${kernel} n=${n} on ${blocks} blocks (chunks of ${chunk}), init ${init}`,
    setup: () => ({ src: make(), partials: float ? new Float64Array(blocks) : new Int32Array(blocks), res: float ? new Float64Array(1) : new Int32Array(1), n, used, init, no: 0, yes: 1 }),
    launches: [
      { kernel, grid: blocks, block: BLOCK, args: ["n", "src", "partials", "init", "no"] },
      { kernel, grid: 1, block: BLOCK, args: ["used", "partials", "res", "init", "yes"] },
    ],
    reference: (inp) => {
      const src = inp.src as Int32Array | Float64Array;
      const partials = inp.partials as Int32Array | Float64Array;
      for (let b = 0; b < used; b++) {
        const lo = b * BLOCK * chunk;
        let acc = src[lo]!;
        for (let i = lo + 1; i < Math.min(n, lo + BLOCK * chunk); i++) acc = fold(acc, src[i]!);
        partials[b] = acc;
      }
      let total = partials[0]!;
      for (let b = 1; b < used; b++) total = fold(total, partials[b]!);
      const res = float ? new Float64Array(1) : new Int32Array(1);
      res[0] = fold(init, total);
      return { partials, res };
    },
  };
}

/** scaled over n [5] and s broadcast from one element: out[i] = n[i] * s in f64. */
const scaled: CorpusCase = {
  name: "scaled_vectorize [5] * broadcast s (inferred f64 result)",
  setup: () => ({ n: Int32Array.from([1, -2, 3, 2147483647, -2147483648]), s: Float64Array.from([0.1]), out: new Float64Array(5), one: 1, len: 5, st: 1, z: 0 }),
  launches: [{ kernel: "scaled_vectorize", grid: 1, block: BLOCK, args: ["one", "len", "out", "n", "z", "z", "st", "s", "z", "z", "z"] }],
  reference: (inp) => ({ out: Float64Array.from(inp.n as Int32Array, (v) => v * 0.1) }),
};

export const cases: CorpusCase[] = [
  // i32 addition wraps as on the device: the reference wraps with | 0.
  reduceCase("total_reduce", 5000, 8, () => randomI32(5000, 31, -1e6, 1e6), 0, (a, b) => (a + b) | 0),
  reduceCase("parity_reduce", 70001, 64, () => randomI32(70001, 32, -2147483648, 2147483647), 0, (a, b) => a ^ b),
  reduceCase("larger_reduce", 3001, 4, () => Float64Array.from(randomF32(3001, 33)), -Infinity, (a, b) => (a > b ? a : b)),
  scaled,
];
