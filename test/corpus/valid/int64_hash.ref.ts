import { CorpusCase, seeded } from "../case";

/** Plain TypeScript: bigint arithmetic, wrapped to 64 bits where the kernel's i64/u64 wrap. */
const u = (v: bigint) => BigInt.asUintN(64, v);
const s = (v: bigint) => BigInt.asIntN(64, v);

function mix(h: bigint, v: bigint): bigint {
  let x = h ^ v;
  x = u(x * 0x100000001b3n);
  return x ^ (x >> 29n);
}

function randomU64(n: number, seed: number): BigUint64Array {
  const r = seeded(seed);
  return BigUint64Array.from({ length: n }, () => (BigInt(Math.floor(r() * 2 ** 32)) << 32n) | BigInt(Math.floor(r() * 2 ** 32)));
}

function hashCase(n: number, seed: bigint): CorpusCase {
  return {
    name: `hash64 n=${n}, seed=${seed}`,
    setup: () => ({ keys: randomU64(n, n), out: new BigUint64Array(n), seed }),
    launches: [{ kernel: "hash64", grid: Math.ceil(n / 64), block: 64, args: ["keys", "out", "seed"] }],
    reference: (inp) => {
      const keys = inp.keys as BigUint64Array;
      const out = new BigUint64Array(n);
      for (let i = 0; i < n; i++) {
        let h = u(14695981039346656037n) ^ (inp.seed as bigint);
        for (let r = 0; r < 4; r++) h = mix(h, u(keys[i]! + BigInt(r)));
        out[i] = h;
      }
      return { out };
    },
  };
}

function diffsCase(n: number, scale: bigint): CorpusCase {
  const blocks = Math.ceil(n / 64);
  return {
    name: `scaledDiffs n=${n}, scale=${scale}${n % 64 ? ", partial last block" : ""}`,
    setup: () => {
      // Nanosecond timestamps past 2^53, increasing by up to a second, some equal.
      const r = seeded(7);
      const t = new BigInt64Array(n);
      let v = 1_700_000_000_000_000_000n;
      for (let i = 0; i < n; i++) t[i] = v += BigInt(Math.floor(r() * 1e9)) * (i % 5 === 0 ? 0n : 1n);
      return { t, scale, out: new BigInt64Array(n), sums: new BigInt64Array(blocks) };
    },
    launches: [{ kernel: "scaledDiffs", grid: blocks, block: 64, args: ["t", "scale", "out", "sums"] }],
    reference: (inp) => {
      const t = inp.t as BigInt64Array;
      const out = new BigInt64Array(n), sums = new BigInt64Array(blocks);
      const local = new BigInt64Array(blocks * 64);
      for (let i = 0; i < blocks * 64; i++) {
        if (i < n) {
          const prev = i > 0 ? t[i - 1]! : t[i]!;
          local[i] = s(s(s((t[i]! - prev) * (inp.scale as bigint)) - (t[i]! >> 3n)) + (t[i]! % 1000n));
          out[i] = local[i]! & ~-1n;
        }
      }
      for (let b = 0; b < blocks; b++) {
        let sum = 0n;
        for (let k = 0; k < 64; k++) sum = s(sum + local[b * 64 + k]!);
        sums[b] = sum;
      }
      return { out, sums };
    },
  };
}

const CONVERSION_VALUES = [0n, 1n, -1n, 2n ** 53n + 1n, -(2n ** 62n), 2n ** 63n - 1n, 4_000_000_000n, 123_456_789_012n];

const conversionsCase: CorpusCase = {
  name: "conversions Number/BigInt both ways",
  setup: () => {
    const n = CONVERSION_VALUES.length;
    return { x: BigInt64Array.from(CONVERSION_VALUES), asF64: new Float64Array(n), low: new Int32Array(n), back: new BigInt64Array(n) };
  },
  launches: [{ kernel: "conversions", grid: 1, block: 32, args: ["x", "asF64", "low", "back"] }],
  reference: (inp) => {
    const x = inp.x as BigInt64Array;
    const n = x.length;
    const asF64 = new Float64Array(n), low = new Int32Array(n), back = new BigInt64Array(n);
    for (let i = 0; i < n; i++) {
      asF64[i] = Number(x[i]!) * 0.5;
      low[i] = Number(BigInt.asIntN(64, x[i]! & 0x7fffffffn));
      back[i] = BigInt(low[i]!) + BigInt(Math.trunc(asF64[i]! / 1e9));
    }
    return { asF64, low, back };
  },
};

const gridIndexCase: CorpusCase = {
  name: "gridIndex64 n=300, partial last block",
  setup: () => ({ out: new BigInt64Array(300) }),
  launches: [{ kernel: "gridIndex64", grid: 3, block: 128, args: ["out"] }],
  reference: () => ({ out: BigInt64Array.from({ length: 300 }, (_, i) => BigInt(i) * 3000000000n - 7n) }),
};

export const cases: CorpusCase[] = [hashCase(1000, 0n), hashCase(33, 2n ** 64n - 1n), diffsCase(1000, 3n), diffsCase(64, -(2n ** 40n)), conversionsCase, gridIndexCase];
