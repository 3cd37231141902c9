import { cuda, f32, f64, i32, i64, type Xoroshiro128pStates } from "cudascript";

/**
 * cuda.random in kernels: each thread draws from its own state (row i of a [n, 2] u64 state array).
 * `uniforms` draws `draws` f32 and f64 uniforms per thread (the f64 ones through a device function
 * and an i64 index), `normals` the f32 and f64 normals; both leave the advanced states behind.
 */
const uniform64 = cuda.device((states: Xoroshiro128pStates, i: i64): f64 => cuda.random.xoroshiro128pUniformFloat64(states, i));

export const uniforms = cuda.jit((states: Xoroshiro128pStates, u32out: Float32Array, u64out: Float64Array, draws: i32) => {
  const i = cuda.grid(1);
  if (i < states.length) {
    for (let k = 0; k < draws; k++) {
      u32out[i * draws + k] = cuda.random.xoroshiro128pUniformFloat32(states, i);
      u64out[i * draws + k] = uniform64(states, BigInt(i));
    }
  }
});

export const normals = cuda.jit((states: Xoroshiro128pStates, n32: Float32Array, n64: Float64Array) => {
  const i = cuda.grid(1);
  if (i < states.length) {
    const a: f32 = cuda.random.xoroshiro128pNormalFloat32(states, i);
    n32[i] = a;
    n64[i] = cuda.random.xoroshiro128pNormalFloat64(states, i);
  }
});
