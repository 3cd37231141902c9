/**
 * Small device helpers the generated code may call, each emitted only when used. Everything that
 * needs inline PTX or `extern __shared__` sits inside `#ifndef CUDASCRIPT_EMULATION`, so that a CPU
 * emulation (test/emulation/cuda_emulation.hpp) can provide its own definitions of the same names.
 * A helper group is emitted whole, so its functions are `__attribute__((unused))`: NVRTC says nothing
 * (#177-D) of the ones a module does not call (test/compile/toolchain-warnings.test.ts).
 */

import { PRINTF_BYTES_SYMBOL } from "./printf-bytes";
import { COMPLEX_PRELUDE } from "./complex";
import { HALF_ATOMIC_ADD, HALF_PRELUDE } from "./fp16";
import { XOROSHIRO128P_CPP } from "./random";
import { RAISE_PRELUDE } from "./raise";

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
  | "atomicNanMaxF32"
  | "atomicNanMinF32"
  | "atomicNanMaxF64"
  | "atomicNanMinF64"
  | "atomicAddF64"
  | "f32Bits"
  | "f64Bits"
  | "printfBytes"
  | "raise"
  | "complex"
  | "int64"
  | "intDivision"
  | "fminF32"
  | "fmaxF32"
  | "fminF64"
  | "fmaxF64"
  | "half"
  | "atomicAddF16"
  | "xoroshiro128p"
  | "gridSync"
  | "complexBits";

export type FloatMinMaxOp = "Max" | "Min" | "NanMax" | "NanMin";

/** When the element `o` is replaced by `value` (never NaN here: a NaN value returns first). */
const REPLACES: Record<FloatMinMaxOp, string> = {
  Max: "o < value", // a NaN element compares false: it stays
  Min: "o > value",
  NanMax: "!(o >= value)", // true for a NaN element: it takes the value
  NanMin: "!(o <= value)",
};

/**
 * cuda.atomic.max/min/nanmax/nanmin on floats (no native instruction): a compare-and-swap loop with
 * Numba's rule (numba-cuda's ___numba_atomic_{float,double}_{nan,}{max,min}, docs/abi.md): a NaN value
 * leaves the element unchanged; a NaN element stays for max/min and takes the value for nanmax/nanmin;
 * otherwise only a strictly greater (smaller) value replaces it, so +0 and -0 never replace each
 * other. (fmaxf would replace a NaN element, and may pick either zero.) Returns the element's value
 * just before this update.
 */
function floatMinMax(op: FloatMinMaxOp, t: "float" | "double"): string {
  const [bitsT, toBits, fromBits] =
    t === "float"
      ? ["int", "__float_as_int(value)", "__int_as_float(old)"]
      : ["unsigned long long", "(unsigned long long)__double_as_longlong(value)", "__longlong_as_double((long long)old)"];
  return `static __device__ __forceinline__ __attribute__((unused)) ${t} cs_atomic${op}(${t}* address, ${t} value) {
  ${bitsT}* bits = (${bitsT}*)address;
  ${bitsT} old = *bits;
  if (value != value) return ${fromBits};
  for (${t} o = ${fromBits}; ${REPLACES[op]}; o = ${fromBits}) {
    const ${bitsT} seen = atomicCAS(bits, old, ${toBits});
    if (seen == old) break;
    old = seen;
  }
  return ${fromBits};
}`;
}

/**
 * Math.min / Math.max of floats, the same bits on every backend (docs/kernel-language.md#semantics): a NaN
 * operand gives the other one (fminf's rule) and -0 is below +0, which fminf/fmaxf leave open. Equal
 * operands differ at most in the sign of a zero: OR of their bits picks -0 for min, AND picks +0 for max.
 */
function minMax(op: "min" | "max", t: "float" | "double"): string {
  const [toBits, fromBits, f] = t === "float" ? ["__float_as_int", "__int_as_float", "f"] : ["__double_as_longlong", "__longlong_as_double", ""];
  return `static __device__ __forceinline__ __attribute__((unused)) ${t} cs_f${op}(${t} a, ${t} b) { return a == b ? ${fromBits}(${toBits}(a) ${op === "min" ? "|" : "&"} ${toBits}(b)) : f${op}${f}(a, b); }`;
}

