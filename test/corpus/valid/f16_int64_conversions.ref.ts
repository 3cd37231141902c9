import { Float16Array } from "cudascript";
import type { CorpusCase } from "../case";

const HALVES = [0, -0, 1, -1, 0.5, -1.5, 2049, 65504, -65504, 2 ** -24, NaN, Infinity, -Infinity];
const INTS = [0n, 1n, -1n, 2049n, 2051n, 65504n, 65519n, 65520n, -65520n, 2n ** 53n + 1n, 2n ** 63n - 1n, -(2n ** 63n)];

export const cases: CorpusCase[] = [
  {
    name: "f16 → i64/u64: truncated; non-finite values skipped",
    setup: () => ({ h: Float16Array.from(HALVES), s: new BigInt64Array(HALVES.length), u: new BigUint64Array(HALVES.length) }),
    launches: [{ kernel: "halfToInt64", grid: 1, block: 32, args: ["h", "s", "u"] }],
    reference: (inp) => {
      const h = inp.h as Float16Array;
      const fin = (k: number) => Number.isFinite(h[k]!);
      return {
        s: BigInt64Array.from(HALVES, (_, k) => (fin(k) ? BigInt(Math.trunc(h[k]!)) : 0n)),
        u: BigUint64Array.from(HALVES, (_, k) => (fin(k) ? BigInt(Math.trunc(Math.abs(h[k]!))) : 0n)),
      };
    },
  },
  {
    name: "i64/u64 → f16: rounded once (65520 and beyond overflow to Infinity)",
    setup: () => ({ s: BigInt64Array.from(INTS), u: BigUint64Array.from(INTS, (v) => BigInt.asUintN(64, v)), hs: new Float16Array(INTS.length), hu: new Float16Array(INTS.length) }),
    launches: [{ kernel: "int64ToHalf", grid: 1, block: 32, args: ["s", "u", "hs", "hu"] }],
    reference: () => ({ hs: Float16Array.from(INTS.map(Number)), hu: Float16Array.from(INTS.map((v) => Number(BigInt.asUintN(64, v)))) }),
  },
];
