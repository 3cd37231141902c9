/**
 * Numba's GPU random number generator (numba.cuda.random): xoroshiro128+ seeded by SplitMix64, one
 * generator per thread, each 2^64 draws past the previous one. Bit-exact with Numba: the states and the
 * uniform draws equal Numba's for the same seed, subsequence and index (test/fixtures/xoroshiro128p.json,
 * made by Numba's CUDA simulator, proves it).
 *
 * A state array holds n states of two u64 words, `s0` then `s1`: 16 bytes each, Numba's
 * `xoroshiro128p_dtype` layout, so a device copy is what Numba's kernels read. Here the words are seen as
 * 32-bit halves (little-endian: low half first) so that drawing needs no BigInt: state `i` is
 * `w[4i]` (s0 low), `w[4i+1]` (s0 high), `w[4i+2]` (s1 low), `w[4i+3]` (s1 high).
 */

/** The last `next` result's halves (a module scratch pair: drawing allocates nothing). */
let resultLo = 0;
let resultHi = 0;

/**
 * Advances state `i` of `w` and leaves its xoroshiro128+ output, `s0 + s1` modulo 2^64, in
 * `resultLo`/`resultHi`. Numba: `s1 ^= s0; s0 = rotl(s0, 55) ^ s1 ^ (s1 << 14); s1 = rotl(s1, 36)`.
 */
export function nextInto(w: Uint32Array, i: number): void {
  const k = 4 * i;
  const a0 = w[k]!, a1 = w[k + 1]!, b0 = w[k + 2]!, b1 = w[k + 3]!;
  const lo = a0 + b0;
  resultLo = lo >>> 0;
  resultHi = (a1 + b1 + (lo > 0xffffffff ? 1 : 0)) >>> 0;
  const c0 = b0 ^ a0, c1 = b1 ^ a1; // s1 ^= s0
  // rotl(s0, 55) = the halves swapped, then rotated left by 23.
  const r0 = (a1 << 23) | (a0 >>> 9), r1 = (a0 << 23) | (a1 >>> 9);
  // s1 << 14
  const t0 = c0 << 14, t1 = (c1 << 14) | (c0 >>> 18);
  w[k] = r0 ^ c0 ^ t0;
  w[k + 1] = r1 ^ c1 ^ t1;
  // rotl(s1, 36) = the halves swapped, then rotated left by 4.
  w[k + 2] = (c1 << 4) | (c0 >>> 28);
  w[k + 3] = (c0 << 4) | (c1 >>> 28);
}

/** 2^-53: Numba's `uint64_to_unit_float64` is `(x >> 11) * (1.0 / 2**53)`. */
const TWO_POW_MINUS_53 = 1 / 9007199254740992;

/** The next draw of state `i` as a u64 split in halves: `[low, high]` (for tests and printing). */
export function nextU64(w: Uint32Array, i: number): bigint {
  nextInto(w, i);
  return (BigInt(resultHi) << 32n) | BigInt(resultLo);
}

/** Numba's `xoroshiro128p_uniform_float64`: uniform in [0, 1), 53 random bits. */
export function uniformFloat64(w: Uint32Array, i: number): number {
  nextInto(w, i);
  // x >> 11 = high * 2^21 + (low >> 11): below 2^53, so exact in a double.
  return (resultHi * 2097152 + (resultLo >>> 11)) * TWO_POW_MINUS_53;
}

/**
 * Numba's `xoroshiro128p_uniform_float32`: the float64 draw rounded to f32. As in Numba, a draw just
 * below 1 rounds to 1.0f (probability about 2^-25).
 */
export function uniformFloat32(w: Uint32Array, i: number): number {
  return Math.fround(uniformFloat64(w, i));
}

const TWO_PI_F32 = Math.fround(2 * Math.PI);

/**
 * Numba's `xoroshiro128p_normal_float32`: Box-Muller on two f32 uniforms, computed in f32 as the GPU
 * does (`sqrtf(-2.0f * logf(u1)) * cosf(TWO_PI_FLOAT32 * u2)`), every operation rounded to f32. The
 * uniforms are exact; the result is within the ulp bounds of the math functions (V8's `log`/`cos`
 * rounded to f32 here, CUDA's `logf`/`cosf` on the GPU). Advances the state by two draws.
 */
