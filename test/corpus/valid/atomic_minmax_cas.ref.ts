import { CorpusCase, randomI32 } from "../case";

const INT_MIN = -2147483648;
const INT_MAX = 2147483647;

function minMaxCase(kernel: "minMaxAtomic" | "casMax", n: number, block: number, seed: number): CorpusCase {
  return {
    name: `${kernel} n=${n}, block=${block}`,
    setup: () => ({ x: randomI32(n, seed, -1000000000, 1000000000), result: Int32Array.of(INT_MIN, INT_MAX) }),
    launches: [{ kernel, grid: Math.ceil(n / block), block, args: ["x", "result"] }],
    reference: (inp) => {
      const x = inp.x as Int32Array;
      let max = INT_MIN, min = INT_MAX;
      for (const v of x) {
        max = Math.max(max, v);
        min = Math.min(min, v);
      }
      // casMax leaves result[1] untouched.
      return { result: Int32Array.of(max, kernel === "casMax" ? INT_MAX : min) };
    },
  };
}

function distinctCase(n: number, range: number, block: number, seed: number): CorpusCase {
  return {
    name: `distinctCount n=${n}, values in [0, ${range}), block=${block}`,
    setup: () => ({ values: randomI32(n, seed, 0, range), seen: new Int32Array(range), distinct: new Int32Array(1) }),
    launches: [{ kernel: "distinctCount", grid: Math.ceil(n / block), block, args: ["values", "seen", "distinct"] }],
    reference: (inp) => {
      const seen = new Int32Array(range);
      for (const v of inp.values as Int32Array) seen[v] = 1;
      return { seen, distinct: Int32Array.of(seen.reduce((a, b) => a + b, 0)) };
    },
  };
}

function bitCase(n: number, block: number, seed: number): CorpusCase {
  return {
    name: `bitAtomics n=${n}, block=${block}`,
    setup: () => ({ x: randomI32(n, seed, -100000, 100000), acc: Int32Array.of(1000, 0, -1, 0x5a5a5a5a) }),
    launches: [{ kernel: "bitAtomics", grid: Math.ceil(n / block), block, args: ["x", "acc"] }],
    reference: (inp) => {
      const acc = Int32Array.from(inp.acc as Int32Array);
      for (const v of inp.x as Int32Array) {
        const bit = 1 << (v & 31);
        acc[0] -= v;
        acc[1] |= bit;
        acc[2] &= ~bit;
        acc[3] ^= v;
      }
      return { acc };
    },
  };
}

export const cases: CorpusCase[] = [
  minMaxCase("minMaxAtomic", 1000, 128, 241),
  minMaxCase("minMaxAtomic", 1, 32, 242),
  minMaxCase("casMax", 3000, 256, 243),
  distinctCase(1000, 2000, 128, 244),
  distinctCase(5000, 64, 256, 245),
  bitCase(20, 32, 246), // few values: some bits stay unset in acc[1]
  bitCase(2000, 128, 247),
];
