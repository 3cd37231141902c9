import { CorpusCase, randomF32 } from "../case";

function heatCase(n: number, steps: number, seed: number): CorpusCase {
  return {
    name: `heatInBlock n=${n}, steps=${steps}`,
    setup: () => ({ u: randomF32(n, seed), out: new Float32Array(n), steps }),
    launches: [{ kernel: "heatInBlock", grid: 1, block: 256, args: ["u", "out", "steps"] }],
    reference: (inp) => {
      let src = Float32Array.from(inp.u as Float32Array);
      let dst = Float32Array.from(src);
      for (let it = 0; it < steps; it++) {
        for (let t = 1; t < n - 1; t++) dst[t] = Math.fround(Math.fround(Math.fround(0.25 * src[t - 1]!) + Math.fround(0.5 * src[t]!)) + Math.fround(0.25 * src[t + 1]!));
        const tmp = src;
        src = dst;
        dst = tmp;
      }
      return { out: src };
    },
    tolerance: { abs: 1e-6, rel: 1e-6 },
  };
}

function parityCase(n: number, steps: number, seed: number): CorpusCase {
  return {
    name: `sweepByParity n=${n}, ${steps} launches`,
    setup: () => ({ x: randomF32(n, seed), y: randomF32(n, seed + 1), count: new Int32Array(2), ...Object.fromEntries(Array.from({ length: steps }, (_, k) => [`it${k}`, k])) }),
    launches: Array.from({ length: steps }, (_, k) => ({ kernel: "sweepByParity", grid: Math.ceil(n / 64), block: 64, args: ["x", "y", "count", `it${k}`] })),
    reference: (inp) => {
      const x = Float32Array.from(inp.x as Float32Array), y = Float32Array.from(inp.y as Float32Array);
      const count = new Int32Array(2);
      for (let it = 0; it < steps; it++) {
        const src = it % 2 === 0 ? x : y, dst = it % 2 === 0 ? y : x;
        for (let i = 1; i < n - 1; i++) {
          dst[i] = Math.fround(Math.fround(Math.fround(src[i - 1]! + src[i]!) + src[i + 1]!) / 3);
          count[it % 2]++;
        }
      }
      return { x, y, count };
    },
    tolerance: { abs: 1e-6, rel: 1e-6 },
  };
}

export const cases: CorpusCase[] = [heatCase(200, 50, 401), heatCase(256, 7, 402), parityCase(300, 5, 403)];