export function normalFloat32(w: Uint32Array, i: number): number {
  const u1 = uniformFloat32(w, i);
  const u2 = uniformFloat32(w, i);
  const r = Math.fround(Math.sqrt(Math.fround(-2 * Math.fround(Math.log(u1)))));
  return Math.fround(r * Math.fround(Math.cos(Math.fround(TWO_PI_F32 * u2))));
}

/**
 * Numba's `xoroshiro128p_normal_float64`. Numba draws its two uniforms as **f32** here too (so do the
 * current numba-cuda sources), and its typing makes `math.log(u1)` of an f32 an f32 (`logf`); the rest
 * is f64: `sqrt(-2.0 * (double)logf(u1)) * cos(TWO_PI_FLOAT64 * u2)` on the GPU, the same here.
 * (Numba's CUDA *simulator* runs the Python with a float64 `log`, so its values differ from its GPU's
 * by about 1e-7 relative.)
 */
export function normalFloat64(w: Uint32Array, i: number): number {
  const u1 = uniformFloat32(w, i);
  const u2 = uniformFloat32(w, i);
  return Math.sqrt(-2 * Math.fround(Math.log(u1))) * Math.cos(2 * Math.PI * u2);
}

/** The jump polynomial of xoroshiro128+ (advance by 2^64 draws), as 32-bit halves, low first. */
const JUMP = [0xeba5facb, 0xbeac0467, 0x86aa9922, 0xd86b048b] as const;

/**
 * Numba's `xoroshiro128p_jump`: advances state `i` by 2^64 draws. The 128 steps run on locals (the
 * step of `nextInto`, inlined): initialising a million states is a million jumps.
 */
export function jump(w: Uint32Array, i: number): void {
  const k = 4 * i;
  let a0 = w[k]!, a1 = w[k + 1]!, b0 = w[k + 2]!, b1 = w[k + 3]!;
  let s0lo = 0, s0hi = 0, s1lo = 0, s1hi = 0;
  for (let j = 0; j < 4; j++) {
    const word = JUMP[j]!;
    for (let b = 0; b < 32; b++) {
      if ((word >>> b) & 1) {
        s0lo ^= a0;
        s0hi ^= a1;
        s1lo ^= b0;
        s1hi ^= b1;
      }
      // As nextInto (the 32-bit halves are combined with bit operations only, so signedness does not matter).
      const c0 = b0 ^ a0, c1 = b1 ^ a1;
      const r0 = (a1 << 23) | (a0 >>> 9), r1 = (a0 << 23) | (a1 >>> 9);
      a0 = r0 ^ c0 ^ (c0 << 14);
      a1 = r1 ^ c1 ^ ((c1 << 14) | (c0 >>> 18));
      b0 = (c1 << 4) | (c0 >>> 28);
      b1 = (c0 << 4) | (c1 >>> 28);
    }
  }
  w[k] = s0lo;
  w[k + 1] = s0hi;
  w[k + 2] = s1lo;
  w[k + 3] = s1hi;
}

const MASK64 = (1n << 64n) - 1n;

/** SplitMix64 of the seed: Numba's `init_xoroshiro128p_state` sets both words to it. */
function splitMix64(seed: bigint): bigint {
  let z = (seed + 0x9e3779b97f4a7c15n) & MASK64;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
  return z ^ (z >> 31n);
}

/**
 * Numba's `init_xoroshiro128p_states_cpu`: state 0 from SplitMix64(seed), advanced by
 * `subsequenceStart` jumps; each next state is the previous one jumped by 2^64 draws.
 * `seed` is taken modulo 2^64 (as Numba's `uint64(seed)`).
 */
export function initStates(w: Uint32Array, n: number, seed: bigint, subsequenceStart: number): void {
  if (n < 1) return;
  const z = splitMix64(BigInt.asUintN(64, seed));
  const lo = Number(z & 0xffffffffn), hi = Number(z >> 32n);
  w[0] = lo;
  w[1] = hi;
  w[2] = lo;
  w[3] = hi;
  for (let s = 0; s < subsequenceStart; s++) jump(w, 0);
  for (let i = 1; i < n; i++) {
    w.copyWithin(4 * i, 4 * (i - 1), 4 * i);
    jump(w, i);
  }
}
