import { Float16Array } from "cudascript";
import type { CorpusCase } from "../case";

/** Every pair of these, as (a, b). */
const EDGES = [0, -0, 1, -1, 2, -2, 0.5, NaN, Infinity, -Infinity];

/** The kernel language's Math.min/max (C's fmin/fmax, -0 below +0) and Math.pow (C's pow). */
const min = (x: number, y: number) => (x !== x ? y : y !== y ? x : Math.min(x, y));
const max = (x: number, y: number) => (x !== x ? y : y !== y ? x : Math.max(x, y));
const pow = (x: number, y: number) => (x === 1 || (x === -1 && (y === Infinity || y === -Infinity)) ? 1 : Math.pow(x, y));

const a = EDGES.flatMap((x) => EDGES.map(() => x)), b = EDGES.flatMap(() => EDGES);
const n = a.length;
type Float = Float32ArrayConstructor | Float64ArrayConstructor;

function minMax(T: Float, round: (v: number) => number) {
  const lo = new T(2 * n), hi = new T(2 * n);
  for (let i = 0; i < n; i++) {
    lo[2 * i] = min(a[i]!, b[i]!);
    lo[2 * i + 1] = round(1 / lo[2 * i]!);
    hi[2 * i] = max(a[i]!, b[i]!);
    hi[2 * i + 1] = round(1 / hi[2 * i]!);
  }
  return { lo, hi };
}

const launch = (kernel: string) => [{ kernel, grid: Math.ceil(n / 64), block: 64, args: ["a", "b", "lo", "hi", "p"] }];

export const cases: CorpusCase[] = [
  {
    name: "f32: every pair of 0, -0, ±1, ±2, 0.5, NaN, ±Infinity",
    setup: () => ({ a: Float32Array.from(a), b: Float32Array.from(b), lo: new Float32Array(2 * n), hi: new Float32Array(2 * n), p: new Float32Array(n) }),
    launches: launch("edgesF32"),
    reference: () => ({ ...minMax(Float32Array, Math.fround), p: Float32Array.from(a, (x, i) => pow(x, b[i]!)) }),
  },
  {
    name: "f64: every pair of 0, -0, ±1, ±2, 0.5, NaN, ±Infinity",
    setup: () => ({ a: Float64Array.from(a), b: Float64Array.from(b), lo: new Float64Array(2 * n), hi: new Float64Array(2 * n), p: new Float64Array(n) }),
    launches: launch("edgesF64"),
    reference: () => ({ ...minMax(Float64Array, (v) => v), p: Float64Array.from(a, (x, i) => pow(x, b[i]!)) }),
  },
  {
    name: "f16: every pair of 0, -0, ±1, ±2, 0.5, NaN, ±Infinity",
    setup: () => ({ a: Float16Array.from(a), b: Float16Array.from(b), lo: new Float32Array(2 * n), hi: new Float32Array(2 * n), p: new Float16Array(n) }),
    launches: launch("edgesF16"),
    reference: () => ({ ...minMax(Float32Array, Math.fround), p: Float16Array.from(a.map((x, i) => pow(x, b[i]!))) }),
  },
];
