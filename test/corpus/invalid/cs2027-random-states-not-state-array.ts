import { cuda, type Xoroshiro128pStates } from "cudascript";

/** Drawing from a Float32Array of seeds instead of the generator state array. */
export const noisy = cuda.jit((seeds: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = cuda.random.xoroshiro128pUniformFloat32(seeds, i); // @expect CS2027
});

/** A 1-D u64 array is not a state array either (states are [n, 2]: two words each). */
export const flat = cuda.jit((words: BigUint64Array, out: Float64Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = cuda.random.xoroshiro128pNormalFloat64(words, i); // @expect CS2027
});

/** What works: a Xoroshiro128pStates parameter (cuda.random.createXoroshiro128pStates(n, seed) on the host). */
export const fixed = cuda.jit((states: Xoroshiro128pStates, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = cuda.random.xoroshiro128pUniformFloat32(states, i);
});
