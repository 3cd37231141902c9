import { Float16Array } from "cudascript";
import { CorpusCase, complexArray } from "../case";

/** The constants of const_arrays_dtypes.ts as the host stores them (the typed arrays round and hold them). */
const I64_EDGES = new BigInt64Array([-9223372036854775808n, 9223372036854775807n, -1n, 0n, 1234567890123456789n, -(1n << 62n)]);
const U64_EDGES = new BigUint64Array([0n, 18446744073709551615n, 9223372036854775808n, 1n << 40n, 0xdeadbeefcafebaben]);
const I64_TABLE = [1n, -2n, 3n, -4000000000000n, 5n, -6n];
const HALVES = new Float16Array([0.1, 65504, 5.960464477539063e-8, -0, -2.5, Infinity, -Infinity, NaN]);
const HALF_TABLE = new Float16Array([0.5, 1.5, -2, 1000, 0.333, 7]);

export const cases: CorpusCase[] = [
  {
    name: "i64/u64 constants: range ends exact, 2-D table",
    setup: () => ({ i64Out: new BigInt64Array(6), u64Out: new BigUint64Array(5), tableOut: new BigInt64Array(6) }),
    launches: [{ kernel: "readInt64", grid: 1, block: 32, args: ["i64Out", "u64Out", "tableOut"] }],
    reference: () => ({ i64Out: I64_EDGES, u64Out: U64_EDGES, tableOut: BigInt64Array.from(I64_TABLE, (v) => v * 2n) }),
  },
  {
    name: "f16 constants: rounded, subnormal, -0, infinities, NaN; 2-D table through a device function",
    setup: () => ({ out: new Float16Array(8), reciprocals: new Float16Array(8), rowSums: new Float16Array(3) }),
    launches: [{ kernel: "readHalves", grid: 1, block: 32, args: ["out", "reciprocals", "rowSums"] }],
    reference: () => ({
      out: HALVES,
      reciprocals: new Float16Array(Array.from(HALVES, (h: number) => 1 / h)),
      // 0 + a is a; a + b (exact in f64) rounds once to f16 as the Float16Array stores it.
      rowSums: new Float16Array([0, 1, 2].map((r) => HALF_TABLE[2 * r]! + HALF_TABLE[2 * r + 1]!)),
    }),
  },
  {
    name: "c64/c128 constants, finite and non-finite parts, a 2-D c128 table",
    setup: () => ({ z64: complexArray(new Float32Array(6)), z128: complexArray(new Float64Array(4)), special: complexArray(new Float32Array(4)), table: complexArray(new Float64Array(8)) }),
    launches: [{ kernel: "readComplex", grid: 1, block: 32, args: ["z64", "z128", "special", "table"] }],
    reference: () => ({
      z64: complexArray(new Float32Array([1.5, -2, 0.1, 3e38, -0, 1e-45])),
      z128: complexArray(new Float64Array([0.1, -0.2, 1e300, -1e-300])),
      special: complexArray(new Float32Array([NaN, Infinity, -Infinity, 2])),
      table: complexArray(new Float64Array([1, 2, 3, 4, 5, 6, 7, 8])),
    }),
  },
];
