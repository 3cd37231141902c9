import { Float16Array } from "cudascript";
import { CorpusCase, seeded } from "../case";

/** f16 values whose bits a float round trip or a value comparison would blur: ±0, NaN, ±Infinity, subnormals, the largest finite. */
const POOL = [0, -0, NaN, Infinity, -Infinity, 2 ** -24, -(2 ** -14), 65504, 1 / 3, -1.5];

/**
 * What identifies an f16 value's bits: 0 and -0 differ, and a NaN is told by its f64 bits (reading an f16
 * NaN keeps its sign and payload in the number).
 */
function bits(v: number): string {
  return v !== v ? new BigUint64Array(Float64Array.of(v).buffer)[0]!.toString(16) : Object.is(v, -0) ? "-0" : String(v);
}

function values(n: number, seed: number): Float16Array {
  const r = seeded(seed);
  const x = new Float16Array(n);
  for (let i = 0; i < n; i++) x[i] = POOL[Math.floor(r() * POOL.length)]!;
  // Warp 1 holds one value but for -0 in lane 5, so matchAllSync gives 0 there; warp 2 holds one NaN.
  for (let i = 32; i < Math.min(n, 64); i++) x[i] = i === 37 ? -0 : 0;
  for (let i = 64; i < Math.min(n, 96); i++) x[i] = NaN;
  // Warp 3: NaNs that differ in their payload or sign only (0x7e00, 0x7e01, 0xfe00).
  const raw = new Uint16Array(x.buffer, x.byteOffset, n);
  for (let i = 96; i < Math.min(n, 128); i++) raw[i] = [0x7e00, 0x7e01, 0xfe00][i % 3]!;
  return x;
}

/** The lanes of `lanes` in the warp starting at `w` whose value has lane `self`'s bits. */
function sameBits(value: (i: number) => number, w: number, self: number, lanes: number): number {
  let m = 0;
  for (let l = 0; l < 32; l++) if ((lanes >>> l) & 1 && bits(value(w + l)) === bits(value(w + self))) m |= 1 << l;
  return m >>> 0;
}

function shuffleCase(n: number, block: number, seed: number): CorpusCase {
  return {
    name: `halfShuffles n=${n}, block=${block}`,
    setup: () => ({
      x: values(n, seed),
      idx: new Float16Array(n),
      up: new Float16Array(n),
      down: new Float16Array(n),
      xor: new Float16Array(n),
      peers: new Uint32Array(n),
    }),
    launches: [{ kernel: "halfShuffles", grid: Math.ceil(n / block), block, args: ["x", "idx", "up", "down", "xor", "peers"] }],
    reference: (inp) => {
      const x = inp.x as Float16Array;
      const v = (i: number) => (i < n ? x[i]! : 1);
      const idx = new Float16Array(n), up = new Float16Array(n), down = new Float16Array(n), xor = new Float16Array(n), peers = new Uint32Array(n);
      const reversed = (i: number) => {
        const w = i - (i % 32), lane = i % 32;
        return lane < 31 ? v(w + 30 - lane) : v(i);
      };
      for (let i = 0; i < n; i++) {
        const w = i - (i % 32), lane = i % 32;
        idx[i] = reversed(i);
        up[i] = lane > 0 && lane < 31 ? v(i - 1) : v(i);
        down[i] = lane > 0 && lane < 31 ? v(i + 1) : v(i);
        xor[i] = v(w + (lane ^ 31));
        peers[i] = sameBits(reversed, w, lane, 0xffffffff);
      }
      return { idx, up, down, xor, peers };
    },
  };
}

function matchCase(n: number, block: number, seed: number): CorpusCase {
  return {
    name: `halfMatch n=${n}, block=${block}`,
    setup: () => ({ x: values(n, seed), any: new Uint32Array(n), all: new Uint32Array(n), anyPartial: new Uint32Array(n), allPartial: new Uint32Array(n) }),
    launches: [{ kernel: "halfMatch", grid: Math.ceil(n / block), block, args: ["x", "any", "all", "anyPartial", "allPartial"] }],
    reference: (inp) => {
      const x = inp.x as Float16Array;
      const v = (i: number) => (i < n ? x[i]! : 1);
      const any = new Uint32Array(n), all = new Uint32Array(n), anyPartial = new Uint32Array(n), allPartial = new Uint32Array(n);
      for (let i = 0; i < n; i++) {
        const w = i - (i % 32), lane = i % 32;
        const mask = lane > 0 ? 0xfffffffe : 0x00000001;
        any[i] = sameBits(v, w, lane, 0xffffffff);
        all[i] = any[i] === 0xffffffff ? 0xffffffff : 0;
        anyPartial[i] = sameBits(v, w, lane, mask);
        allPartial[i] = anyPartial[i] === mask ? mask : 0;
      }
      return { any, all, anyPartial, allPartial };
    },
  };
}

export const cases: CorpusCase[] = [shuffleCase(256, 64, 2801), shuffleCase(96, 32, 2802), matchCase(256, 128, 2803), matchCase(128, 32, 2804)];
