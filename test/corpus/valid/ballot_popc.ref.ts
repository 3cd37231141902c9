import { CorpusCase, randomF32, seeded } from "../case";

function voteCase(n: number, block: number, seed: number): CorpusCase {
  const grid = Math.ceil(n / block);
  const warps = (grid * block) / 32;
  return {
    name: `warpVotes n=${n}, block=${block}${n % 32 ? ", partial last warp" : ""}`,
    setup: () => {
      const x = randomF32(n, seed, -1, 1);
      // Some warps entirely non-positive and some entirely non-negative.
      for (let i = 0; i < Math.min(n, 32); i++) x[i] = -Math.abs(x[i]) - 0.01;
      for (let i = 64; i < Math.min(n, 96); i++) x[i] = Math.abs(x[i]) + 0.01;
      for (let i = 96; i < Math.min(n, 128); i++) x[i] = 0;
      return {
        x,
        positives: new Int32Array(warps),
        firstLane: new Int32Array(warps),
        anyNegative: new Int32Array(warps),
        allInRange: new Int32Array(warps),
      };
    },
    launches: [
      { kernel: "warpVotes", grid, block, args: ["x", "positives", "firstLane", "anyNegative", "allInRange"] },
    ],
    reference: (inp) => {
      const x = inp.x as Float32Array;
      const positives = new Int32Array(warps), firstLane = new Int32Array(warps).fill(-1);
      const anyNegative = new Int32Array(warps), allInRange = new Int32Array(warps);
      for (let w = 0; w < warps; w++) {
        allInRange[w] = (w + 1) * 32 <= n ? 1 : 0;
        for (let lane = 31; lane >= 0; lane--) {
          const i = w * 32 + lane;
          if (i >= n) continue;
          if (x[i] > 0) {
            positives[w]++;
            firstLane[w] = lane;
          }
          if (x[i] < 0) anyNegative[w] = 1;
        }
      }
      return { positives, firstLane, anyNegative, allInRange };
    },
  };
}

function popcount(v: number): number {
  let c = 0;
  for (let b = 0; b < 32; b++) c += (v >>> b) & 1;
  return c;
}

function bitsCase(n: number, block: number, seed: number): CorpusCase {
  return {
    name: `bitIntrinsics n=${n}, block=${block}`,
    setup: () => {
      const r = seeded(seed);
      const x = new Uint32Array(n);
      for (let i = 0; i < n; i++) {
        // Mix full-width values with short ones so clz/ffs see a spread of positions.
        const full = Math.floor(r() * 4294967296);
        x[i] = i % 4 === 0 ? full : full >>> Math.floor(r() * 32);
      }
      if (n > 2) {
        x[0] = 0;
        x[1] = 0xffffffff;
        x[2] = 0x80000000;
      }
      return { x, pop: new Int32Array(n), lead: new Int32Array(n), first: new Int32Array(n), rev: new Uint32Array(n) };
    },
    launches: [{ kernel: "bitIntrinsics", grid: Math.ceil(n / block), block, args: ["x", "pop", "lead", "first", "rev"] }],
    reference: (inp) => {
      const x = inp.x as Uint32Array;
      const pop = new Int32Array(n), lead = new Int32Array(n), first = new Int32Array(n), rev = new Uint32Array(n);
      for (let i = 0; i < n; i++) {
        const v = x[i];
        pop[i] = popcount(v);
        lead[i] = Math.clz32(v);
        first[i] = v === 0 ? 0 : 32 - Math.clz32(v & -v);
        let rv = 0;
        for (let b = 0; b < 32; b++) rv = (rv << 1) | ((v >>> b) & 1);
        rev[i] = rv >>> 0;
      }
      return { pop, lead, first, rev };
    },
  };
}

export const cases: CorpusCase[] = [
  voteCase(1000, 128, 201),
  voteCase(4096, 256, 202),
  voteCase(45, 64, 203),
  bitsCase(1000, 128, 204),
];
