import { CorpusCase, HostNDArray, nd, randomF32 } from "../case";

const TILE = 16;

function transposeCase(rows: number, cols: number, seed: number): CorpusCase {
  return {
    name: `transpose ${rows}x${cols}${rows % TILE || cols % TILE ? ", partial tiles" : ""}`,
    setup: () => ({ a: nd(randomF32(rows * cols, seed), [rows, cols]), out: nd(new Float32Array(rows * cols), [cols, rows]) }),
    launches: [
      { kernel: "transpose", grid: [Math.ceil(cols / TILE), Math.ceil(rows / TILE)], block: [TILE, TILE], args: ["a", "out"] },
    ],
    reference: (inp) => {
      const a = inp.a as HostNDArray;
      const out = new Float32Array(rows * cols);
      for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = a.data[r * cols + c];
      return { out: nd(out, [cols, rows]) };
    },
    // A pure copy: must be bit-exact.
    tolerance: { abs: 0, rel: 0 },
  };
}

/** The same kernel on an F-order (column-major) input: element (r, c) of `a` is a.data[r + c * rows]. */
function fOrderInputCase(rows: number, cols: number, seed: number): CorpusCase {
  return {
    name: `transpose ${rows}x${cols} of an F-order input`,
    setup: () => ({ a: { data: randomF32(rows * cols, seed), shape: [rows, cols], strides: [1, rows] }, out: nd(new Float32Array(rows * cols), [cols, rows]) }),
    launches: [{ kernel: "transpose", grid: [Math.ceil(cols / TILE), Math.ceil(rows / TILE)], block: [TILE, TILE], args: ["a", "out"] }],
    reference: (inp) => {
      // out (C order) is a's column-major data itself: out[c][r] = a[r][c] = a.data[r + c * rows].
      const a = inp.a as HostNDArray;
      return { out: nd(Float32Array.from(a.data as Float32Array), [cols, rows]) };
    },
    tolerance: { abs: 0, rel: 0 },
  };
}

export const cases: CorpusCase[] = [transposeCase(64, 48, 81), transposeCase(37, 53, 82), transposeCase(1, 100, 83), fOrderInputCase(37, 53, 84)];
