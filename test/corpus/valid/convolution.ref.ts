import { CorpusCase, HostNDArray, nd, randomF32 } from "../case";

/** Same values as FILTER in convolution.ts, as stored in f32. */
const FILTER = new Float32Array([0.05, 0.2, 0.5, 0.15, 0.1]);

function conv1d(x: Float32Array, f: Float32Array): Float32Array {
  const n = x.length;
  const r = Math.floor(f.length / 2);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let k = 0; k < f.length; k++) {
      const j = i + k - r;
      if (j >= 0 && j < n) s += f[k] * x[j];
    }
    out[i] = s;
  }
  return out;
}

function constCase(n: number, block: number, seed: number): CorpusCase {
  return {
    name: `conv1dConst n=${n}, block=${block}`,
    setup: () => ({ x: randomF32(n, seed), out: new Float32Array(n) }),
    launches: [{ kernel: "conv1dConst", grid: Math.ceil(n / block), block, args: ["x", "out"] }],
    reference: (inp) => ({ out: conv1d(inp.x as Float32Array, FILTER) }),
    tolerance: { abs: 1e-6, rel: 1e-5 },
  };
}

function paramCase(n: number, taps: number, block: number, seed: number): CorpusCase {
  return {
    name: `conv1dParam n=${n}, ${taps} taps, block=${block}`,
    setup: () => ({ x: randomF32(n, seed), filter: randomF32(taps, seed + 1), out: new Float32Array(n) }),
    launches: [{ kernel: "conv1dParam", grid: Math.ceil(n / block), block, args: ["x", "filter", "out"] }],
    reference: (inp) => ({ out: conv1d(inp.x as Float32Array, inp.filter as Float32Array) }),
    tolerance: { abs: 1e-5, rel: 1e-4 },
  };
}

function case2d(h: number, w: number, k: number, block: [number, number], seed: number): CorpusCase {
  return {
    name: `conv2d ${h}x${w}, ${k}x${k} filter, block ${block[0]}x${block[1]}`,
    setup: () => ({
      img: nd(randomF32(h * w, seed), [h, w]),
      filt: nd(randomF32(k * k, seed + 1), [k, k]),
      out: nd(new Float32Array(h * w), [h, w]),
    }),
    launches: [{ kernel: "conv2d", grid: [Math.ceil(w / block[0]), Math.ceil(h / block[1])], block, args: ["img", "filt", "out"] }],
    reference: (inp) => {
      const img = (inp.img as HostNDArray).data, filt = (inp.filt as HostNDArray).data;
      const r = Math.floor(k / 2);
      const out = new Float32Array(h * w);
      for (let y = 0; y < h; y++) {
        for (let x = 0; x < w; x++) {
          let s = 0;
          for (let a = 0; a < k; a++) {
            for (let b = 0; b < k; b++) {
              const yy = y + a - r, xx = x + b - r;
              if (yy >= 0 && yy < h && xx >= 0 && xx < w) s += filt[a * k + b] * img[yy * w + xx];
            }
          }
          out[y * w + x] = s;
        }
      }
      return { out: nd(out, [h, w]) };
    },
    tolerance: { abs: 1e-5, rel: 1e-4 },
  };
}

export const cases: CorpusCase[] = [
  constCase(1000, 128, 131),
  constCase(4, 32, 132),
  paramCase(777, 7, 64, 133),
  case2d(40, 50, 3, [16, 16], 134),
  case2d(17, 9, 5, [8, 4], 135),
];
