import { CorpusCase, HostNDArray, nd, randomF32 } from "../case";

function f32sum(values: ArrayLike<number>): number {
  let s = 0;
  for (let k = 0; k < values.length; k++) s = Math.fround(s + values[k]!);
  return s;
}

function rowCase(rows: number, cols: number, hitRows: number, seed: number): CorpusCase {
  return {
    name: `rowSums ${rows}x${cols}`,
    setup: () => ({
      m: nd(randomF32(rows * cols, seed), [rows, cols]),
      sums: new Float32Array(rows),
      viaDevice: new Float32Array(rows),
      inner: new Float32Array(rows),
      hits: nd(new Int32Array(hitRows * cols), [hitRows, cols]),
    }),
    launches: [{ kernel: "rowSums", grid: Math.ceil(rows / 32), block: 32, args: ["m", "sums", "viaDevice", "inner", "hits"] }],
    reference: (inp) => {
      const m = (inp.m as HostNDArray).data as Float32Array;
      const sums = new Float32Array(rows), inner = new Float32Array(rows), hits = new Int32Array(hitRows * cols);
      for (let i = 0; i < rows; i++) {
        const row = m.subarray(i * cols, (i + 1) * cols);
        sums[i] = f32sum(row);
        inner[i] = f32sum(row.subarray(1, -1));
        let best = 0;
        for (let k = 1; k < cols; k++) if (row[k]! > row[best]!) best = k;
        hits[(i % hitRows) * cols + best]++;
      }
      return { sums, viaDevice: sums, inner, hits: nd(hits, [hitRows, cols]) };
    },
    tolerance: { abs: 1e-5, rel: 1e-5 },
  };
}

function planeCase(depth: number, h: number, w: number, seed: number): CorpusCase {
  const cols = 5;
  return {
    name: `planeSums ${depth}x${h}x${w}`,
    setup: () => ({ t: nd(randomF32(depth * h * w, seed), [depth, h, w]), out: new Float32Array(depth), rowsOut: nd(new Float32Array(depth * cols), [depth, cols]) }),
    launches: [{ kernel: "planeSums", grid: Math.ceil(depth / 32), block: 32, args: ["t", "out", "rowsOut"] }],
    reference: (inp) => {
      const t = (inp.t as HostNDArray).data as Float32Array;
      const out = new Float32Array(depth), rowsOut = new Float32Array(depth * cols);
      for (let z = 0; z < depth; z++) {
        let s = 0;
        for (let y = 0; y < h; y++) s = Math.fround(s + f32sum(t.subarray((z * h + y) * w, (z * h + y + 1) * w)));
        out[z] = s;
        for (let k = 0; k < cols; k++) rowsOut[z * cols + k] = (z % 4) * 8 + (k % 8) + h * w;
      }
      return { out, rowsOut: nd(rowsOut, [depth, cols]) };
    },
    tolerance: { abs: 1e-5, rel: 1e-5 },
  };
}

export const cases: CorpusCase[] = [rowCase(100, 17, 3, 501), rowCase(33, 64, 1, 502), planeCase(40, 3, 7, 503), planeCase(5, 1, 2, 504)];
