import { CorpusCase, randomI32 } from "../case";

function rngCase(n: number, block: number, seed: number, rounds: number): CorpusCase {
  return {
    name: `xorshiftRng n=${n}, block=${block}, seed=${seed}, rounds=${rounds}`,
    setup: () => ({ seed, rounds, out: new Uint32Array(n) }),
    launches: [{ kernel: "xorshiftRng", grid: Math.ceil(n / block), block, args: ["seed", "rounds", "out"] }],
    reference: () => {
      const out = new Uint32Array(n);
      for (let i = 0; i < n; i++) {
        let s = ((seed + i) | 1) >>> 0;
        for (let r = 0; r < rounds; r++) {
          s = (s ^ (s << 13)) >>> 0;
          s = (s ^ (s >>> 17)) >>> 0;
          s = (s ^ (s << 5)) >>> 0;
        }
        out[i] = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      }
      return { out };
    },
  };
}

function opsCase(n: number, block: number, seed: number): CorpusCase {
  return {
    name: `intOps n=${n}, block=${block}`,
    setup: () => {
      const a = randomI32(n, seed, -100000, 100000);
      const b = randomI32(n, seed + 1, -50, 50);
      for (let i = 0; i < n; i++) if (b[i] === 0) b[i] = 7;
      return { a, b, quot: new Int32Array(n), rem: new Int32Array(n), mix: new Int32Array(n), low: new Uint16Array(n) };
    },
    launches: [{ kernel: "intOps", grid: Math.ceil(n / block), block, args: ["a", "b", "quot", "rem", "mix", "low"] }],
    reference: (inp) => {
      const a = inp.a as Int32Array, b = inp.b as Int32Array;
      const quot = new Int32Array(n), rem = new Int32Array(n), mix = new Int32Array(n), low = new Uint16Array(n);
      for (let i = 0; i < n; i++) {
        const x = a[i], y = b[i];
        quot[i] = Math.trunc(x / y);
        rem[i] = x % y;
        const bits = ((x << 3) ^ (y >> 2)) & 0xffff;
        mix[i] = (bits | (x >>> 28)) - (~y & 7) + (-x >> 4);
        low[i] = x & 0xffff;
      }
      return { quot, rem, mix, low };
    },
  };
}

export const cases: CorpusCase[] = [
  rngCase(1000, 128, 12345, 3),
  rngCase(4096, 256, 0xdeadbeef, 1),
  rngCase(33, 32, 0, 0),
  opsCase(1000, 128, 181),
  opsCase(65536, 256, 182),
];
