import { CorpusCase, seeded } from "../case";

/** The lanes of `lanes` (bit n = lane n of the warp starting at `w`) whose value is `same` as lane `self`'s. */
function lanesLike(value: (i: number) => number, w: number, self: number, lanes: number, same: (a: number, b: number) => boolean): number {
  let m = 0;
  for (let l = 0; l < 32; l++) if ((lanes >>> l) & 1 && same(value(w + l), value(w + self))) m |= 1 << l;
  return m >>> 0;
}

function popcount(v: number): number {
  let c = 0;
  for (let b = 0; b < 32; b++) c += (v >>> b) & 1;
  return c;
}

function groupsCase(n: number, block: number, seed: number, distinct: number): CorpusCase {
  const grid = Math.ceil(n / block);
  return {
    name: `warpGroups n=${n}, block=${block}, ${distinct} keys${n % 32 ? ", partial last warp" : ""}`,
    setup: () => {
      const r = seeded(seed);
      // Few distinct keys (some negative) so groups have several lanes; warp 1 holds one key, warp 2 all negative.
      const keys = Int32Array.from({ length: n }, () => Math.floor(r() * distinct) - 2);
      for (let i = 32; i < Math.min(n, 64); i++) keys[i] = 7;
      for (let i = 64; i < Math.min(n, 96); i++) keys[i] = -1 - (i % 3);
      return { keys, peers: new Uint32Array(n), rank: new Int32Array(n), wholeWarp: new Uint32Array(n), sameSign: new Int32Array(n) };
    },
    launches: [{ kernel: "warpGroups", grid, block, args: ["keys", "peers", "rank", "wholeWarp", "sameSign"] }],
    reference: (inp) => {
      const keys = inp.keys as Int32Array;
      const key = (i: number) => (i < n ? keys[i]! : -1);
      const peers = new Uint32Array(n), rank = new Int32Array(n), wholeWarp = new Uint32Array(n), sameSign = new Int32Array(n);
      for (let i = 0; i < n; i++) {
        const w = i - (i % 32), lane = i % 32;
        peers[i] = lanesLike(key, w, lane, 0xffffffff, (a, b) => a === b);
        rank[i] = popcount(peers[i]! & ((1 << lane) - 1));
        wholeWarp[i] = peers[i] === 0xffffffff ? 0xffffffff : 0;
        let positives = 0;
        for (let l = 0; l < 32; l++) if (key(w + l) > 0) positives++;
        sameSign[i] = positives === 0 || positives === 32 ? 1 : 0;
      }
      return { peers, rank, wholeWarp, sameSign };
    },
  };
}

function floatCase(n: number, block: number, seed: number): CorpusCase {
  const grid = Math.ceil(n / block);
  return {
    name: `halfWarpFloatMatch n=${n}, block=${block}`,
    setup: () => {
      const r = seeded(seed);
      const pool = [0, -0, NaN, 1.5, -2.25, Infinity];
      const x = Float32Array.from({ length: n }, () => pool[Math.floor(r() * pool.length)]!);
      // The second half of warp 0 holds one value (matchAllSync gives its mask there).
      for (let i = 16; i < Math.min(n, 32); i++) x[i] = -0;
      return { x, peers: new Uint32Array(n), whole: new Uint32Array(n) };
    },
    launches: [{ kernel: "halfWarpFloatMatch", grid, block, args: ["x", "peers", "whole"] }],
    reference: (inp) => {
      const x = inp.x as Float32Array;
      const value = (i: number) => (i < n ? x[i]! : 1);
      const peers = new Uint32Array(n), whole = new Uint32Array(n);
      for (let i = 0; i < n; i++) {
        const w = i - (i % 32), lane = i % 32;
        const half = lane < 16 ? 0x0000ffff : 0xffff0000;
        peers[i] = lanesLike(value, w, lane, half, Object.is);
        whole[i] = peers[i] === half >>> 0 ? half >>> 0 : 0;
      }
      return { peers, whole };
    },
  };
}

export const cases: CorpusCase[] = [
  groupsCase(1000, 128, 301, 4),
  groupsCase(200, 64, 302, 2),
  floatCase(256, 64, 303),
  floatCase(100, 32, 304),
];
