import { CorpusCase } from "../case";

/** The lanes that exist in the warp of thread t of a block of n threads (bit l = lane l). */
function lanesOfWarp(t: number, n: number): number {
  const w = t - (t % 32);
  const lanes = Math.min(32, n - w);
  return lanes === 32 ? 0xffffffff : (1 << lanes) - 1;
}

function lanemaskGridCase(n: number, block: number): CorpusCase {
  return {
    name: `useLanemaskLt n=${n}, block=${block}`,
    setup: () => ({ x: new Uint32Array(n) }),
    launches: [{ kernel: "useLanemaskLt", grid: Math.ceil(n / block), block, args: ["x"] }],
    reference: () => ({ x: Uint32Array.from({ length: n }, (_, i) => 2 ** ((i % block) % 32) - 1) }),
  };
}

function lanemask3dCase(block: [number, number, number]): CorpusCase {
  const n = block[0] * block[1] * block[2];
  return {
    name: `useLanemaskLt3d block=${block.join("x")}`,
    setup: () => ({ x: new Uint32Array(n) }),
    launches: [{ kernel: "useLanemaskLt3d", grid: 1, block, args: ["x"] }],
    reference: () => ({ x: Uint32Array.from({ length: n }, (_, t) => 2 ** (t % 32) - 1) }),
  };
}

function matchCase(label: string, values: number[]): CorpusCase {
  const n = values.length;
  return {
    name: `useMatchSync ${n} threads, ${label}`,
    setup: () => ({ aryIn: Int32Array.from(values), all: new Uint32Array(n), any: new Uint32Array(n) }),
    launches: [{ kernel: "useMatchSync", grid: 1, block: n, args: ["aryIn", "all", "any"] }],
    reference: () => {
      const all = new Uint32Array(n), any = new Uint32Array(n);
      for (let t = 0; t < n; t++) {
        const w = t - (t % 32), lanes = lanesOfWarp(t, n);
        let same = 0;
        for (let l = 0; l < 32; l++) if ((lanes >>> l) & 1 && values[w + l] === values[t]) same |= 1 << l;
        any[t] = same >>> 0;
        all[t] = same >>> 0 === lanes >>> 0 ? lanes >>> 0 : 0;
      }
      return { all, any };
    },
  };
}

export const cases: CorpusCase[] = [
  // Numba's test: one block of 32 threads gives 2**i - 1 in thread i.
  lanemaskGridCase(32, 32),
  lanemaskGridCase(200, 48),
  lanemask3dCase([10, 1, 1]),
  lanemask3dCase([8, 4, 2]),
  // Numba's test: arange(10) gives 0 everywhere, ones(10) gives 2**10 - 1.
  matchCase("distinct values", Array.from({ length: 10 }, (_, i) => i)),
  matchCase("one value", Array.from({ length: 10 }, () => 1)),
  // A full warp then a partial one of 8 lanes, each holding one value.
  matchCase("a full warp and a partial warp", Array.from({ length: 40 }, (_, i) => (i < 32 ? 3 : -4))),
];
