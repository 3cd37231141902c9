import { CorpusCase, CorpusLaunch, HostValue, randomI32 } from "../case";

/** The (j, k) launch sequence; scalar arguments are named p<value> (all are powers of two). */
function steps(n: number, block: number): CorpusLaunch[] {
  const launches: CorpusLaunch[] = [];
  for (let k = 2; k <= n; k *= 2) {
    for (let j = k >> 1; j > 0; j >>= 1) {
      launches.push({ kernel: "bitonicStep", grid: Math.ceil(n / block), block, args: ["a", `p${j}`, `p${k}`] });
    }
  }
  return launches;
}

function sortCase(n: number, block: number, lo: number, hi: number, seed: number): CorpusCase {
  return {
    name: `bitonic sort n=${n}, block=${block}, values in [${lo}, ${hi})`,
    setup: () => {
      const buffers: Record<string, HostValue> = { a: randomI32(n, seed, lo, hi) };
      for (let p = 1; p <= n; p *= 2) buffers[`p${p}`] = p;
      return buffers;
    },
    launches: steps(n, block),
    reference: (inp) => ({ a: Int32Array.from(inp.a as Int32Array).sort() }),
  };
}

export const cases: CorpusCase[] = [
  sortCase(256, 64, -1000000, 1000000, 101),
  sortCase(1024, 128, -50, 50, 102), // many duplicates
  sortCase(32, 32, 0, 1000, 103),
];
