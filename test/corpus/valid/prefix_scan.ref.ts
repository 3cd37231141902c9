import { CorpusCase, randomF32, randomI32 } from "../case";

const TPB = 128;
const SCAN_N = 2 * TPB;

function segmentedInclusive<T extends Int32Array | Float32Array>(x: T, seg: number, out: T): T {
  let run = 0;
  for (let i = 0; i < x.length; i++) {
    if (i % seg === 0) run = 0;
    run += x[i];
    out[i] = run;
  }
  return out;
}

function hillis(n: number, seed: number): CorpusCase {
  return {
    name: `scanHillisSteele n=${n}${n % TPB ? ", partial last block" : ""}`,
    setup: () => ({ x: randomI32(n, seed, -1000, 1000), out: new Int32Array(n) }),
    launches: [{ kernel: "scanHillisSteele", grid: Math.ceil(n / TPB), block: TPB, args: ["x", "out"] }],
    reference: (inp) => ({ out: segmentedInclusive(inp.x as Int32Array, TPB, new Int32Array(n)) }),
  };
}

function blelloch(n: number, seed: number): CorpusCase {
  return {
    name: `scanBlelloch n=${n}${n % SCAN_N ? ", partial last block" : ""}`,
    setup: () => ({ x: randomF32(n, seed), out: new Float32Array(n) }),
    launches: [{ kernel: "scanBlelloch", grid: Math.ceil(n / SCAN_N), block: TPB, args: ["x", "out"] }],
    reference: (inp) => {
      const x = inp.x as Float32Array;
      const out = new Float32Array(n);
      // f64 running sum, rounded once per element.
      let run = 0;
      for (let i = 0; i < n; i++) {
        if (i % SCAN_N === 0) run = 0;
        run += x[i];
        out[i] = run;
      }
      return { out };
    },
    tolerance: { abs: 1e-4, rel: 1e-4 },
  };
}

export const cases: CorpusCase[] = [
  hillis(1000, 61),
  hillis(4096, 62),
  hillis(1, 63),
  blelloch(1000, 64),
  blelloch(2048, 65),
  blelloch(300, 66),
];
