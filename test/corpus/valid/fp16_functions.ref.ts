import { f16round as h, Float16Array } from "cudascript";
import { CorpusCase, nd, seeded } from "../case";

function randomF16(n: number, seed: number, lo: number, hi: number): Float16Array {
  const r = seeded(seed);
  const a = new Float16Array(n);
  for (let i = 0; i < n; i++) a[i] = lo + (hi - lo) * r();
  return a;
}

const ARITH_COLUMNS = 15;

/** Round half to even (numpy.rint, Numba's hrint): the fraction decides; a zero result keeps x's sign. */
function rint(x: number): number {
  const f = Math.floor(x), frac = x - f;
  const r = frac < 0.5 ? f : frac > 0.5 ? f + 1 : f % 2 === 0 ? f : f + 1;
  return r === 0 && x < 0 ? -0 : r;
}
const MATH_COLUMNS = 10;

function arithCase(n: number, seed: number): CorpusCase {
  return {
    name: `fp16Arith n=${n}`,
    setup: () => {
      const a = randomF16(n, seed, -8, 8), b = randomF16(n, seed + 1, -8, 8);
      for (let i = 0; i < n; i += 7) b[i] = a[i]!; // equal operands for heq/hge/hle
      for (let i = 3; i < n; i += 11) a[i] = (i % 16) - 7.5; // exact halves, both parities and signs, for hrint
      return { a, b, c: randomF16(n, seed + 2, -8, 8), out: nd(new Float16Array(n * ARITH_COLUMNS), [n, ARITH_COLUMNS]), flags: new Int32Array(n) };
    },
    launches: [{ kernel: "fp16Arith", grid: Math.ceil(n / 64), block: 64, args: ["a", "b", "c", "out", "flags"] }],
    reference: (inp) => {
      const a = inp.a as Float16Array, b = inp.b as Float16Array, c = inp.c as Float16Array;
      const out = new Float16Array(n * ARITH_COLUMNS), flags = new Int32Array(n);
      for (let i = 0; i < n; i++) {
        const x = a[i]!, y = b[i]!, z = c[i]!;
        // numpy.float16 semantics: each function is the f64 result rounded once to f16.
        const row = [x + y, x - y, x * y, x / y, -x, Math.abs(x), Math.max(x, y), Math.min(x, y), Math.sqrt(Math.abs(x)), Math.floor(x), Math.ceil(x), Math.trunc(x), x * y + z, x + 0.5, rint(x)];
        row.forEach((v, j) => (out[i * ARITH_COLUMNS + j] = h(v)));
        flags[i] = (x === y ? 1 : 0) + (x !== y ? 2 : 0) + (x >= y ? 4 : 0) + (x > y ? 8 : 0) + (x <= y ? 16 : 0) + (x < y ? 32 : 0);
      }
      return { out: nd(out, [n, ARITH_COLUMNS]), flags };
    },
  };
}

function mathCase(n: number, seed: number): CorpusCase {
  return {
    name: `fp16Math n=${n}`,
    setup: () => ({ x: randomF16(n, seed, 0.1, 4), out: nd(new Float16Array(n * MATH_COLUMNS), [n, MATH_COLUMNS]) }),
    launches: [{ kernel: "fp16Math", grid: Math.ceil(n / 64), block: 64, args: ["x", "out"] }],
    reference: (inp) => {
      const x = inp.x as Float16Array;
      const out = new Float16Array(n * MATH_COLUMNS);
      for (let i = 0; i < n; i++) {
        const v = x[i]!;
        const row = [Math.sin(v), Math.cos(v), Math.log(v), Math.log10(v), Math.log2(v), Math.exp(v), 10 ** v, 2 ** v, 1 / Math.sqrt(v), 1 / v];
        row.forEach((r, j) => (out[i * MATH_COLUMNS + j] = h(r)));
      }
      return { out: nd(out, [n, MATH_COLUMNS]) };
    },
    // Within one f16 ulp (2^-10 relative): the GPU computes these in f32, the references in f64.
    tolerance: { abs: 1e-3, rel: 1e-3 },
  };
}

export const cases: CorpusCase[] = [arithCase(300, 501), mathCase(200, 502)];
