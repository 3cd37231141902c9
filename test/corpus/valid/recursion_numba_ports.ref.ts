import { CorpusCase } from "../case";

const fib = (n: number): bigint => (n < 2 ? 1n : fib(n - 1) + fib(n - 2));
const ack = (m: number, n: number): number => (m === 0 ? n + 1 : n === 0 ? ack(m - 1, 1) : ack(m - 1, ack(m, n - 1)));

export const cases: CorpusCase[] = [
  {
    name: "fib3(0..20) (Numba's recursion_usecases.fib3)",
    setup: () => ({ n: Int32Array.from({ length: 21 }, (_, i) => i), out: new BigInt64Array(21) }),
    launches: [{ kernel: "fibKernel", grid: 1, block: 32, args: ["n", "out"] }],
    reference: () => ({ out: BigInt64Array.from({ length: 21 }, (_, i) => fib(i)) }),
  },
  {
    name: "isEven / isOdd, mutually recursive, over 0..63",
    setup: () => ({ n: Int32Array.from({ length: 64 }, (_, i) => i), even: new Int32Array(64) }),
    launches: [{ kernel: "parity", grid: 2, block: 32, args: ["n", "even"] }],
    reference: () => ({ even: Int32Array.from({ length: 64 }, (_, i) => (i % 2 === 0 ? 1 : 0)) }),
  },
  {
    name: "ackermann(m, n) for m ≤ 2, n ≤ 3",
    setup: () => ({ m: Int32Array.from([0, 0, 1, 1, 2, 2, 2, 2]), n: Int32Array.from([0, 3, 0, 3, 0, 1, 2, 3]), out: new Int32Array(8) }),
    launches: [{ kernel: "ackermannKernel", grid: 1, block: 8, args: ["m", "n", "out"] }],
    reference: (inp) => ({ out: Int32Array.from(inp.m as Int32Array, (m, i) => ack(m, (inp.n as Int32Array)[i]!)) }),
  },
];
