import { CorpusCase, randomF32, randomI32 } from "../case";

const n = 300;

export const cases: CorpusCase[] = [
  {
    name: "kernels, device functions and locals named like C library names",
    setup: () => ({ x: randomF32(n, 1601), out: new Float32Array(n), a: randomI32(n, 1602, -50, 50), iout: new Int32Array(n), g: randomF32(n, 1603) }),
    launches: [
      { kernel: "erf", grid: 3, block: 128, args: ["x", "out"] },
      { kernel: "y0", grid: 3, block: 128, args: ["a", "iout"] },
      { kernel: "gamma", grid: 3, block: 128, args: ["g"] },
    ],
    reference: (inp) => {
      const x = inp.x as Float32Array, a = inp.a as Int32Array, g = Float32Array.from(inp.g as Float32Array);
      const f = Math.fround;
      const out = new Float32Array(n), iout = new Int32Array(n);
      for (let i = 0; i < n; i++) {
        const lgamma = f(f(f(x[i]! * 3) * 2) + 1);
        out[i] = f(f(lgamma * 2) - 1);
        const y1 = a[i]! % 7;
        iout[i] = y1 * 2 + a[i]!;
        g[i] = f(f(g[i]! - 1) * 2);
      }
      return { out, iout, g };
    },
    tolerance: { abs: 1e-6, rel: 1e-6 },
  },
];
