import { CorpusCase, HostNDArray, nd, randomF32 } from "../case";

function strideCase(rows: number, cols: number, grid: [number, number], block: [number, number], seed: number): CorpusCase {
  const s = 1.5;
  return {
    name: `affine2d ${rows}x${cols}, grid ${grid[0]}x${grid[1]}, block ${block[0]}x${block[1]}`,
    setup: () => ({ a: nd(randomF32(rows * cols, seed), [rows, cols]), out: nd(new Float32Array(rows * cols), [rows, cols]), s }),
    launches: [{ kernel: "affine2d", grid, block, args: ["a", "out", "s"] }],
    reference: (inp) => {
      const a = (inp.a as HostNDArray).data;
      const out = new Float32Array(rows * cols);
      for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[r * cols + c] = a[r * cols + c] * s + r - c;
      return { out: nd(out, [rows, cols]) };
    },
    tolerance: { abs: 1e-5, rel: 1e-6 },
  };
}

export const cases: CorpusCase[] = [
  strideCase(100, 70, [2, 2], [8, 8], 171), // grid much smaller than the array: several strides each way
  strideCase(33, 33, [5, 5], [8, 8], 172), // grid larger than the array
  strideCase(1, 200, [1, 1], [32, 4], 173),
];
