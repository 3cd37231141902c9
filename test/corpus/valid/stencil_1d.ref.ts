import { CorpusCase, randomF32 } from "../case";

const TPB = 128;
const W = [0.1, 0.2, 0.4, 0.25, 0.05].map(Math.fround);

function stencil5Ref(x: Float32Array): Float32Array {
  const n = x.length;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let k = -2; k <= 2; k++) {
      const j = i + k;
      if (j >= 0 && j < n) s += W[k + 2] * x[j];
    }
    out[i] = s;
  }
  return out;
}

function five(n: number, seed: number): CorpusCase {
  return {
    name: `stencil5 n=${n}${n % TPB ? ", partial last block" : ""}`,
    setup: () => ({ x: randomF32(n, seed), out: new Float32Array(n) }),
    launches: [{ kernel: "stencil5", grid: Math.ceil(n / TPB), block: TPB, args: ["x", "out"] }],
    reference: (inp) => ({ out: stencil5Ref(inp.x as Float32Array) }),
    tolerance: { abs: 1e-6, rel: 1e-5 },
  };
}

function three(n: number, block: number, seed: number): CorpusCase {
  const wl = 0.25, wc = -0.5, wr = 1.5;
  return {
    name: `stencil3Clamped n=${n}, block=${block}`,
    setup: () => ({ x: randomF32(n, seed), out: new Float32Array(n), wl, wc, wr }),
    launches: [{ kernel: "stencil3Clamped", grid: Math.ceil(n / block), block, args: ["x", "out", "wl", "wc", "wr"] }],
    reference: (inp) => {
      const x = inp.x as Float32Array;
      const out = new Float32Array(n);
      for (let i = 0; i < n; i++) {
        const l = Math.max(i - 1, 0), r = Math.min(i + 1, n - 1);
        out[i] = wl * x[l] + wc * x[i] + wr * x[r];
      }
      return { out };
    },
    tolerance: { abs: 1e-6, rel: 1e-5 },
  };
}

export const cases: CorpusCase[] = [five(1000, 71), five(1024, 72), five(3, 73), three(500, 64, 74), three(1, 32, 75)];
