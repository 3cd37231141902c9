import { CorpusCase, randomF32 } from "../case";

function saxpyRef(a: number, x: Float32Array, y: Float32Array): Float32Array {
  const out = new Float32Array(x.length);
  const af = Math.fround(a);
  for (let i = 0; i < x.length; i++) out[i] = af * x[i] + y[i];
  return out;
}

function outOfPlace(n: number, block: number, a: number, seed: number): CorpusCase {
  return {
    name: `saxpy n=${n}, block=${block}${n % block ? ", partial last block" : ""}`,
    setup: () => ({ a, x: randomF32(n, seed), y: randomF32(n, seed + 1), out: new Float32Array(n) }),
    launches: [{ kernel: "saxpy", grid: Math.ceil(n / block), block, args: ["a", "x", "y", "out"] }],
    reference: (inp) => ({ out: saxpyRef(inp.a as number, inp.x as Float32Array, inp.y as Float32Array) }),
    tolerance: { abs: 1e-6, rel: 1e-5 },
  };
}

function inPlace(n: number, block: number, a: number, seed: number): CorpusCase {
  return {
    name: `saxpyInPlace n=${n}, block=${block}`,
    setup: () => ({ a, x: randomF32(n, seed), y: randomF32(n, seed + 1) }),
    launches: [{ kernel: "saxpyInPlace", grid: Math.ceil(n / block), block, args: ["a", "x", "y"] }],
    reference: (inp) => ({ y: saxpyRef(inp.a as number, inp.x as Float32Array, inp.y as Float32Array) }),
    tolerance: { abs: 1e-6, rel: 1e-5 },
  };
}

export const cases: CorpusCase[] = [
  outOfPlace(1000, 128, 2.5, 11),
  outOfPlace(4096, 256, -0.75, 12),
  outOfPlace(1, 32, 3, 13),
  inPlace(777, 64, 0.3, 14),
];
