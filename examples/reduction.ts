/**
 * Sum of 4M floats with a shared-memory tree reduction: each block of 256 threads halves its tile 8
 * times (8 barriers), the per-block sums are reduced again until one value is left.
 *
 *   npx cudascript run examples/reduction.ts
 */
import { cuda, f32, type Array1D } from "cudascript";

const TPB = 256;

export const blockSum = cuda.jit((x: Array1D<f32>, partial: Array1D<f32>) => {
  const tile = cuda.shared.array(TPB, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  tile[t] = i < x.length ? x[i] : 0;
  cuda.syncthreads();
  for (let s = TPB >> 1; s > 0; s >>= 1) {
    if (t < s) {
      tile[t] += tile[t + s];
    }
    cuda.syncthreads();
  }
  if (t === 0) {
    partial[cuda.blockIdx.x] = tile[0];
  }
});

/** The same tree, in plain TypeScript with f32 rounding: the kernel must match it exactly. */
function blockSumsReference(x: Float32Array): Float32Array {
  const blocks = Math.ceil(x.length / TPB);
  const out = new Float32Array(blocks);
  const tile = new Float32Array(TPB);
  for (let b = 0; b < blocks; b++) {
    for (let t = 0; t < TPB; t++) tile[t] = b * TPB + t < x.length ? x[b * TPB + t]! : 0;
    for (let s = TPB >> 1; s > 0; s >>= 1) for (let t = 0; t < s; t++) tile[t] = Math.fround(tile[t]! + tile[t + s]!);
    out[b] = tile[0]!;
  }
  return out;
}

const n = 4_000_000;
const x = new Float32Array(n);
for (let i = 0; i < n; i++) x[i] = Math.sin(i * 0.37) + 0.25;

let level = cuda.toDevice(x);
let expectedLevel: Float32Array = x;
let exact = true;
let passes = 0;
while (level.size > 1) {
  const blocks = Math.ceil(level.size / TPB);
  const next = cuda.deviceArray(blocks, f32);
  blockSum.launch(blocks, TPB)(level, next);
  expectedLevel = blockSumsReference(expectedLevel);
  const got = next.copyToHost();
  for (let i = 0; i < blocks; i++) if (got[i] !== expectedLevel[i]) exact = false;
  level.free();
  level = next;
  passes++;
}
const sum = level.copyToHost()[0]!;
let f64sum = 0;
for (let i = 0; i < n; i++) f64sum += x[i]!;
const relError = Math.abs(sum - f64sum) / Math.max(1, Math.abs(f64sum));
const ok = exact && relError < 1e-4;
console.log(`reduction: ${n} elements in ${passes} passes, sum ${sum.toFixed(3)} (f64 sum ${f64sum.toFixed(3)}), tree matches the TypeScript reference exactly: ${exact ? "yes" : "no"} — ${ok ? "OK" : "FAILED"}`);
if (!ok) process.exitCode = 1;
