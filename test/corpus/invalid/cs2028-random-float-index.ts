import { cuda, f32, type Xoroshiro128pStates } from "cudascript";

/** The state index computed in floats: it must be an integer (i32 or i64). */
export const halfIndex = cuda.jit((states: Xoroshiro128pStates, out: Float32Array) => {
  const i = cuda.grid(1);
  const h: f32 = i / 2;
  if (i < out.length) out[i] = cuda.random.xoroshiro128pUniformFloat32(states, h); // @expect CS2028
  if (i < out.length) out[i] += cuda.random.xoroshiro128pUniformFloat32(states, 1.5); // @expect CS2028
});

/** What works: an integer index, one state per thread. */
export const fixed = cuda.jit((states: Xoroshiro128pStates, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = cuda.random.xoroshiro128pUniformFloat32(states, i >> 1);
});
