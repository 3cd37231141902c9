/**
 * The f16 (half precision) type of the generated CUDA C++: `cs_half`, with its operators written in
 * inline PTX so that the GPU runs native half instructions (add/sub/mul/fma.rn.f16, neg/abs.f16,
 * setp.*.f16, cvt.rn.f16.*). NVRTC 11.8 (the one Debian ships) has no cuda_fp16.h of its own, and the
 * CUDA 13 headers installed beside it do not match it, so the prelude defines the type itself.
 *
 * NVRTC compiles the generated code in its default dialect, which accepts no C++11 (no `= default`,
 * explicit conversion operators or delegating constructors), so the type is written in C++03: an
 * empty default constructor (allowed for __shared__ arrays), explicit constructors (so that `h + 1.0f`
 * cannot silently pick an f16 operation; the IR converts explicitly anyway) and conversion operators.
 * The g++ emulation defines the same names on `_Float16` (test/emulation/cuda_emulation.hpp), so this
 * block is left out there.
 */

const BINARY_PTX: readonly [string, string][] = [
  ["+", "add.rn.f16"],
  ["-", "sub.rn.f16"],
  ["*", "mul.rn.f16"],
];

/** setp comparisons; `!=` is the unordered one, true for NaN as JavaScript's `!==` is. */
const COMPARE_PTX: readonly [string, string][] = [
  ["==", "eq"],
  ["!=", "neu"],
  ["<", "lt"],
  ["<=", "le"],
  [">", "gt"],
  [">=", "ge"],
];

const INT_TYPES: readonly [string, string][] = [
  ["int", "s32"],
  ["unsigned", "u32"],
  ["short", "s16"],
  ["unsigned short", "u16"],
  ["signed char", "s8"],
  ["unsigned char", "u8"],
];

/* Every module that uses f16 gets every operator; `unused` keeps NVRTC from warning (#177-D) about the ones it does not call. */
const fn = "static __device__ __forceinline__ __attribute__((unused))";

export const HALF_PRELUDE = `#ifndef CUDASCRIPT_EMULATION
/* f16: IEEE binary16 in 16 bits, every operation rounded to f16 by the half instructions (sm_53+). */
struct cs_half {
  unsigned short bits;
  __device__ cs_half() {}
  explicit __device__ cs_half(float f) { asm("cvt.rn.f16.f32 %0, %1;" : "=h"(bits) : "f"(f)); }
  explicit __device__ cs_half(double d) { asm("cvt.rn.f16.f64 %0, %1;" : "=h"(bits) : "d"(d)); }
${INT_TYPES.map(([t, p]) => `  explicit __device__ cs_half(${t} i) { asm("cvt.rn.f16.${p === "s8" || p === "s16" ? "s32" : p === "u8" || p === "u16" ? "u32" : p} %0, %1;" : "=h"(bits) : "r"((${p.startsWith("s") ? "int" : "unsigned"})i)); }`).join("\n")}
  explicit __device__ cs_half(bool b) { bits = b ? 0x3c00 : 0; } // 1.0 or +0.0
  __device__ operator float() const { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(bits)); return f; }
  __device__ operator double() const { return (double)(float)*this; }
${INT_TYPES.map(([t]) => `  __device__ operator ${t}() const { return (${t})(float)*this; }`).join("\n")}
  __device__ operator bool() const { const float f = (float)*this; return f != 0.0f && f == f; }
};
${BINARY_PTX.map(([op, ins]) => `${fn} cs_half operator${op}(cs_half a, cs_half b) { cs_half r; asm("${ins} %0, %1, %2;" : "=h"(r.bits) : "h"(a.bits), "h"(b.bits)); return r; }`).join("\n")}
/* PTX has no f16 division: the f32 quotient of two halves rounds to the correctly rounded f16 one. */
${fn} cs_half operator/(cs_half a, cs_half b) { return cs_half((float)a / (float)b); }
${fn} cs_half operator-(cs_half a) { cs_half r; asm("neg.f16 %0, %1;" : "=h"(r.bits) : "h"(a.bits)); return r; }
${["+", "-", "*", "/"].map((op) => `${fn} cs_half& operator${op}=(cs_half& a, cs_half b) { a = a ${op} b; return a; }`).join("\n")}
${COMPARE_PTX.map(([op, cmp]) => `${fn} bool operator${op}(cs_half a, cs_half b) { unsigned short r; asm("{ .reg .pred p; setp.${cmp}.f16 p, %1, %2; selp.u16 %0, 1, 0, p; }" : "=h"(r) : "h"(a.bits), "h"(b.bits)); return r != 0; }`).join("\n")}
/* An f16 as its 16 bits and back: warp shuffles move, and matches compare, these (the value only). */
${fn} unsigned cs_half_bits(cs_half h) { return h.bits; }
${fn} cs_half cs_half_from_bits(unsigned b) { cs_half h; h.bits = (unsigned short)b; return h; }
${fn} cs_half cs_hfma(cs_half a, cs_half b, cs_half c) { cs_half r; asm("fma.rn.f16 %0, %1, %2, %3;" : "=h"(r.bits) : "h"(a.bits), "h"(b.bits), "h"(c.bits)); return r; }
${fn} cs_half cs_habs(cs_half a) { cs_half r; asm("abs.f16 %0, %1;" : "=h"(r.bits) : "h"(a.bits)); return r; }
#endif`;

/** cuda.atomic.add/sub on f16: CUDA's one half atomic, `atom.add.noftz.f16` (sm_70+), on a generic address. */
export const HALF_ATOMIC_ADD = `#ifndef CUDASCRIPT_EMULATION
static __device__ __forceinline__ cs_half atomicAdd(cs_half* address, cs_half value) {
  cs_half old;
  asm volatile("atom.add.noftz.f16 %0, [%1], %2;" : "=h"(old.bits) : "l"(address), "h"(value.bits) : "memory");
  return old;
}
#endif`;
