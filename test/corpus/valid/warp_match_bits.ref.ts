import { CorpusCase, seeded } from "../case";

/**
 * Quiet NaNs with different payloads and signs, ±0 and a few numbers, as bit patterns. (Signalling NaNs
 * are left out: JavaScript quiets them when it reads an f32, so the simulator cannot keep them apart.)
 */
const F32_POOL = [0x7fc00000, 0x7fc00001, 0xffc00000, 0x7fe00000, 0x00000000, 0x80000000, 0x3f800000, 0x7f800000];
const F64_POOL = [0x7ff8000000000000n, 0x7ff8000000000001n, 0xfff8000000000000n, 0x7ffc000000000000n, 0n, 0x8000000000000000n, 0x3ff0000000000000n, 0x7ff0000000000000n];

function bitsCase(kernel: "matchBitsF32" | "matchBitsF64", n: number, block: number, seed: number): CorpusCase {
  const wide = kernel === "matchBitsF64";
  // The bits of element i (lanes past the end hold 2.0).
  const pool: readonly (number | bigint)[] = wide ? F64_POOL : F32_POOL;
  const two = wide ? 0x4000000000000000n : 0x40000000;
  const pick = (r: () => number, i: number) => (i >= 32 && i < 64 ? pool[i % 2]! : pool[Math.floor(r() * pool.length)]!);
  const bits = (() => {
    const r = seeded(seed);
    return Array.from({ length: n }, (_, i) => pick(r, i));
  })();
  return {
    name: `${kernel} n=${n}, block=${block}`,
    setup: () => {
      // Warp 1: two NaNs that differ in their payload only.
      const x = wide ? new Float64Array(new BigUint64Array(bits as bigint[]).buffer) : new Float32Array(new Uint32Array(bits as number[]).buffer);
      return { x, any: new Uint32Array(n), all: new Uint32Array(n) };
    },
    launches: [{ kernel, grid: Math.ceil(n / block), block, args: ["x", "any", "all"] }],
    reference: () => {
      const at = (i: number) => (i < n ? bits[i]! : two);
      const any = new Uint32Array(n), all = new Uint32Array(n);
      for (let i = 0; i < n; i++) {
        const w = i - (i % 32);
        let m = 0;
        for (let l = 0; l < 32; l++) if (at(w + l) === at(i)) m |= 1 << l;
        any[i] = m >>> 0;
        all[i] = m >>> 0 === 0xffffffff ? 0xffffffff : 0;
      }
      return { any, all };
    },
  };
}

export const cases: CorpusCase[] = [bitsCase("matchBitsF32", 256, 64, 2811), bitsCase("matchBitsF32", 100, 32, 2812), bitsCase("matchBitsF64", 256, 128, 2813), bitsCase("matchBitsF64", 70, 32, 2814)];
