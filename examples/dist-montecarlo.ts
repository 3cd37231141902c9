/**
 * π by Monte Carlo over several ranks (processes, one per GPU or virtual device), reduced with
 * `dist.allReduce`: the data-parallel pattern of docs/distributed.md. The job draws the same points
 * whatever its size: thread t of the whole job (rank r owns threads r·T/size to (r+1)·T/size) starts
 * from xoroshiro128+ state t, since each rank makes its states with `subsequenceStart` at its first
 * thread. Counts are integers, so their sum is exact: the estimate is bit for bit the same on 1, 2 or
 * 4 ranks, and every rank prints it.
 *
 *   npx cudascript run examples/dist-montecarlo.ts                  (one rank)
 *   npx cudascript launch -n 4 examples/dist-montecarlo.ts          (four ranks on this machine)
 *   npx cudascript launch --launcher slurm -n 8 examples/dist-montecarlo.ts
 */
import { cuda, dist, i32, type Array1D, type Xoroshiro128pStates } from "cudascript";

export const countInside = cuda.jit((states: Xoroshiro128pStates, iterations: i32, inside: Array1D<i32>) => {
  const t = cuda.grid(1);
  if (t >= inside.length) return;
  let hits = 0;
  for (let k = 0; k < iterations; k++) {
    const x = cuda.random.xoroshiro128pUniformFloat32(states, t);
    const y = cuda.random.xoroshiro128pUniformFloat32(states, t);
    if (x * x + y * y <= 1) hits++;
  }
  inside[t] = hits;
});

const totalThreads = 1536; // divisible by 1, 2, 3, 4, 6, 8, … ranks
const iterations = 1000;
const seed = 7;

if (totalThreads % dist.size !== 0) throw new Error(`run this example on a number of ranks that divides ${totalThreads}`);
const threads = totalThreads / dist.size;
const firstThread = dist.rank * threads;
cuda.selectDevice(dist.localRank % cuda.gpus.length);

const states = cuda.random.createXoroshiro128pStates(threads, seed, { subsequenceStart: firstThread });
const inside = cuda.deviceArray(threads, i32);
countInside.launch(Math.ceil(threads / 128), 128)(states, iterations, inside);

// This rank's count, then every rank's: allReduce sums them in place on every rank.
let mine = 0;
for (const c of inside.copyToHost()) mine += c;
const count = cuda.toDevice(new Float64Array([mine]));
await dist.allReduce(count, "sum");
const total = count.copyToHost()[0]!;

const pi = (4 * total) / (totalThreads * iterations);
const ok = Math.abs(pi - Math.PI) < 0.01;
console.log(`dist-montecarlo: rank ${dist.rank} of ${dist.size}: ${total} of ${totalThreads * iterations} points inside, π ≈ ${pi} — ${ok ? "OK" : "FAILED"}`);
if (!ok) process.exitCode = 1;
