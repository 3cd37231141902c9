import { CorpusCase, randomF32, randomI32 } from "../case";

const BLOCK = 256; // runtime/src/ufunc.ts: threads per block of both ufunc kernels

/** add over x [2, 3] and y [3] broadcast along the rows: out[i][j] = x[i][j] + y[j]. */
const broadcastAdd: CorpusCase = {
  name: "add_vectorize [2, 3] + [3] (y broadcast along the rows)",
  setup: () => ({ x: randomF32(6, 1), y: randomF32(3, 2), out: new Float32Array(6), d1: 2, d2: 3, x0: 6, x1: 3, x2: 1, y0: 3, y1: 0, y2: 1 }),
  launches: [{ kernel: "add_vectorize", grid: 1, block: BLOCK, args: ["d1", "d2", "out", "x", "x0", "x1", "x2", "y", "y0", "y1", "y2"] }],
  reference: (inp) => {
    const x = inp.x as Float32Array, y = inp.y as Float32Array;
    return { out: Float32Array.from({ length: 6 }, (_, i) => Math.fround(x[i]! + y[i % 3]!)) };
  },
  tolerance: { abs: 0, rel: 0 },
};

/** Numba's discriminant over 3000 elements with a grid smaller than the data (the grid-stride loop). */
const discriminants: CorpusCase = {
  name: "discriminants_vectorize n=3000 on 4 blocks (grid-stride)",
  setup: () => ({
    a: Float64Array.from(randomF32(3000, 3)), b: Float64Array.from(randomF32(3000, 4)), c: Float64Array.from(randomF32(3000, 5)),
    out: new Float64Array(3000), one: 1, n: 3000, s: 1, z: 0,
  }),
  launches: [{ kernel: "discriminants_vectorize", grid: 4, block: BLOCK, args: ["one", "n", "out", "a", "z", "z", "s", "b", "z", "z", "s", "c", "z", "z", "s"] }],
  reference: (inp) => {
    const [a, b, c] = [inp.a, inp.b, inp.c] as Float64Array[];
    return { out: Float64Array.from(a!, (ai, i) => b![i]! * b![i]! - 4 * ai * c![i]!) };
  },
  tolerance: { abs: 1e-12, rel: 1e-12 },
};

/** rel_diff of x [4] against a scalar held in a one-element array (strides 0): how a number is broadcast. */
const relDiffs: CorpusCase = {
  name: "relDiffs_vectorize [4] against a broadcast scalar",
  setup: () => ({ x: Float32Array.from([1, 2, 4, -8]), y: Float32Array.from([2]), out: new Float32Array(4), one: 1, n: 4, s: 1, z: 0 }),
  launches: [{ kernel: "relDiffs_vectorize", grid: 1, block: BLOCK, args: ["one", "n", "out", "x", "z", "z", "s", "y", "z", "z", "z"] }],
  reference: (inp) => {
    const x = inp.x as Float32Array;
    const f = Math.fround;
    return { out: Float32Array.from(x, (v) => f(f(2 * f(Math.abs(f(v - 2)))) / f(f(Math.abs(v)) + 2))) };
  },
  tolerance: { abs: 1e-6, rel: 1e-6 },
};

/** The cuda.jit kernel calling the same device function. */
const relDiffKernel: CorpusCase = {
  name: "relDiffKernel n=40 (the vectorized device function called from a kernel)",
  setup: () => ({ x: randomF32(40, 9), y: randomF32(40, 10), out: new Float32Array(40) }),
  launches: [{ kernel: "relDiffKernel", grid: 1, block: 64, args: ["x", "y", "out"] }],
  reference: (inp) => {
    const x = inp.x as Float32Array, y = inp.y as Float32Array;
    const f = Math.fround;
    return { out: Float32Array.from(x, (v, i) => f(f(2 * f(Math.abs(f(v - y[i]!)))) / f(f(Math.abs(v)) + f(Math.abs(y[i]!))))) };
  },
  tolerance: { abs: 1e-6, rel: 1e-6 },
};

/** The two passes of runtime/src/ufunc.ts reduce(): `blocks` partials, then one block over them with init. */
function reduceCase(kernel: string, n: number, blocks: number, make: () => Int32Array | Float32Array, init: number, fold: (a: number, b: number) => number): CorpusCase {
  const chunk = Math.ceil(n / (blocks * BLOCK));
  const used = Math.ceil(n / (BLOCK * chunk));
  const float = kernel === "sum_reduce";
  return {
    name: `${kernel} n=${n} on ${blocks} blocks (chunks of ${chunk}), init ${init}`,
    setup: () => ({ src: make(), partials: float ? new Float32Array(blocks) : new Int32Array(blocks), res: float ? new Float32Array(1) : new Int32Array(1), n, used, init, no: 0, yes: 1 }),
    launches: [
      { kernel, grid: blocks, block: BLOCK, args: ["n", "src", "partials", "init", "no"] },
      { kernel, grid: 1, block: BLOCK, args: ["used", "partials", "res", "init", "yes"] },
    ],
    reference: (inp) => {
      const src = inp.src as Int32Array | Float32Array;
      const partials = inp.partials as Int32Array | Float32Array;
      for (let b = 0; b < used; b++) {
        const lo = b * BLOCK * chunk;
        let acc = src[lo]!;
        for (let i = lo + 1; i < Math.min(n, lo + BLOCK * chunk); i++) acc = fold(acc, src[i]!);
        partials[b] = acc;
      }
      let total = partials[0]!;
      for (let b = 1; b < used; b++) total = fold(total, partials[b]!);
      const res = float ? new Float32Array(1) : new Int32Array(1);
      res[0] = fold(init, total);
      return { partials, res };
    },
    tolerance: float ? { abs: 1e-2, rel: 1e-4 } : undefined,
  };
}

export const cases: CorpusCase[] = [
  broadcastAdd,
  discriminants,
  relDiffs,
  relDiffKernel,
  reduceCase("sum_reduce", 5000, 8, () => randomF32(5000, 6), 0, (a, b) => Math.fround(a + b)),
  reduceCase("max_reduce", 70001, 64, () => randomI32(70001, 7, -1e6, 1e6), -2147483648, (a, b) => (a > b ? a : b)),
  reduceCase("last_reduce", 70001, 64, () => randomI32(70001, 8, -1e6, 1e6), 0, (_a, b) => b),
];
