import { CorpusCase, HostNDArray, nd, randomF32 } from "../case";

function nonNullCase(rows: number, cols: number, seed: number): CorpusCase {
  const block: [number, number] = [8, 8];
  return {
    name: `nonNull ${rows}x${cols}`,
    setup: () => ({ m: nd(randomF32(rows * cols, seed), [rows, cols]), x: randomF32(cols, seed + 1), out: nd(new Float32Array(rows * cols), [rows, cols]) }),
    // Grid x covers the rows (cuda.grid(2)[0] is r), y the columns.
    launches: [{ kernel: "nonNull", grid: [Math.ceil(rows / block[0]), Math.ceil(cols / block[1])], block, args: ["m", "x", "out"] }],
    reference: (inp) => {
      const m = (inp.m as HostNDArray).data;
      const x = inp.x as Float32Array;
      const out = new Float32Array(rows * cols);
      for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[r * cols + c] = Math.fround(Math.fround(x[c]! * m[r * cols + c]!) + m[r * cols + c]!);
      return { out: nd(out, [rows, cols]) };
    },
    tolerance: { abs: 1e-5, rel: 1e-6 },
  };
}

export const cases: CorpusCase[] = [nonNullCase(20, 13, 181), nonNullCase(1, 40, 182)];
