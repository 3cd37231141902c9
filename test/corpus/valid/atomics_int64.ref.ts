import { CorpusCase, seeded } from "../case";

const s64 = (v: bigint) => BigInt.asIntN(64, v);
const u64 = (v: bigint) => BigInt.asUintN(64, v);

function values(n: number, seed: number): BigInt64Array {
  const r = seeded(seed);
  // Large magnitudes of both signs (sums wrap), some small, one INT64_MIN.
  return BigInt64Array.from({ length: n }, (_, i) => (i === 5 ? -(2n ** 63n) : s64((BigInt(Math.floor(r() * 2 ** 32)) << BigInt(i % 33)) * (r() < 0.5 ? -1n : 1n) + BigInt(i))));
}

function atomicsCase(n: number, block: number): CorpusCase {
  return {
    name: `atomics64 n=${n}, block=${block}`,
    setup: () => {
      const s = new BigInt64Array(8);
      s[2] = -(2n ** 63n); // max starts at the smallest i64
      s[3] = 2n ** 63n - 1n; // min at the largest
      s[4] = -1n; // and starts all ones
      const u = new BigUint64Array(4);
      u[2] = 2n ** 64n - 1n;
      return { x: values(n, n), s, u, race: new BigInt64Array(2), old: new BigInt64Array(n) };
    },
    launches: [{ kernel: "atomics64", grid: Math.ceil(n / block), block, args: ["x", "s", "u", "race", "old"] }],
    reference: (inp) => {
      const x = inp.x as BigInt64Array;
      const s = BigInt64Array.from(inp.s as BigInt64Array), u = BigUint64Array.from(inp.u as BigUint64Array);
      const blocks = Math.ceil(n / block);
      for (const v of x) {
        s[0] = s64(s[0]! + v);
        s[1] = s64(s[1]! - v);
        if (v > s[2]!) s[2] = v;
        if (v < s[3]!) s[3] = v;
        s[4] = s[4]! & (v | 0x100000000n);
        s[5] = s[5]! | (v & 0x7ff0000000000000n);
        s[6] = s[6]! ^ v;
        const w = u64(v);
        u[0] = u64(u[0]! + w);
        if (w > u[1]!) u[1] = w;
        if (w < u[2]!) u[2] = w;
        if (w >> 1n > u[3]!) u[3] = w >> 1n;
      }
      let shared = 0n;
      for (let b = 0; b < blocks; b++) {
        let acc = 0n;
        for (let i = b * block; i < Math.min(n, (b + 1) * block); i++) acc = s64(acc + (x[i]! >> 4n));
        shared = s64(shared + acc);
      }
      s[7] = shared;
      // The CAS winner and the last exchange depend on thread order: `race` and `old` are not compared.
      return { s, u };
    },
  };
}

export const cases: CorpusCase[] = [atomicsCase(1000, 128), atomicsCase(33, 32)];
