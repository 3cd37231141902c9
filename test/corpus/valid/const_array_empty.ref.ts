import { CorpusCase, seeded } from "../case";

function randomF64(n: number, seed: number): Float64Array {
  const r = seeded(seed);
  return Float64Array.from({ length: n }, () => r() * 2 - 1);
}

/** The plain-TypeScript version of both kernels. */
function applyTaps(x: Float64Array, taps: readonly number[]): Float64Array {
  return x.map((v, i) => {
    let acc = v;
    for (let k = 0; k < taps.length; k++) if (i + k + 1 < x.length) acc += taps[k]! * x[i + k + 1]!;
    return acc;
  });
}

function tapsCase(kernel: "noTaps" | "twoTaps", taps: readonly number[], n: number, seed: number): CorpusCase {
  return {
    name: `${kernel} n=${n}`,
    setup: () => ({ x: randomF64(n, seed), out: new Float64Array(n) }),
    launches: [{ kernel, grid: Math.ceil(n / 128), block: 128, args: ["x", "out"] }],
    reference: (inp) => ({ out: applyTaps(inp.x as Float64Array, taps) }),
    tolerance: { abs: 1e-15, rel: 1e-15 },
  };
}

export const cases: CorpusCase[] = [tapsCase("noTaps", [], 300, 621), tapsCase("twoTaps", [0.5, 0.25], 300, 622)];
