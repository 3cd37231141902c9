import { CorpusCase, randomF32, randomI32 } from "../case";

/** Every `every`-th reading is missing (NaN); every = 1: all of them. */
function withGaps<T extends Float32Array | Float64Array>(x: T, every: number): T {
  for (let i = 0; i < x.length; i += every) x[i] = NaN;
  return x;
}

/** Plain TypeScript: the extremes of the non-NaN values (NaN when there is none). */
function nanExtremes(x: ArrayLike<number>): { max: number; min: number } {
  let max = NaN, min = NaN;
  for (let i = 0; i < x.length; i++) {
    const v = x[i]!;
    if (Number.isNaN(v)) continue;
    if (Number.isNaN(max) || v > max) max = v;
    if (Number.isNaN(min) || v < min) min = v;
  }
  return { max, min };
}

function f32Case(n: number, every: number, block: number, seed: number): CorpusCase {
  return {
    name: `nanExtremesF32 n=${n}, NaN every ${every}, block=${block}`,
    setup: () => ({ x: withGaps(randomF32(n, seed, -1e6, 1e6), every), result: Float32Array.of(NaN, NaN) }),
    launches: [{ kernel: "nanExtremesF32", grid: Math.ceil(n / block), block, args: ["x", "result"] }],
    reference: (inp) => {
      const { max, min } = nanExtremes(inp.x as Float32Array);
      return { result: Float32Array.of(max, min) };
    },
  };
}

function f64Case(n: number, every: number, block: number, seed: number): CorpusCase {
  return {
    name: `extremesF64 n=${n}, NaN every ${every}, block=${block}`,
    setup: () => ({
      x: withGaps(Float64Array.from(randomF32(n, seed, -1e6, 1e6), (v, i) => v + i / 1024), every),
      result: Float64Array.of(-Infinity, Infinity, NaN, NaN),
      old: new Float64Array(n),
    }),
    launches: [{ kernel: "extremesF64", grid: Math.ceil(n / block), block, args: ["x", "result", "old"] }],
    reference: (inp) => {
      const { max, min } = nanExtremes(inp.x as Float64Array);
      // With no non-NaN reading, max/min leave their start values.
      const r0 = Number.isNaN(max) ? -Infinity : max, r1 = Number.isNaN(min) ? Infinity : min;
      return { result: Float64Array.of(r0, r1, NaN, max), old: new Float64Array(n).fill(NaN) };
    },
  };
}

function intCase(n: number, block: number, seed: number): CorpusCase {
  return {
    name: `intNanExtremes n=${n}, block=${block}`,
    setup: () => ({ x: randomI32(n, seed, -1000000000, 1000000000), result: Uint32Array.of(0, 0xffffffff), signed: Int32Array.of(-2147483648, 2147483647) }),
    launches: [{ kernel: "intNanExtremes", grid: Math.ceil(n / block), block, args: ["x", "result", "signed"] }],
    reference: (inp) => {
      const x = inp.x as Int32Array;
      const low = Array.from(x, (v) => v & 0xffff);
      return { signed: Int32Array.of(Math.max(...x), Math.min(...x)), result: Uint32Array.of(Math.max(...low), Math.min(...low)) };
    },
  };
}

export const cases: CorpusCase[] = [
  f32Case(1000, 7, 128, 711),
  f32Case(33, 1, 32, 712),
  f64Case(777, 5, 64, 713),
  f64Case(40, 1, 32, 714),
  intCase(1000, 128, 715),
];
