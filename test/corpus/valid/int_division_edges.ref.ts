import type { CorpusCase } from "../case";

/** Every pair of these, as (dividend, divisor). */
const I32 = [0, 1, -1, 2, -2, 7, -7, 2147483647, -2147483648, 1000000007];
const U32 = [0, 1, 2, 7, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffe];
const I64 = [0n, 1n, -1n, 2n, -7n, 2n ** 63n - 1n, -(2n ** 63n), 2n ** 40n + 3n];
const U64 = [0n, 1n, 2n, 7n, 2n ** 63n, 2n ** 64n - 1n, 2n ** 32n];

function pairs<T>(values: T[]): [T[], T[]] {
  return [values.flatMap((x) => values.map(() => x)), values.flatMap(() => values)];
}
/** The defined results: by zero 0, MIN / -1 wraps (bigint and `| 0` truncate toward zero as C++ does). */
const divI = (x: number, y: number) => (y === 0 ? 0 : (x / y) | 0);
const remI = (x: number, y: number) => (y === 0 ? 0 : (x % y) | 0);
const wrap64 = (v: bigint) => BigInt.asIntN(64, v);
const div64 = (x: bigint, y: bigint) => (y === 0n ? 0n : wrap64(x / y));
const rem64 = (x: bigint, y: bigint) => (y === 0n ? 0n : x % y);

const [ai, bi] = pairs(I32), [au, bu] = pairs(U32), [al, bl] = pairs(I64), [aul, bul] = pairs(U64);
const launch = (kernel: string, n: number, args: string[]) => [{ kernel, grid: Math.ceil(n / 64), block: 64, args }];

export const cases: CorpusCase[] = [
  {
    name: "i32: every pair, MIN / -1 and by zero included",
    setup: () => ({ a: Int32Array.from(ai), b: Int32Array.from(bi), q: new Int32Array(ai.length), r: new Int32Array(ai.length), t: new Int32Array(ai.length) }),
    launches: launch("divI32", ai.length, ["a", "b", "q", "r", "t"]),
    reference: () => ({ q: Int32Array.from(ai, (x, k) => divI(x, bi[k]!)), r: Int32Array.from(ai, (x, k) => remI(x, bi[k]!)), t: Int32Array.from(ai, (x, k) => divI(x, bi[k]!)) }),
  },
  {
    name: "u32: every pair, by zero included",
    setup: () => ({ a: Uint32Array.from(au), b: Uint32Array.from(bu), q: new Uint32Array(au.length), r: new Uint32Array(au.length) }),
    launches: launch("divU32", au.length, ["a", "b", "q", "r"]),
    reference: () => ({ q: Uint32Array.from(au, (x, k) => (bu[k] === 0 ? 0 : Math.trunc(x / bu[k]!))), r: Uint32Array.from(au, (x, k) => (bu[k] === 0 ? 0 : x % bu[k]!)) }),
  },
  {
    name: "i64: every pair, MIN / -1 and by zero included, also as /= and %=",
    setup: () => ({ a: BigInt64Array.from(al), b: BigInt64Array.from(bl), q: new BigInt64Array(al.length), r: new BigInt64Array(al.length) }),
    launches: launch("divI64", al.length, ["a", "b", "q", "r"]),
    reference: () => ({
      q: BigInt64Array.from(al, (x, k) => wrap64(div64(x, bl[k]!) + rem64(div64(x, bl[k]!), bl[k]! | 2n))),
      r: BigInt64Array.from(al, (x, k) => rem64(x, bl[k]!)),
    }),
  },
  {
    name: "u64: every pair, by zero included",
    setup: () => ({ a: BigUint64Array.from(aul), b: BigUint64Array.from(bul), q: new BigUint64Array(aul.length), r: new BigUint64Array(aul.length) }),
    launches: launch("divU64", aul.length, ["a", "b", "q", "r"]),
    reference: () => ({ q: BigUint64Array.from(aul, (x, k) => (bul[k] === 0n ? 0n : x / bul[k]!)), r: BigUint64Array.from(aul, (x, k) => rem64(x, bul[k]!)) }),
  },
];
