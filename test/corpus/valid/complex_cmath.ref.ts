import { CorpusCase, complexArray, seeded, type HostComplexArray } from "../case";

/**
 * The reference is plain TypeScript with the textbook formulas, in f64, independent of the backends'
 * algorithms (Smith's division, Kahan's square root): division as a·conj(b)/|b|², the square root
 * from the polar form. c64 results are compared to it within f32 tolerance.
 */
type Z = readonly [number, number];

const add = (a: Z, b: Z): Z => [a[0] + b[0], a[1] + b[1]];
const sub = (a: Z, b: Z): Z => [a[0] - b[0], a[1] - b[1]];
const mul = (a: Z, b: Z): Z => [a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]];
const abs = (a: Z) => Math.sqrt(a[0] * a[0] + a[1] * a[1]);
const arg = (a: Z) => Math.atan2(a[1], a[0]);
const div = (a: Z, b: Z): Z => {
  const m = b[0] * b[0] + b[1] * b[1];
  const p = mul(a, [b[0], -b[1]]);
  return [p[0] / m, p[1] / m];
};
const exp = (a: Z): Z => [Math.exp(a[0]) * Math.cos(a[1]), Math.exp(a[0]) * Math.sin(a[1])];
const log = (a: Z): Z => [Math.log(abs(a)), arg(a)];
const sqrt = (a: Z): Z => [Math.sqrt(abs(a)) * Math.cos(arg(a) / 2), Math.sqrt(abs(a)) * Math.sin(arg(a) / 2)];
const sin = (a: Z): Z => [Math.sin(a[0]) * Math.cosh(a[1]), Math.cos(a[0]) * Math.sinh(a[1])];
const cos = (a: Z): Z => [Math.cos(a[0]) * Math.cosh(a[1]), -Math.sin(a[0]) * Math.sinh(a[1])];
const rect = (r: number, phi: number): Z => [r * Math.cos(phi), r * Math.sin(phi)];

/** n complex numbers with parts of modulus 0.1 … 2 and either sign (no zeros: log and division stay finite). */
function randomParts(n: number, seed: number, f32: boolean): Float32Array | Float64Array {
  const r = seeded(seed);
  const a = f32 ? new Float32Array(2 * n) : new Float64Array(2 * n);
  for (let k = 0; k < 2 * n; k++) a[k] = (r() < 0.5 ? -1 : 1) * (0.1 + 1.9 * r());
  return a;
}

const at = (v: HostComplexArray, i: number): Z => [v.data[2 * i]!, v.data[2 * i + 1]!];

function store(parts: Float64Array, i: number, z: Z): void {
  parts[2 * i] = z[0];
  parts[2 * i + 1] = z[1];
}

function rotateCase(n: number): CorpusCase {
  const angle = Math.fround(0.75);
  return {
    name: `rotate n=${n} by 0.75 rad (c64)`,
    setup: () => ({ z: complexArray(randomParts(n, 11, true)), angle, out: complexArray(new Float32Array(2 * n)) }),
    launches: [{ kernel: "rotate", grid: Math.ceil(n / 64), block: 64, args: ["z", "angle", "out"] }],
    reference: (inp) => {
      const z = inp.z as HostComplexArray;
      const out = new Float64Array(2 * n);
      for (let i = 0; i < n; i++) store(out, i, mul(at(z, i), exp([0, angle])));
      return { out: complexArray(out) };
    },
    tolerance: { abs: 1e-5, rel: 1e-5 },
  };
}

function cmathCase(kernel: "cmath128" | "cmath64", n: number): CorpusCase {
  const f32 = kernel === "cmath64";
  return {
    name: `${kernel}: every cuda.complex function, n=${n}`,
    setup: () => ({
      z: complexArray(randomParts(n, 21, f32)),
      w: complexArray(randomParts(n, 22, f32)),
      out: complexArray(f32 ? new Float32Array(24 * n) : new Float64Array(24 * n)),
      reals: f32 ? new Float32Array(2 * n) : new Float64Array(3 * n),
    }),
    launches: [
      { kernel, grid: Math.ceil(n / 32), block: 32, args: ["z", "w", "out", "reals"] },
      f32 ? { kernel: "trig64", grid: Math.ceil(n / 32), block: 32, args: ["z", "out"] } : { kernel: "trig128", grid: Math.ceil(n / 32), block: 32, args: ["z", "w", "out"] },
    ],
    reference: (inp) => {
      const z = inp.z as HostComplexArray, w = inp.w as HostComplexArray;
      const out = new Float64Array(24 * n);
      const reals = f32 ? new Float32Array(2 * n) : new Float64Array(3 * n);
      for (let i = 0; i < n; i++) {
        const a = at(z, i), b = at(w, i);
        const results = [
          add(a, b), f32 ? sub(a, [1.5, 0]) : sub(a, b), mul(a, b), div(a, b), [-a[0], -a[1]] as Z, [a[0], -a[1]] as Z,
          exp(a), log(a), sqrt(a), sin(a), cos(a), rect(abs(a), arg(a) + (f32 ? 0 : b[0])),
        ];
        results.forEach((r, k) => store(out, 12 * i + k, r));
        if (f32) {
          reals[2 * i] = abs(a);
          reals[2 * i + 1] = arg(a);
        } else {
          reals[3 * i] = abs(a);
          reals[3 * i + 1] = arg(a);
          reals[3 * i + 2] = a[0] + 2 * b[1];
        }
      }
      return { out: complexArray(out), reals };
    },
    tolerance: f32 ? { abs: 1e-4, rel: 1e-5 } : { abs: 1e-12, rel: 1e-12 },
  };
}

function reverseCase(n: number): CorpusCase {
  const TPB = 64;
  return {
    name: `reverseBlocks n=${n}: shared c64 tile, local c128 pair`,
    setup: () => ({ z: complexArray(randomParts(n, 31, true)), out: complexArray(new Float64Array(2 * n)) }),
    launches: [{ kernel: "reverseBlocks", grid: Math.ceil(n / TPB), block: TPB, args: ["z", "out"] }],
    reference: (inp) => {
      const z = inp.z as HostComplexArray;
      const out = new Float64Array(2 * n);
      for (let i = 0; i < n; i++) {
        const j = i - (i % TPB) + TPB - 1 - (i % TPB);
        store(out, i, add(at(z, i), j < n ? at(z, j) : [0, 0]));
      }
      return { out: complexArray(out) };
    },
    tolerance: { abs: 0, rel: 0 },
  };
}

export const cases: CorpusCase[] = [rotateCase(200), cmathCase("cmath128", 100), cmathCase("cmath64", 100), reverseCase(150)];
