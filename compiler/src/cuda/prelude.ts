/**
 * Small device helpers the generated code may call, each emitted only when used. Everything that
 * needs inline PTX or `extern __shared__` sits inside `#ifndef CUDASCRIPT_EMULATION`, so that a CPU
 * emulation (test/emulation/cuda_emulation.hpp) can provide its own definitions of the same names.
 */

import { PRINTF_BYTES_SYMBOL } from "./printf-bytes";

export type HelperName =
  | "laneid"
  | "lanemaskLt"
  | "matchAll"
  | "dynamicShared"
  | "truthy"
  | "sign"
  | "round"
  | "atomicMaxF32"
  | "atomicMinF32"
  | "atomicMaxF64"
  | "atomicMinF64"
  | "atomicAddF64"
  | "f32Bits"
  | "f64Bits"
  | "printfBytes";

const HELPERS: Record<HelperName, string> = {
  laneid: `#ifndef CUDASCRIPT_EMULATION
/* cuda.laneid: the lane of this thread in its warp (the %laneid register; right for 2-D/3-D blocks too). */
static __device__ __forceinline__ int cs_laneid() {
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  return (int)lane;
}
#endif`,
  lanemaskLt: `#ifndef CUDASCRIPT_EMULATION
/* cuda.lanemaskLt(): the bits of the lanes below this one in its warp (the %lanemask_lt register). */
static __device__ __forceinline__ unsigned cs_lanemask_lt() {
  unsigned mask;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));
  return mask;
}
#endif`,
  matchAll: `/* cuda.matchAllSync(mask, v): the mask when every lane in it has the same v, else 0 (CUDA's predicate
   is then just whether the result is non-zero, so it is not returned separately). Compute capability 7.0+. */
template <class T>
static __device__ __forceinline__ unsigned cs_match_all_sync(unsigned mask, T value) {
  int all;
  return __match_all_sync(mask, value, &all);
}`,
  dynamicShared: `#ifndef CUDASCRIPT_EMULATION
/* cuda.shared.array(0, dtype): every dynamic shared array of a kernel views this one buffer. */
extern __shared__ __align__(16) unsigned char cs_dynamic_smem[];
/* Bytes of dynamic shared memory given at launch (the %dynamic_smem_size register). */
static __device__ __forceinline__ unsigned cs_dynamic_smem_size() {
  unsigned bytes;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
  return bytes;
}
#endif`,
  truthy: `/* JavaScript truthiness of a float: not zero and not NaN. */
static __device__ __forceinline__ bool cs_truthy(float x) { return x != 0.0f && x == x; }
static __device__ __forceinline__ bool cs_truthy(double x) { return x != 0.0 && x == x; }`,
  sign: `/* Math.sign: -1, 1, or the argument itself for 0, -0 and NaN. */
static __device__ __forceinline__ float cs_sign(float x) { return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : x; }
static __device__ __forceinline__ double cs_sign(double x) { return x > 0.0 ? 1.0 : x < 0.0 ? -1.0 : x; }
static __device__ __forceinline__ int cs_sign(int x) { return (x > 0) - (x < 0); }
static __device__ __forceinline__ unsigned cs_sign(unsigned x) { return x != 0u ? 1u : 0u; }`,
  round: `/* Math.round exactly as JavaScript: halves toward +infinity, -0 for [-0.5, -0], NaN and ±Infinity kept.
   floor(x + 0.5) is wrong where the sum rounds (0.49999997f gives 1; 2^23+1 gives 2^23+2); x - floor(x)
   never rounds in the cases that matter, so comparing it with one half is exact. copysign gives -0 for
   x in [-0.5, 0) and keeps -0. */
static __device__ __forceinline__ float cs_round(float x) {
  const float r = floorf(x);
  return copysignf(x - r >= 0.5f ? r + 1.0f : r, x);
}
static __device__ __forceinline__ double cs_round(double x) {
  const double r = floor(x);
  return copysign(x - r >= 0.5 ? r + 1.0 : r, x);
}`,
  atomicMaxF32: `/* cuda.atomic.max on f32 (no native instruction): compare-and-swap loop, fmaxf semantics. */
static __device__ __forceinline__ float cs_atomicMax(float* address, float value) {
  int* bits = (int*)address;
  int old = *bits;
  while (true) {
    const int desired = __float_as_int(fmaxf(__int_as_float(old), value));
    if (desired == old) return __int_as_float(old);
    const int seen = atomicCAS(bits, old, desired);
    if (seen == old) return __int_as_float(old);
    old = seen;
  }
}`,
  atomicMinF32: `/* cuda.atomic.min on f32 (no native instruction): compare-and-swap loop, fminf semantics. */
static __device__ __forceinline__ float cs_atomicMin(float* address, float value) {
  int* bits = (int*)address;
  int old = *bits;
  while (true) {
    const int desired = __float_as_int(fminf(__int_as_float(old), value));
    if (desired == old) return __int_as_float(old);
    const int seen = atomicCAS(bits, old, desired);
    if (seen == old) return __int_as_float(old);
    old = seen;
  }
}`,
  atomicMaxF64: `/* cuda.atomic.max on f64: compare-and-swap loop, fmax semantics. */
static __device__ __forceinline__ double cs_atomicMax(double* address, double value) {
  unsigned long long* bits = (unsigned long long*)address;
  unsigned long long old = *bits;
  while (true) {
    const unsigned long long desired = (unsigned long long)__double_as_longlong(fmax(__longlong_as_double((long long)old), value));
    if (desired == old) return __longlong_as_double((long long)old);
    const unsigned long long seen = atomicCAS(bits, old, desired);
    if (seen == old) return __longlong_as_double((long long)old);
    old = seen;
  }
}`,
  atomicMinF64: `/* cuda.atomic.min on f64: compare-and-swap loop, fmin semantics. */
static __device__ __forceinline__ double cs_atomicMin(double* address, double value) {
  unsigned long long* bits = (unsigned long long*)address;
  unsigned long long old = *bits;
  while (true) {
    const unsigned long long desired = (unsigned long long)__double_as_longlong(fmin(__longlong_as_double((long long)old), value));
    if (desired == old) return __longlong_as_double((long long)old);
    const unsigned long long seen = atomicCAS(bits, old, desired);
    if (seen == old) return __longlong_as_double((long long)old);
    old = seen;
  }
}`,
  atomicAddF64: `#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 600
/* f64 atomicAdd is native from sm_60; before that, a compare-and-swap loop. */
static __device__ double atomicAdd(double* address, double value) {
  unsigned long long* bits = (unsigned long long*)address;
  unsigned long long old = *bits, assumed;
  do {
    assumed = old;
    old = atomicCAS(bits, assumed, (unsigned long long)__double_as_longlong(value + __longlong_as_double((long long)assumed)));
  } while (assumed != old);
  return __longlong_as_double((long long)old);
}
#endif`,
  printfBytes: `/* Bytes of console.log output this module wrote into CUDA's printf FIFO since the program started
   (a lower bound per record, see compiler/src/cuda/printf-bytes.ts). The GPU backend reads it at each
   synchronization (cuModuleGetGlobal) to report output the circular FIFO overwrote. */
extern "C" {
__device__ unsigned long long ${PRINTF_BYTES_SYMBOL} = 0ull;
}`,
  f32Bits: `/* Constant f32 arrays holding NaN or infinity are stored as bit patterns. */
union cs_f32_bits { unsigned bits; float value; };`,
  f64Bits: `/* Constant f64 arrays holding NaN or infinity are stored as bit patterns. */
union cs_f64_bits { unsigned long long bits; double value; };`,
};

const ORDER: HelperName[] = [
  "laneid",
  "lanemaskLt",
  "matchAll",
  "dynamicShared",
  "truthy",
  "sign",
  "round",
  "atomicAddF64",
  "atomicMaxF32",
  "atomicMinF32",
  "atomicMaxF64",
  "atomicMinF64",
  "f32Bits",
  "f64Bits",
  "printfBytes",
];

/** The helpers' source, in a fixed order, for the names used. */
export function preludeFor(used: ReadonlySet<HelperName>): string[] {
  return ORDER.filter((h) => used.has(h)).map((h) => HELPERS[h]);
}
