/**
 * Numba's cooperative-groups example (numba/cuda/tests/doc_examples/test_laplace.py): the 1-D heat
 * equation, all time steps in ONE launch, with a grid-wide barrier (g.sync()) between steps. The two
 * buffers alternate by the step's parity. Checked exactly against the same finite differences in plain
 * TypeScript.
 *
 *   npx cudascript run examples/laplace-grid-sync.ts
 *
 * Differences from Numba's kernel: threads past the end guard the work instead of returning before the
 * loop (every thread must reach g.sync(), CS5007), and the buffer swap is an if on the parity (array
 * names are not reassignable in kernels).
 */
import { cuda, f64, i32, type Array1D } from "cudascript";

/** One point's next temperature: walls at both ends are held at 0. */
const nextTemperature = cuda.device((data: Array1D<f64>, i: i32, k: f64): f64 => {
  const curr = data[i];
  if (i === 0) return curr + k * (data[i + 1] - 2 * curr);
  if (i === data.length - 1) return curr + k * (data[i - 1] - 2 * curr);
  return curr + k * (data[i - 1] - 2 * curr + data[i + 1]);
});

export const solveHeatEquation = cuda.jit((buf0: Array1D<f64>, buf1: Array1D<f64>, timesteps: i32, k: f64) => {
  const i = cuda.grid(1);
  const grid = cuda.cg.thisGrid();
  for (let step = 0; step < timesteps; step++) {
    if (i < buf0.length) {
      // The buffer of the previous step is read, the other one written.
      if (step % 2 === 0) buf1[i] = nextTemperature(buf0, i, k);
      else buf0[i] = nextTemperature(buf1, i, k);
    }
    // Every thread waits until every other has written this step.
    grid.sync();
  }
});

/** The same steps in plain TypeScript (f64, the same operation order). */
function reference(initial: Float64Array, timesteps: number, k: number): Float64Array {
  let data = Float64Array.from(initial), next = new Float64Array(initial.length);
  const n = data.length;
  for (let step = 0; step < timesteps; step++) {
    for (let i = 0; i < n; i++) {
      const curr = data[i]!;
      if (i === 0) next[i] = curr + k * (data[i + 1]! - 2 * curr);
      else if (i === n - 1) next[i] = curr + k * (data[i - 1]! - 2 * curr);
      else next[i] = curr + k * (data[i - 1]! - 2 * curr + data[i + 1]!);
    }
    [data, next] = [next, data];
  }
  return data;
}

const size = 1001;
const niter = 10000;
const k = 0.25;
const data = new Float64Array(size);
data[500] = 10000; // a hot spot in the middle

const buf0 = cuda.toDevice(data);
const buf1 = cuda.deviceArray(size, f64);
solveHeatEquation.forall(size)(buf0, buf1, niter, k);
// After an even number of steps the result is back in buf0.
const got = (niter % 2 === 0 ? buf0 : buf1).copyToHost();
const want = reference(data, niter, k);
let mismatches = 0;
for (let i = 0; i < size; i++) if (got[i] !== want[i]) mismatches++;
let total = 0;
for (let i = 0; i < size; i++) total += got[i]!;
const ok = mismatches === 0;
console.log(`laplace (grid sync): ${size} points, ${niter} steps in one launch, heat left ${total.toFixed(3)} of 10000, matches the TypeScript reference exactly: ${ok ? "yes" : `no (${mismatches} points differ)`} — ${ok ? "OK" : "FAILED"}`);
if (!ok) process.exitCode = 1;
