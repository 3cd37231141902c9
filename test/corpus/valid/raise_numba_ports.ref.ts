import { CorpusCase, randomF32, randomI32 } from "../case";

// The launches where no thread throws: every backend computes the same results, so the error checks
// cost nothing visible (test/simulator/raise.test.ts launches the same kernels with a thread that throws).

export const cases: CorpusCase[] = [
  {
    name: "userRaise(false): no raise, out[0] = 1",
    setup: () => ({ no: false, out: new Int32Array(1) }),
    launches: [{ kernel: "userRaise", grid: 1, block: 1, args: ["no", "out"] }],
    reference: () => ({ out: Int32Array.from([1]) }),
  },
  {
    name: "callsRaising over non-negative x (the device function returns 2x)",
    setup: () => ({ x: randomI32(300, 41, 0, 1 << 20), out: new Int32Array(300) }),
    launches: [{ kernel: "callsRaising", grid: 3, block: 128, args: ["x", "out"] }],
    reference: (inp) => ({ out: Int32Array.from(inp.x as Int32Array, (v) => v * 2) }),
  },
  {
    name: "divergeRaise with bad = -1 (no thread raises)",
    setup: () => ({ bad: -1, out: new Int32Array(100) }),
    launches: [{ kernel: "divergeRaise", grid: 2, block: 64, args: ["bad", "out"] }],
    reference: () => ({ out: Int32Array.from({ length: 100 }, (_, i) => i) }),
  },
  {
    name: "asserted: every x within the limit, doubled",
    setup: () => ({ x: randomF32(200, 42, -1, 1), limit: 1 }),
    launches: [{ kernel: "asserted", grid: 2, block: 128, args: ["x", "limit"] }],
    reference: (inp) => ({ x: Float32Array.from(inp.x as Float32Array, (v) => Math.fround(v * 2)) }),
  },
];
