import { CorpusCase, seeded } from "../case";

const MASK64 = (1n << 64n) - 1n;
const u64 = (v: bigint) => BigInt.asUintN(64, v);

/** Plain bigint bit counting, one bit at a time (independent of the kernels' implementations). */
function popc(x: bigint): number {
  let c = 0;
  for (let b = 0n; b < 64n; b++) c += Number((x >> b) & 1n);
  return c;
}
function brev(x: bigint): bigint {
  let r = 0n;
  for (let b = 0n; b < 64n; b++) r |= ((x >> b) & 1n) << (63n - b);
  return r;
}
function clz(x: bigint): number {
  const u = x & MASK64;
  for (let b = 63n; b >= 0n; b--) if ((u >> b) & 1n) return Number(63n - b);
  return 64;
}
function ffs(x: bigint): number {
  const u = x & MASK64;
  for (let b = 0n; b < 64n; b++) if ((u >> b) & 1n) return Number(b) + 1;
  return 0;
}

// Numba's 64-bit cases first (popc 0xF00000000000, brev 0x000030F0000030F0, clz/ffs 0x10000 and ffs 0x100000000), then edges and random bits.
const U = [0xf00000000000n, 0x000030f0000030f0n, 0n, MASK64, 1n, 1n << 63n, 0x8000000000000001n];
const I = [0x10000n, 0x100000000n, 0n, -1n, 1n, -(1n << 63n), 0x7fffffffffffffffn];

const bitsCase: CorpusCase = {
  name: "popc/brev/clz/ffs of u64/i64 (Numba's cases, edges, random)",
  setup: () => {
    const r = seeded(64);
    const rand = () => (BigInt(Math.floor(r() * 2 ** 32)) << 32n) | BigInt(Math.floor(r() * 2 ** 32));
    const x = BigUint64Array.from([...U, ...Array.from({ length: 57 }, rand)]);
    const y = BigInt64Array.from([...I, ...Array.from({ length: 57 }, () => BigInt.asIntN(64, rand() >> BigInt(Math.floor(r() * 64))))]);
    const n = x.length;
    return { x, y, popc: new Int32Array(n), brev: new BigUint64Array(n), clz: new Int32Array(n), ffs: new Int32Array(n) };
  },
  launches: [{ kernel: "bits64", grid: 1, block: 64, args: ["x", "y", "popc", "brev", "clz", "ffs"] }],
  reference: (inp) => {
    const x = inp.x as BigUint64Array, y = inp.y as BigInt64Array;
    return {
      popc: Int32Array.from(x, popc),
      brev: BigUint64Array.from(x, brev),
      clz: Int32Array.from(y, clz),
      ffs: Int32Array.from(y, ffs),
    };
  },
};

function shuffleCase(n: number): CorpusCase {
  const threads = Math.ceil(n / 32) * 32;
  const warps = threads / 32;
  return {
    name: `warpShuffles64 n=${n}${n % 32 ? ", partial last warp" : ""}`,
    setup: () => {
      const r = seeded(n);
      const x = BigInt64Array.from({ length: n }, (_, i) => BigInt.asIntN(64, (BigInt(Math.floor(r() * 2 ** 31)) << BigInt(20 + (i % 40))) - BigInt(i)));
      return { x, sums: new BigInt64Array(warps), xors: new BigUint64Array(n) };
    },
    launches: [{ kernel: "warpShuffles64", grid: threads / 64 >= 1 ? Math.ceil(threads / 64) : 1, block: 64, args: ["x", "sums", "xors"] }],
    reference: (inp) => {
      const x = inp.x as BigInt64Array;
      const sums = new BigInt64Array(warps), xors = new BigUint64Array(n);
      for (let w = 0; w < warps; w++) {
        // Lane 0's value after the shflDown tree is the wrapped sum of the warp's 32 values (0 past the end).
        let s = 0n, xr = 0n;
        for (let l = 0; l < 32; l++) {
          const i = w * 32 + l;
          const v = i < n ? x[i]! : 0n;
          s = BigInt.asIntN(64, s + v);
          xr ^= u64(v);
        }
        sums[w] = s;
        // After the xor butterfly every lane holds the xor of the whole warp.
        for (let l = 0; l < 32; l++) if (w * 32 + l < n) xors[w * 32 + l] = xr;
      }
      return { sums, xors };
    },
  };
}

export const cases: CorpusCase[] = [bitsCase, shuffleCase(256), shuffleCase(100)];
