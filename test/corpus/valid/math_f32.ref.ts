import { CorpusCase, randomF32 } from "../case";

function opsCase(n: number, block: number, seed: number): CorpusCase {
  const lo = -0.25, hi = 0.75;
  return {
    name: `mathOps n=${n}, block=${block}`,
    setup: () => ({ x: randomF32(n, seed, -4, 4), y: randomF32(n, seed + 1), out: new Float32Array(n), lo, hi }),
    launches: [{ kernel: "mathOps", grid: Math.ceil(n / block), block, args: ["x", "y", "out", "lo", "hi"] }],
    reference: (inp) => {
      const x = inp.x as Float32Array, y = inp.y as Float32Array;
      const out = new Float32Array(n);
      for (let i = 0; i < n; i++) {
        const a = Math.abs(x[i]);
        out[i] = Math.sqrt(a) * Math.min(Math.max(y[i], lo), hi) + Math.max(x[i], y[i]) - Math.min(a, 0.5);
      }
      return { out };
    },
    tolerance: { abs: 1e-6, rel: 1e-5 },
  };
}

function polarCase(n: number, block: number, seed: number): CorpusCase {
  return {
    name: `toPolar n=${n}, block=${block}`,
    setup: () => ({
      x: randomF32(n, seed, -10, 10),
      y: randomF32(n, seed + 1, -10, 10),
      radius: new Float32Array(n),
      degrees: new Float32Array(n),
    }),
    launches: [{ kernel: "toPolar", grid: Math.ceil(n / block), block, args: ["x", "y", "radius", "degrees"] }],
    reference: (inp) => {
      const x = inp.x as Float32Array, y = inp.y as Float32Array;
      const radius = new Float32Array(n), degrees = new Float32Array(n);
      for (let i = 0; i < n; i++) {
        radius[i] = Math.hypot(x[i], y[i]);
        degrees[i] = (Math.atan2(y[i], x[i]) * 180) / Math.PI;
      }
      return { radius, degrees };
    },
    tolerance: { abs: 1e-4, rel: 1e-5 },
  };
}

export const cases: CorpusCase[] = [opsCase(1000, 128, 251), opsCase(256, 256, 252), polarCase(777, 64, 253)];
