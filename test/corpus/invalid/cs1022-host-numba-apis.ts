import { cuda, f32 } from "cudascript";

/**
 * Numba's host-side APIs that CudaScript does not have: each is a coded error at check time (not an
 * uncoded TypeError when the program runs), saying what to write instead; a typo gets a suggestion.
 */
export const scale = cuda.jit((x: Float32Array, a: f32) => {
  const i = cuda.grid(1);
  if (i < x.length) x[i] *= a;
});

const half = cuda.float16; // @expect CS1022

export function run(n: number): void {
  const states = cuda.random.create_xoroshiro128p_states(n, 1); // @expect CS1014
  const d = cuda.to_device(new Float32Array(n)); // @expect CS1014
  scale.launch(Math.ceil(n / 128), 128)(d, 2);
  console.log(half, states);
}
