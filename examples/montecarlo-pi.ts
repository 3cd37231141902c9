/**
 * π by Monte Carlo with GPU random numbers: Numba's `compute_pi` example (numba.cuda.random docs),
 * camelCased. Each thread draws points in the unit square from its own xoroshiro128+ state and counts
 * those inside the quarter circle. The program checks itself: the estimate is within 0.01 of π, the
 * same seed gives the same counts, and the counts of the first threads equal a plain-TypeScript
 * xoroshiro128+ (BigInt, written from Numba's source) run on the same initial states.
 *
 *   npx cudascript run examples/montecarlo-pi.ts
 */
import { cuda, i32, type Array1D, type Xoroshiro128pStates } from "cudascript";

export const computePi = cuda.jit((states: Xoroshiro128pStates, iterations: i32, inside: Array1D<i32>) => {
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

const threadsPerBlock = 64;
const blocks = 24;
const threads = threadsPerBlock * blocks;
const iterations = 2000;
const seed = 1;

function run(): { counts: Int32Array; initial: BigUint64Array } {
  const states = cuda.random.createXoroshiro128pStates(threads, seed);
  const initial = states.ravel().copyToHost() as BigUint64Array;
  const dInside = cuda.deviceArray(threads, i32);
  computePi.launch(blocks, threadsPerBlock)(states, iterations, dInside);
  return { counts: dInside.copyToHost(), initial };
}

// The reference: Numba's xoroshiro128p_next / uniform_float32 in BigInt arithmetic.
const M64 = (1n << 64n) - 1n;
const rotl = (x: bigint, k: bigint) => ((x << k) | (x >> (64n - k))) & M64;
function referenceCount(s0: bigint, s1: bigint): number {
  const uniform = (): number => {
    const result = (s0 + s1) & M64;
    s1 ^= s0;
    s0 = rotl(s0, 55n) ^ s1 ^ ((s1 << 14n) & M64);
    s1 = rotl(s1, 36n);
    return Math.fround(Number(result >> 11n) * 2 ** -53);
  };
  let hits = 0;
  for (let k = 0; k < iterations; k++) {
    const x = uniform(), y = uniform();
    if (Math.fround(Math.fround(x * x) + Math.fround(y * y)) <= 1) hits++;
  }
  return hits;
}

const first = run();
const again = run();
let total = 0;
for (const c of first.counts) total += c;
const pi = (4 * total) / (threads * iterations);
const checked = 64;
let mismatches = 0;
for (let t = 0; t < checked; t++) if (first.counts[t] !== referenceCount(first.initial[2 * t]!, first.initial[2 * t + 1]!)) mismatches++;
const repeatable = first.counts.every((c, t) => c === again.counts[t]);
const ok = Math.abs(pi - Math.PI) < 0.01 && mismatches === 0 && repeatable;
console.log(
  `montecarlo-pi: ${threads} threads × ${iterations} points: π ≈ ${pi.toFixed(5)} (error ${Math.abs(pi - Math.PI).toFixed(5)}); ` +
    `${checked} threads match the TypeScript reference${mismatches ? ` except ${mismatches}` : ""}; ${repeatable ? "repeatable" : "NOT repeatable"} — ${ok ? "OK" : "FAILED"}`,
);
if (!ok) process.exitCode = 1;
