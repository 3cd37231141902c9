/**
 * Generalized ufuncs, Numba's `@guvectorize([...], layout, target="cuda")` (its docs' examples): the
 * kernel is made from a function of whole rows whose annotations are the signature, with the layout
 * naming each argument's core dimensions. Checked against plain TypeScript.
 *
 *   npx cudascript run examples/gufuncs.ts
 */
import { cuda, f32, type Array1D, type Array2D, type NDArray } from "cudascript";

/** Numba's matmul gufunc: C = A·B for each matrix of a stack, "(m,n),(n,p)->(m,p)". */
const matmul = cuda.guvectorize((a: Array2D<f32>, b: Array2D<f32>, c: Array2D<f32>): void => {
  for (let i = 0; i < c.shape[0]; i++)
    for (let j = 0; j < c.shape[1]; j++) {
      let s: f32 = 0;
      for (let k = 0; k < a.shape[1]; k++) s += a[i][k] * b[k][j];
      c[i][j] = s;
    }
}, "(m,n),(n,p)->(m,p)");

/** A dot product per row: the () output is a one-element array, written as out[0] (as in Numba). */
const dot = cuda.guvectorize((a: Array1D<f32>, b: Array1D<f32>, out: Array1D<f32>): void => {
  let s: f32 = 0;
  for (let k = 0; k < a.length; k++) s += a[k] * b[k];
  out[0] = s;
}, "(n),(n)->()");

const f = Math.fround;
let failures = 0;

// 10 products of [4 × 6] · [6 × 3]: the loop dimension is the 10, B is broadcast over it.
const [L, m, n, p] = [10, 4, 6, 3];
const A = Float32Array.from({ length: L * m * n }, (_, i) => f(Math.sin(i) * 2));
const B = Float32Array.from({ length: n * p }, (_, i) => f(Math.cos(i) * 3));
const C = matmul(cuda.ndarray(A, [L, m, n]), cuda.ndarray(B, [n, p])) as NDArray<Float32Array>;
for (let l = 0; l < L; l++)
  for (let i = 0; i < m; i++)
    for (let j = 0; j < p; j++) {
      let s = 0;
      for (let k = 0; k < n; k++) s = f(s + f(A[(l * m + i) * n + k]! * B[k * p + j]!));
      if (C.data[(l * m + i) * p + j] !== s) failures++;
    }

// The dot product of each of 1000 rows with one vector, on the device: the result stays there.
const rows = Float32Array.from({ length: 1000 * 8 }, (_, i) => f(((i * 7) % 13) - 6));
const v = Float32Array.from({ length: 8 }, (_, k) => k - 3.5);
const dots = dot(cuda.toDevice(cuda.ndarray(rows, [1000, 8])), v).copyToHost() as Float32Array;
dots.forEach((got, r) => {
  let s = 0;
  for (let k = 0; k < 8; k++) s = f(s + f(rows[r * 8 + k]! * v[k]!));
  if (got !== s) failures++;
});

const ok = failures === 0;
console.log(`gufuncs: ${L} matmuls [${m}×${n}]·[${n}×${p}], ${dots.length} dot products of length 8 on the ${cuda.backend} — ${ok ? "OK" : `FAILED (${failures})`}`);
if (!ok) process.exitCode = 1;
