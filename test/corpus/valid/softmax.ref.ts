import { CorpusCase, HostNDArray, nd, randomF32 } from "../case";

const TPB = 128;

function softmaxCase(rows: number, cols: number, seed: number): CorpusCase {
  return {
    name: `softmaxRows ${rows}x${cols}`,
    setup: () => ({ x: nd(randomF32(rows * cols, seed, -4, 4), [rows, cols]), out: nd(new Float32Array(rows * cols), [rows, cols]) }),
    launches: [{ kernel: "softmaxRows", grid: rows, block: TPB, args: ["x", "out"] }],
    reference: (inp) => {
      const x = (inp.x as HostNDArray).data;
      const out = new Float32Array(rows * cols);
      for (let r = 0; r < rows; r++) {
        let m = -Infinity;
        for (let c = 0; c < cols; c++) m = Math.max(m, x[r * cols + c]);
        let s = 0;
        for (let c = 0; c < cols; c++) s += Math.exp(x[r * cols + c] - m);
        for (let c = 0; c < cols; c++) out[r * cols + c] = Math.exp(x[r * cols + c] - m) / s;
      }
      return { out: nd(out, [rows, cols]) };
    },
    tolerance: { abs: 1e-6, rel: 1e-4 },
  };
}

export const cases: CorpusCase[] = [
  softmaxCase(16, 300, 121), // more columns than threads, not a multiple of TPB
  softmaxCase(8, 128, 122),
  softmaxCase(33, 50, 123), // fewer columns than threads: most threads contribute nothing
];
