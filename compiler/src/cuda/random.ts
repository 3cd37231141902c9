/**
 * Numba's GPU random number generator (numba.cuda.random, xoroshiro128+) in CUDA C++, for the
 * `cuda.random.xoroshiro128p*` device functions. A state array holds n states of two u64 words
 * (`s0`, `s1`: Numba's `xoroshiro128p_dtype`); the host creates them (runtime/src/random). The
 * simulator runs the same algorithm on 32-bit halves (runtime/src/random/xoroshiro128p.ts); both are
 * checked against Numba's own draws (test/runtime/fixtures/numba/xoroshiro128p.json).
 *
 * Plain C++ (no PTX), so the g++ emulation compiles the same text.
 */
import type { RandomDraw } from "../ir/random";

/** The prelude function each `cuda.random` draw calls, with the row's address and index 0. */
export const RANDOM_CPP_FUNCTIONS: Readonly<Record<RandomDraw, string>> = {
  xoroshiro128pUniformFloat32: "cs_xoroshiro128p_uniform_f32",
  xoroshiro128pUniformFloat64: "cs_xoroshiro128p_uniform_f64",
  xoroshiro128pNormalFloat32: "cs_xoroshiro128p_normal_f32",
  xoroshiro128pNormalFloat64: "cs_xoroshiro128p_normal_f64",
};

export const XOROSHIRO128P_CPP = `/* cuda.random: Numba's xoroshiro128+ (numba.cuda.random), state i = states[2i] (s0), states[2i + 1] (s1). */
static __device__ __forceinline__ __attribute__((unused)) unsigned long long cs_xoroshiro128p_next(unsigned long long* states, long long index) {
  unsigned long long* s = states + 2 * index;
  const unsigned long long s0 = s[0];
  unsigned long long s1 = s[1];
  const unsigned long long result = s0 + s1;
  s1 ^= s0;
  s[0] = ((s0 << 55) | (s0 >> 9)) ^ s1 ^ (s1 << 14);
  s[1] = (s1 << 36) | (s1 >> 28);
  return result;
}
/* (x >> 11) * 2^-53: 53 random bits in [0, 1). */
static __device__ __forceinline__ __attribute__((unused)) double cs_xoroshiro128p_uniform_f64(unsigned long long* states, long long index) {
  return (double)(cs_xoroshiro128p_next(states, index) >> 11) * (1.0 / 9007199254740992.0);
}
/* Numba rounds the f64 draw to f32 (a draw just below 1 rounds to 1.0f). */
static __device__ __forceinline__ __attribute__((unused)) float cs_xoroshiro128p_uniform_f32(unsigned long long* states, long long index) {
  return (float)cs_xoroshiro128p_uniform_f64(states, index);
}
/* Box-Muller on two f32 uniforms, in f32 (Numba's xoroshiro128p_normal_float32); 2*pi as an f32. */
static __device__ __forceinline__ __attribute__((unused)) float cs_xoroshiro128p_normal_f32(unsigned long long* states, long long index) {
  const float u1 = cs_xoroshiro128p_uniform_f32(states, index);
  const float u2 = cs_xoroshiro128p_uniform_f32(states, index);
  return sqrtf(-2.0f * logf(u1)) * cosf(6.28318548202514648f * u2);
}
/* Numba's xoroshiro128p_normal_float64 draws f32 uniforms too, and takes logf of the f32 (its typing). */
static __device__ __forceinline__ __attribute__((unused)) double cs_xoroshiro128p_normal_f64(unsigned long long* states, long long index) {
  const float u1 = cs_xoroshiro128p_uniform_f32(states, index);
  const float u2 = cs_xoroshiro128p_uniform_f32(states, index);
  return sqrt(-2.0 * (double)logf(u1)) * cos(6.283185307179586 * (double)u2);
}`;
