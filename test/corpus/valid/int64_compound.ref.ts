import type { CorpusCase } from "../case";

/** Plain TypeScript: each step wrapped to 64 bits; shift counts outside 0…63 give 0 (or the sign). */
const s64 = (v: bigint) => BigInt.asIntN(64, v);
const u64 = (v: bigint) => BigInt.asUintN(64, v);
const shl = (a: bigint, n: bigint) => (n >= 0n && n <= 63n ? s64(a << n) : 0n);
const shr = (a: bigint, n: bigint) => (n >= 0n && n <= 63n ? a >> n : a < 0n ? -1n : 0n);
const MAX = 2n ** 63n - 1n, MIN = -(2n ** 63n);

const A = [1n, -1n, 0n, MAX, MIN, 0x123456789abcdefn, -(2n ** 40n) - 3n, 5n, 77n, -123456789012n];
const COUNTS = [0n, 1n, 31n, 32n, 33n, 36n, 40n, 47n, 63n, 64n, 70n, -1n];

function compoundCase(): CorpusCase {
  const a = BigInt64Array.from({ length: A.length * COUNTS.length }, (_, k) => A[k % A.length]!);
  const s = BigInt64Array.from({ length: a.length }, (_, k) => COUNTS[Math.floor(k / A.length)]!);
  const n = a.length;
  return {
    name: `compound n=${n}: shifts by 0…70, wrapping + - *`,
    setup: () => ({ a: a.slice(), s: s.slice(), out: new BigInt64Array(n * 8), uout: new BigUint64Array(n) }),
    launches: [{ kernel: "compound", grid: Math.ceil(n / 32), block: 32, args: ["a", "s", "out", "uout"] }],
    reference: () => {
      const out = new BigInt64Array(n * 8), uout = new BigUint64Array(n);
      for (let i = 0; i < n; i++) {
        const x = a[i]!, c = s[i]!, o = i * 8;
        out[o] = 1n << 40n;
        out[o + 1] = shr(x, c);
        out[o + 2] = shl(x, c);
        let w = s64(x + MAX);
        out[o + 3] = w;
        w = s64(w - s64(x * 3n));
        out[o + 4] = w;
        out[o + 5] = s64(w * (x | 1n));
        out[o + 6] = shl(x >> 36n, c & 63n);
        const d = (c & 7n) - 1n;
        const m = d === 0n ? 0n : s64(x / d); // division by zero is 0 on every backend
        out[o + 7] = m % 1000n;
        let u = u64(x);
        u = u64(c) <= 63n ? u >> u64(c) : 0n;
        uout[i] = u64(u64(u64(u << 40n) + 18446744073709551615n) * 3n);
      }
      return { out, uout };
    },
  };
}

function strideCase(n: number, grid: number, block: number): CorpusCase {
  return {
    name: `strideWrap: the last ${n} values of i64, ${grid}×${block} threads`,
    setup: () => ({ base: MAX - BigInt(n) + 1n, out: new Int32Array(n) }),
    launches: [{ kernel: "strideWrap", grid, block, args: ["base", "out"] }],
    reference: () => ({ out: new Int32Array(n).fill(1) }),
  };
}

const incDecCase: CorpusCase = {
  name: "incDec: ++ and -- wrap at MAX, MIN and 0",
  setup: () => ({ a: BigInt64Array.from(A), out: new BigInt64Array(2 * A.length), uout: new BigUint64Array(A.length) }),
  launches: [{ kernel: "incDec", grid: 1, block: 32, args: ["a", "out", "uout"] }],
  reference: () => ({ out: BigInt64Array.from(A.flatMap((x) => [s64(x + 1n), s64(x - 1n)])), uout: BigUint64Array.from(A, (x) => u64(u64(x) - 1n)) }),
};

export const cases: CorpusCase[] = [compoundCase(), strideCase(100, 2, 32), strideCase(1000, 3, 64), incDecCase];
