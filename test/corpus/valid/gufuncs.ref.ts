import { CorpusCase, nd, randomF32, randomI32 } from "../case";

const BLOCK = 256; // runtime/src/gufunc.ts: threads per block of the gufunc kernel

/** A stack of 5 matmuls [5][3x4] x one [4x2]: the second matrix has loop stride 0 (broadcast). */
const matmul: CorpusCase = {
  name: "matmul_guvectorize [5, 3, 4] x [4, 2] (the second matrix broadcast over the loop)",
  setup: () => ({ d1: 1, d2: 5, a: nd(randomF32(60, 1), [5, 3, 4]), one: 1, z: 0, b: nd(randomF32(8, 2), [1, 4, 2]), c: nd(new Float32Array(30), [5, 3, 2]) }),
  launches: [{ kernel: "matmul_guvectorize", grid: 1, block: BLOCK, args: ["d1", "d2", "a", "z", "z", "one", "b", "z", "z", "z", "c"] }],
  reference: (inp) => {
    const a = (inp.a as { data: Float32Array }).data, b = (inp.b as { data: Float32Array }).data;
    const c = new Float32Array(30);
    for (let l = 0; l < 5; l++)
      for (let i = 0; i < 3; i++)
        for (let j = 0; j < 2; j++) {
          let s = 0;
          for (let k = 0; k < 4; k++) s = Math.fround(s + Math.fround(a[l * 12 + i * 4 + k]! * b[k * 2 + j]!));
          c[l * 6 + i * 2 + j] = s;
        }
    return { c: nd(c, [5, 3, 2]) };
  },
  tolerance: { abs: 1e-5, rel: 1e-5 },
};

/** 600 dot products over a loop shape [20, 30] on 2 blocks (the grid-stride loop), b broadcast along the first loop dimension. */
const dot: CorpusCase = {
  name: "dot_guvectorize loop [20, 30] x (n=7), b of loop shape [30] (broadcast along dimension 0), grid-stride on 2 blocks",
  setup: () => ({
    d1: 20, d2: 30, a: nd(Float64Array.from(randomF32(4200, 3)), [600, 7]), b: nd(Float64Array.from(randomF32(210, 4)), [30, 7]),
    aS0: 600, aS1: 30, aS2: 1, bS0: 0, bS1: 0, bS2: 1, out: nd(new Float64Array(600), [600, 1]),
  }),
  launches: [{ kernel: "dot_guvectorize", grid: 2, block: 128, args: ["d1", "d2", "a", "aS0", "aS1", "aS2", "b", "bS0", "bS1", "bS2", "out"] }],
  reference: (inp) => {
    const a = (inp.a as { data: Float64Array }).data, b = (inp.b as { data: Float64Array }).data;
    const out = Float64Array.from({ length: 600 }, (_, l) => {
      let s = 0;
      for (let k = 0; k < 7; k++) s += a[l * 7 + k]! * b[(l % 30) * 7 + k]!;
      return s;
    });
    return { out: nd(out, [600, 1]) };
  },
  tolerance: { abs: 1e-12, rel: 1e-12 },
};

/** A () input: one scalar per loop row (strides 1), added to each of 4 rows of 9. */
const addRows: CorpusCase = {
  name: "addRows_guvectorize [4, 9] + one scalar per row",
  setup: () => ({ one: 1, four: 4, x: nd(randomI32(36, 5, -1000, 1000), [4, 9]), y: Int32Array.from([10, -20, 30, -40]), s: 1, z: 0, res: nd(new Int32Array(36), [4, 9]) }),
  launches: [{ kernel: "addRows_guvectorize", grid: 1, block: BLOCK, args: ["one", "four", "x", "z", "z", "s", "y", "z", "z", "s", "res"] }],
  reference: (inp) => {
    const x = (inp.x as { data: Int32Array }).data, y = inp.y as Int32Array;
    return { res: nd(Int32Array.from(x, (v, i) => v + y[Math.floor(i / 9)]!), [4, 9]) };
  },
};

/** The same function called from a cuda.jit kernel, one thread per row. */
const addRowsKernel: CorpusCase = {
  name: "addRowsKernel [5, 7]: addScalar on row views, called from a kernel",
  setup: () => ({ x: nd(randomI32(35, 6, -1000, 1000), [5, 7]), y: randomI32(5, 7, -50, 50), res: nd(new Int32Array(35), [5, 7]) }),
  launches: [{ kernel: "addRowsKernel", grid: 1, block: 32, args: ["x", "y", "res"] }],
  reference: (inp) => {
    const x = (inp.x as { data: Int32Array }).data, y = inp.y as Int32Array;
    return { res: nd(Int32Array.from(x, (v, i) => v + y[Math.floor(i / 7)]!), [5, 7]) };
  },
};

export const cases: CorpusCase[] = [matmul, dot, addRows, addRowsKernel];
