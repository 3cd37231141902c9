import { cuda, c128, c64, f32, type Array1D } from "cudascript";

/**
 * Numba's complex support (cuda/tests/cudapy/test_complex.py: cmath functions on complex64 and
 * complex128 arrays), rewritten: the rotation kernel of docs/kernel-language.md, every cuda.complex
 * function on c64 and on c128, and complex arrays in shared and local memory.
 */

// Numba: out[i] = z[i] * cmath.exp(1j * angle)
export const rotate = cuda.jit((z: Array1D<c64>, angle: f32, out: Array1D<c64>) => {
  const i = cuda.grid(1);
  if (i < z.length) out[i] = cuda.complex.mul(z[i], cuda.complex.exp(cuda.complex.c64(0, angle)));
});

/**
 * Every function of one element pair, c128: out[12 * i + k] (k as listed), reals[3 * i + k]; the
 * trigonometric ones in trig128 (kept apart so that no kernel is large enough for ptxas releases to
 * allocate its registers very differently).
 */
export const cmath128 = cuda.jit((z: Array1D<c128>, w: Array1D<c128>, out: Array1D<c128>, reals: Float64Array) => {
  const i = cuda.grid(1);
  if (i >= z.length) return;
  const a = z[i];
  const b = w[i];
  const o = 12 * i;
  out[o] = cuda.complex.add(a, b);
  out[o + 1] = cuda.complex.sub(a, b);
  out[o + 2] = cuda.complex.mul(a, b);
  out[o + 3] = cuda.complex.div(a, b);
  out[o + 4] = cuda.complex.neg(a);
  out[o + 5] = cuda.complex.conj(a);
  out[o + 6] = cuda.complex.exp(a);
  out[o + 7] = cuda.complex.log(a);
  out[o + 8] = cuda.complex.sqrt(a);
  reals[3 * i] = cuda.complex.abs(a);
  reals[3 * i + 1] = cuda.complex.arg(a);
  reals[3 * i + 2] = cuda.complex.eq(a, a) && !cuda.complex.eq(a, b) ? a.re + 2 * b.im : 0;
});

export const trig128 = cuda.jit((z: Array1D<c128>, w: Array1D<c128>, out: Array1D<c128>) => {
  const i = cuda.grid(1);
  if (i >= z.length) return;
  const a = z[i];
  const o = 12 * i;
  out[o + 9] = cuda.complex.sin(a);
  out[o + 10] = cuda.complex.cos(a);
  out[o + 11] = cuda.complex.rect(cuda.complex.abs(a), cuda.complex.arg(a) + w[i].re);
});

/** The same on c64 (parts rounded to f32 after every step), with a real operand made complex. */
export const cmath64 = cuda.jit((z: Array1D<c64>, w: Array1D<c64>, out: Array1D<c64>, reals: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= z.length) return;
  const a = z[i];
  const b = w[i];
  const o = 12 * i;
  out[o] = cuda.complex.add(a, b);
  out[o + 1] = cuda.complex.sub(a, 1.5);
  out[o + 2] = cuda.complex.mul(a, b);
  out[o + 3] = cuda.complex.div(a, b);
  out[o + 4] = cuda.complex.neg(a);
  out[o + 5] = cuda.complex.conj(a);
  out[o + 6] = cuda.complex.exp(a);
  out[o + 7] = cuda.complex.log(a);
  out[o + 8] = cuda.complex.sqrt(a);
  reals[2 * i] = cuda.complex.abs(a);
  reals[2 * i + 1] = cuda.complex.arg(a);
});

export const trig64 = cuda.jit((z: Array1D<c64>, out: Array1D<c64>) => {
  const i = cuda.grid(1);
  if (i >= z.length) return;
  const a = z[i];
  const o = 12 * i;
  out[o + 9] = cuda.complex.sin(a);
  out[o + 10] = cuda.complex.cos(a);
  out[o + 11] = cuda.complex.rect(cuda.complex.abs(a), cuda.complex.arg(a));
});

const TPB = 64;

/**
 * Each block reverses its part of z through a shared c64 tile, then each thread adds its element and
 * the reversed one in c128, keeping the two in a per-thread local array.
 */
export const reverseBlocks = cuda.jit((z: Array1D<c64>, out: Array1D<c128>) => {
  const tile = cuda.shared.array(TPB, c64);
  const pair = cuda.local.array(2, c128);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  tile[t] = i < z.length ? z[i] : cuda.complex.c64(0, 0);
  cuda.syncthreads();
  pair[0] = cuda.complex.c128(tile[t]);
  pair[1] = cuda.complex.c128(tile[TPB - 1 - t]);
  if (i < out.length) out[i] = cuda.complex.add(pair[0], pair[1]);
});
