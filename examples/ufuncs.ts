/**
 * Ufuncs and reductions, Numba's `@vectorize(target="cuda")` and `cuda.reduce` (its docs' examples):
 * the kernels are made from scalar functions whose annotations are the signature. Checked against
 * plain TypeScript.
 *
 *   npx cudascript run examples/ufuncs.ts
 */
import { cuda, f32, f64 } from "cudascript";

/** Numba's `discriminant` ufunc: b² − 4ac for each (a, b, c). */
function discriminant(a: f64, b: f64, c: f64): f64 {
  return b * b - 4 * a * c;
}
const discriminants = cuda.vectorize(discriminant);

/** Numba's `rel_diff`: the relative difference of two values. */
const relDiff = cuda.vectorize((x: f32, y: f32): f32 => (2 * Math.abs(x - y)) / (Math.abs(x) + Math.abs(y)));

/** Numba's `sum_reduce`. */
const sum = cuda.reduce((a: f64, b: f64): f64 => a + b);

const n = 100_000;
const a = Float64Array.from({ length: n }, (_, i) => Math.sin(i) * 3);
const b = Float64Array.from({ length: n }, (_, i) => Math.cos(i * 0.5) * 5);
const d = discriminants(a, b, 0.25) as Float64Array; // the number is broadcast to every element
let failures = 0;
for (let i = 0; i < n; i++) if (d[i] !== b[i]! * b[i]! - 4 * a[i]! * 0.25) failures++;

// Broadcasting a row over the rows of a 2-D array, on the device: the result stays there.
const f = Math.fround;
const rows = cuda.ndarray(Float32Array.from({ length: 6 }, (_, i) => i + 1), [2, 3]);
const row = Float32Array.from([1, 2, 4]);
const rel = relDiff(cuda.toDevice(rows), row).copyToHost() as { data: Float32Array };
rel.data.forEach((v, i) => {
  const x = rows.data[i]!, y = row[i % 3]!;
  if (v !== f(f(2 * f(Math.abs(f(x - y)))) / f(f(Math.abs(x)) + f(Math.abs(y))))) failures++;
});

// The reduction adds in another order than a loop does: compare within f64 rounding.
const total = sum(Float64Array.from({ length: n }, (_, i) => i + 1));
const expected = (n * (n + 1)) / 2;
if (Math.abs(total - expected) > 1e-9 * expected) failures++;

const ok = failures === 0;
console.log(`ufuncs: discriminant of ${n} triples, rel_diff of [2, 3] against [3], sum of 1…${n} = ${total} on the ${cuda.backend} — ${ok ? "OK" : `FAILED (${failures})`}`);
if (!ok) process.exitCode = 1;
