import { CorpusCase, seeded } from "../case";

/** Plain TypeScript: every i64/u64 operation wrapped to 64 bits on its own, as C++ computes it. */
const s = (v: bigint) => BigInt.asIntN(64, v);
const u = (v: bigint) => BigInt.asUintN(64, v);
/** C++'s / and % on long long: truncating, as bigint's. */
const div = (p: bigint, q: bigint) => s(p / q);

const EXTREMES = [0n, 1n, -1n, 2n ** 63n - 1n, -(2n ** 63n), 2n ** 32n + 7n, -(2n ** 40n) - 3n, 0x5555555555555555n];

function randomI64(n: number, seed: number): BigInt64Array {
  const r = seeded(seed);
  return BigInt64Array.from({ length: n }, (_, i) =>
    i < EXTREMES.length ? EXTREMES[i]! : s((BigInt(Math.floor(r() * 2 ** 32)) << 32n) | BigInt(Math.floor(r() * 2 ** 32))),
  );
}

function chainsCase(n: number, k: bigint): CorpusCase {
  return {
    name: `chains n=${n}, k=${k}`,
    setup: () => ({ a: randomI64(n, 11), b: randomI64(n, 12).reverse(), k, out: new BigInt64Array(n * 10), flags: new Int32Array(n * 2), un: new BigUint64Array(n) }),
    launches: [{ kernel: "chains", grid: Math.ceil(n / 32), block: 32, args: ["a", "b", "k", "out", "flags", "un"] }],
    reference: (inp) => {
      const a = inp.a as BigInt64Array, b = inp.b as BigInt64Array;
      const out = new BigInt64Array(n * 10), flags = new Int32Array(n * 2), un = new BigUint64Array(n);
      for (let i = 0; i < n; i++) {
        const x = a[i]!, y = b[i]!, o = i * 10;
        out[o] = s(s(s(x * k) + y) ^ (x >> 3n)) - (y & 1023n);
        out[o + 1] = s(s(s(x * y) * k) * x) >> 7n;
        out[o + 2] = s(s(-s(x * k)) + ~s(y * y));
        out[o + 3] = s(s((s(x + y) << 5n)) * s(x - y));
        out[o + 4] = div(s(x * k), (y & 0xffffn) | 1n);
        out[o + 5] = s(s(x * y) + k) % 1000003n;
        out[o + 6] = s(s(x * x) << (y & 63n));
        out[o + 7] = (s(x * y) | s(k * k)) & ~s(x + y);
        out[o + 8] = s(BigInt(Number(s(x * y) & 0xfffffffn)) * s(x - k));
        out[o + 9] = s(x * y) >> (y & 63n);
        flags[i * 2] = s(x * y) > k ? 1 : 0;
        flags[i * 2 + 1] = s(x + y) === s(k * 2n) ? 1 : 0;
        un[i] = u(u(u(s(x * y)) * 3n) + u(s(-y))) - u(x >> 1n);
        un[i] = u(un[i]!);
      }
      return { out, flags, un };
    },
  };
}

export const cases: CorpusCase[] = [chainsCase(40, 1000003n), chainsCase(70, -(2n ** 62n) + 12345n)];