const HELPERS: Record<HelperName, string> = {
  laneid: `#ifndef CUDASCRIPT_EMULATION
/* cuda.laneid: the lane of this thread in its warp (the %laneid register; right for 2-D/3-D blocks too). */
static __device__ __forceinline__ __attribute__((unused)) int cs_laneid() {
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  return (int)lane;
}
#endif`,
  lanemaskLt: `#ifndef CUDASCRIPT_EMULATION
/* cuda.lanemaskLt(): the bits of the lanes below this one in its warp (the %lanemask_lt register). */
static __device__ __forceinline__ __attribute__((unused)) unsigned cs_lanemask_lt() {
  unsigned mask;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));
  return mask;
}
#endif`,
  matchAll: `/* cuda.matchAllSync(mask, v): the lanes of the mask that take part (match.all: the non-exited threads in
   membermask) when they all have the same v, else 0 (CUDA's predicate
   is then just whether the result is non-zero, so it is not returned separately). Compute capability 7.0+. */
template <class T>
static __device__ __forceinline__ __attribute__((unused)) unsigned cs_match_all_sync(unsigned mask, T value) {
  int all;
  return __match_all_sync(mask, value, &all);
}`,
  dynamicShared: `#ifndef CUDASCRIPT_EMULATION
/* cuda.shared.array(0, dtype): every dynamic shared array of a kernel views this one buffer. */
extern __shared__ __align__(16) unsigned char cs_dynamic_smem[];
/* Bytes of dynamic shared memory given at launch (the %dynamic_smem_size register). */
static __device__ __forceinline__ __attribute__((unused)) unsigned cs_dynamic_smem_size() {
  unsigned bytes;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
  return bytes;
}
#endif`,
  truthy: `/* JavaScript truthiness of a float: not zero and not NaN. (A template: NVRTC warns about an unused static function.) */
template <class T>
static __device__ __forceinline__ __attribute__((unused)) bool cs_truthy(T x) { return x != T(0) && x == x; }`,
  int64: `/* i64/u64 arithmetic with two's-complement wrap-around, as the simulator computes it: signed
   overflow is undefined in C++, so + - * << and negation go through unsigned long long. A shift count
   outside 0…63 (read as unsigned) gives 0, or the sign for >> of an i64, as PTX's shl/shr do. T is the
   operation's type, given explicitly. Templates, so that NVRTC compiles (and warns about) none unused. */
template <class U>
static __device__ __forceinline__ __attribute__((unused)) long long cs_wrap64(U x) { return (long long)x; }
template <class T>
static __device__ __forceinline__ __attribute__((unused)) T cs_shl64(T a, T n) { return (unsigned long long)n > 63ull ? T(0) : T((unsigned long long)a << n); }
template <class T>
static __device__ __forceinline__ __attribute__((unused)) T cs_shr64(T a, T n) { return (unsigned long long)n > 63ull ? (a > T(0) || a == T(0) ? T(0) : T(-1)) : T(a >> n); }`,
  intDivision: `/* Integer / and %, defined as the simulator computes them (docs/kernel-language.md#semantics): by zero
   both give 0; a divisor of -1 negates with wrap-around (MIN / -1 is MIN, MIN % -1 is 0), where C++'s / and %
   trap (SIGFPE on a CPU) or are undefined (a GPU). T is the operation's type, given explicitly. */
template <class T>
static __device__ __forceinline__ __attribute__((unused)) T cs_div(T a, T b) {
  return b == T(0) ? T(0) : T(-1) < T(0) && b == T(-1) ? T(0ull - (unsigned long long)a) : T(a / b);
}
template <class T>
static __device__ __forceinline__ __attribute__((unused)) T cs_rem(T a, T b) {
  return b == T(0) || (T(-1) < T(0) && b == T(-1)) ? T(0) : T(a % b);
}`,
  fminF32: minMax("min", "float"),
  fmaxF32: minMax("max", "float"),
  fminF64: minMax("min", "double"),
  fmaxF64: minMax("max", "double"),
  sign: `/* Math.sign: -1, 1, or the argument itself for 0, -0 and NaN. */
static __device__ __forceinline__ __attribute__((unused)) float cs_sign(float x) { return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : x; }
static __device__ __forceinline__ __attribute__((unused)) double cs_sign(double x) { return x > 0.0 ? 1.0 : x < 0.0 ? -1.0 : x; }
static __device__ __forceinline__ __attribute__((unused)) int cs_sign(int x) { return (x > 0) - (x < 0); }
static __device__ __forceinline__ __attribute__((unused)) unsigned cs_sign(unsigned x) { return x != 0u ? 1u : 0u; }`,
  round: `/* Math.round exactly as JavaScript: halves toward +infinity, -0 for [-0.5, -0], NaN and ±Infinity kept.
   floor(x + 0.5) is wrong where the sum rounds (0.49999997f gives 1; 2^23+1 gives 2^23+2); x - floor(x)
   never rounds in the cases that matter, so comparing it with one half is exact. copysign gives -0 for
   x in [-0.5, 0) and keeps -0. */
static __device__ __forceinline__ __attribute__((unused)) float cs_round(float x) {
  const float r = floorf(x);
  return copysignf(x - r >= 0.5f ? r + 1.0f : r, x);
}
static __device__ __forceinline__ __attribute__((unused)) double cs_round(double x) {
  const double r = floor(x);
  return copysign(x - r >= 0.5 ? r + 1.0 : r, x);
}`,
  atomicMaxF32: floatMinMax("Max", "float"),
  atomicMinF32: floatMinMax("Min", "float"),
  atomicMaxF64: floatMinMax("Max", "double"),
  atomicMinF64: floatMinMax("Min", "double"),
  atomicNanMaxF32: floatMinMax("NanMax", "float"),
  atomicNanMinF32: floatMinMax("NanMin", "float"),
  atomicNanMaxF64: floatMinMax("NanMax", "double"),
  atomicNanMinF64: floatMinMax("NanMin", "double"),
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
  complex: COMPLEX_PRELUDE,
  printfBytes: `/* Bytes of console.log output this module wrote into CUDA's printf FIFO since the program started
   (a lower bound per record, see compiler/src/cuda/printf-bytes.ts). The GPU backend reads it at each
   synchronization (cuModuleGetGlobal) to report output the circular FIFO overwrote. */
extern "C" {
__device__ unsigned long long ${PRINTF_BYTES_SYMBOL} = 0ull;
}`,
  raise: RAISE_PRELUDE,
  half: HALF_PRELUDE,
  atomicAddF16: HALF_ATOMIC_ADD,
  f32Bits: `/* Constant f32 arrays holding NaN or infinity are stored as bit patterns. */
union cs_f32_bits { unsigned bits; float value; };`,
  f64Bits: `/* Constant f64 arrays holding NaN or infinity are stored as bit patterns. */
union cs_f64_bits { unsigned long long bits; double value; };`,
  xoroshiro128p: XOROSHIRO128P_CPP,
  gridSync: `/* g.sync() of cuda.cg.thisGrid(): a barrier of every thread of the grid (docs/kernel-language.md#grid-synchronisation).
   NVRTC 11.8 ships no cooperative_groups.h, so the barrier is our own, on the launch's hidden workspace
   ws[0..1] (zeroed on the stream before every launch; the kernel is launched with cuLaunchCooperativeKernel,
   which guarantees that every block is resident, so spinning cannot starve a block that has not started):
   ws[0] counts the blocks that arrived, ws[1] is the barrier's generation. Thread 0 of each block reads the
   generation, makes the block's writes visible (__threadfence) and arrives; the last block to arrive resets
   the count for the next barrier and then bumps the generation, which releases the others. The count is
   reset before the generation changes, so a block cannot arrive at the next barrier early. */
#ifndef CUDASCRIPT_EMULATION
/* The pause in the barrier's spin loop: none on a GPU (the g++ emulation yields its thread there). */
static __device__ __forceinline__ __attribute__((unused)) void cs_grid_spin_pause() {}
#endif
static __device__ __forceinline__ __attribute__((unused)) void cs_grid_sync(unsigned int* ws) {
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    const unsigned int blocks = gridDim.x * gridDim.y * gridDim.z;
    const unsigned int generation = atomicAdd(&ws[1], 0u);
    __threadfence();
    if (atomicAdd(&ws[0], 1u) == blocks - 1u) {
      atomicExch(&ws[0], 0u);
      __threadfence();
      atomicAdd(&ws[1], 1u);
    } else {
      while (atomicAdd(&ws[1], 0u) == generation) cs_grid_spin_pause();
    }
    __threadfence();
  }
  __syncthreads();
}`,
  complexBits: `/* Constant complex arrays holding NaN or infinity are stored as bit patterns (re in the low half). */
union cs_c64_bits { unsigned long long bits; cs_c64 value; };
struct cs_c128_parts { unsigned long long re, im; };
union cs_c128_bits { cs_c128_parts bits; cs_c128 value; };`,
};

const ORDER: HelperName[] = [
  "half",
  "laneid",
  "lanemaskLt",
  "matchAll",
  "dynamicShared",
  "truthy",
  "sign",
  "fminF32",
  "fmaxF32",
  "fminF64",
  "fmaxF64",
  "round",
  "atomicAddF64",
  "atomicAddF16",
  "atomicMaxF32",
  "atomicMinF32",
  "atomicMaxF64",
  "atomicMinF64",
  "atomicNanMaxF32",
  "atomicNanMinF32",
  "atomicNanMaxF64",
  "atomicNanMinF64",
  "f32Bits",
  "f64Bits",
  "printfBytes",
  "raise",
  "complex",
  "complexBits",
  "int64",
  "intDivision",
  "xoroshiro128p",
  "gridSync",
];

/** The helpers' source, in a fixed order, for the names used. */
export function preludeFor(used: ReadonlySet<HelperName>): string[] {
  return ORDER.filter((h) => used.has(h)).map((h) => HELPERS[h]);
}
