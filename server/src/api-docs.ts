/**
 * Hover documentation for the kernel API: every `cuda.*` member a kernel may use (signature, what it
 * does, the CUDA C++ it becomes, the Numba equivalent), the `Math.*` functions kernels support, and the
 * dtypes. Keys are paths below `cuda` (`"atomic.add"`, `"threadIdx.x"`).
 */
import { DTYPE_NAMES, DTYPES } from "@cudascript/compiler/dtypes";

export interface ApiDoc {
  readonly signature: string;
  readonly doc: string;
  /** What it compiles to in CUDA C++. */
  readonly cuda?: string;
  readonly numba?: string;
}

const dim3 = (name: string, what: string, numba: string, cuda: string): ApiDoc => ({
  signature: `cuda.${name}: { readonly x: i32; readonly y: i32; readonly z: i32 }`,
  doc: what,
  cuda,
  numba,
});

const atomic = (op: string, what: string, cuda: string, numba: string, dtypes: string): ApiDoc => ({
  signature: `cuda.atomic.${op}(array: Array1D, index: i32, value: number): number`,
  doc: `${what} Returns the element's old value. Works on ${dtypes} in global or shared memory.`,
  cuda,
  numba,
});

const shfl = (name: string, last: string, what: string, cuda: string, numba: string): ApiDoc => ({
  signature: `cuda.${name}(mask: u32, value: number, ${last}: i32): number`,
  doc: `${what} Every lane named in \`mask\` (usually \`0xffffffff\`) must execute the call. Works on 32-bit values (i32, u32, f32).`,
  cuda,
  numba,
});

export const CUDA_API_DOCS: Readonly<Record<string, ApiDoc>> = {
  "": {
    signature: 'import { cuda } from "cudascript"',
    doc: "The kernel API, modelled on Numba's `numba.cuda`. `cuda.jit` declares kernels and `cuda.device` device functions; inside them `cuda.*` gives thread indices, shared/local/constant memory, barriers, atomics and warp intrinsics.",
    numba: "from numba import cuda",
  },
  jit: {
    signature: "cuda.jit(fn: (...args) => void, options?: { fastmath?, fma?, maxRegisters?, launchBounds?, lineinfo?, debug?, cache? }): Kernel",
    doc: "Compiles `fn` as a kernel. Parameters are typed arrays (global memory) or annotated scalars (`f32`, `i32`, …); a kernel returns nothing. Launch it from host code with `kernel.launch(grid, block, { sharedMem? })(...args)`. `launchBounds: max` or `[max, minBlocksPerSM]` is `__launch_bounds__`: no launch may have more than `max` threads per block.",
    cuda: "__global__ void name(...)",
    numba: "@cuda.jit (options: fastmath=, max_registers=, launch_bounds=, lineinfo=, debug=, cache=)",
  },
  device: {
    signature: "cuda.device(fn: (...args) => T): typeof fn",
    doc: "A device function: callable from kernels and other device functions (not recursively), may return a scalar. Annotate every parameter and the return type.",
    cuda: "__device__ T name(...)",
    numba: "@cuda.jit(device=True)",
  },
  threadIdx: dim3("threadIdx", "This thread's index within its block, per axis (0 … blockDim − 1).", "cuda.threadIdx", "threadIdx"),
  blockIdx: dim3("blockIdx", "This block's index within the grid, per axis (0 … gridDim − 1).", "cuda.blockIdx", "blockIdx"),
  blockDim: dim3("blockDim", "Threads per block along each axis, as given at launch.", "cuda.blockDim", "blockDim"),
  gridDim: dim3("gridDim", "Blocks in the grid along each axis, as given at launch.", "cuda.gridDim", "gridDim"),
  laneid: { signature: "cuda.laneid: i32", doc: "This thread's lane in its warp, 0–31.", cuda: "threadIdx.x % 32 (for 1-D blocks; %laneid)", numba: "cuda.laneid" },
  warpsize: { signature: "cuda.warpsize: i32", doc: "Threads per warp (32 on every NVIDIA GPU).", cuda: "warpSize", numba: "cuda.warpsize" },
  grid: {
    signature: "cuda.grid(1): i32 · cuda.grid(2): [i32, i32] · cuda.grid(3): [i32, i32, i32]",
    doc: "This thread's absolute index in the grid: `blockIdx.x * blockDim.x + threadIdx.x` for 1 dimension; destructure the tuple for 2 or 3 (`const [x, y] = cuda.grid(2)`). The argument must be a constant 1, 2 or 3.",
    cuda: "blockIdx.x * blockDim.x + threadIdx.x",
    numba: "cuda.grid(ndim)",
  },
  gridsize: {
    signature: "cuda.gridsize(1): i32 · cuda.gridsize(2): [i32, i32] · cuda.gridsize(3): [i32, i32, i32]",
    doc: "Total threads in the grid along each dimension (`gridDim.x * blockDim.x` for 1): the stride of a grid-stride loop.",
    cuda: "gridDim.x * blockDim.x",
    numba: "cuda.gridsize(ndim)",
  },
  shared: { signature: "cuda.shared", doc: "Shared memory: visible to every thread of a block, lives as long as the block. Declare arrays with `cuda.shared.array`.", cuda: "__shared__", numba: "cuda.shared" },
  "shared.array": {
    signature: "cuda.shared.array(shape: number | [number, number?, number?], dtype): Array",
    doc: "A block-wide array in shared memory. The shape must be a compile-time constant (module `const`s are fine); `cuda.shared.array(0, dtype)` declares the dynamic shared array sized at launch with `{ sharedMem: bytes }`. Static shared memory is limited to 48 KiB per block. Bind it with `const`.",
    cuda: "__shared__ T name[N]; / extern __shared__ T name[];",
    numba: "cuda.shared.array(shape, dtype)",
  },
  local: { signature: "cuda.local", doc: "Per-thread local memory. Declare arrays with `cuda.local.array`.", cuda: "local arrays", numba: "cuda.local" },
  "local.array": {
    signature: "cuda.local.array(shape: number | [number, number?, number?], dtype): Array",
    doc: "A per-thread array. The shape must be a compile-time constant: to size it by a parameter, allocate a module-constant maximum and use part of it. Small arrays indexed by constants live in registers; others in local memory (slow, cached in L1).",
    cuda: "T name[N];",
    numba: "cuda.local.array(shape, dtype)",
  },
  const: { signature: "cuda.const", doc: "Constant memory: read-only, cached, fastest when every thread of a warp reads the same element.", cuda: "__constant__", numba: "cuda.const" },
  "const.arrayLike": {
    signature: "cuda.const.arrayLike(hostArray: TypedArray | NDArray): TypedArray | Array2D | Array3D",
    doc: "A copy of a module-level constant typed array (`const W = new Float32Array([…])` with literal values) in constant memory; read-only inside kernels. A 2-D/3-D one is a module `cuda.ndarray(data, [rows, cols])` with a constant shape, indexed `w[i][j]`.",
    cuda: "__constant__ T name[N] = { … }; (T name[R][C] for 2-D)",
    numba: "cuda.const.array_like(ary)",
  },
  syncthreads: {
    signature: "cuda.syncthreads(): void",
    doc: "Barrier for every thread of the block: waits until all have reached it and their shared/global writes are visible to the block. Every thread of the block must reach the same call (not inside a condition that depends on the thread — see CS5001).",
    cuda: "__syncthreads()",
    numba: "cuda.syncthreads()",
  },
  syncthreadsCount: { signature: "cuda.syncthreadsCount(predicate: boolean | number): i32", doc: "`syncthreads`, returning how many threads of the block passed a true predicate.", cuda: "__syncthreads_count(p)", numba: "cuda.syncthreads_count(predicate)" },
  syncthreadsAnd: { signature: "cuda.syncthreadsAnd(predicate: boolean | number): i32", doc: "`syncthreads`, returning non-zero if the predicate is true for every thread of the block.", cuda: "__syncthreads_and(p)", numba: "cuda.syncthreads_and(predicate)" },
  syncthreadsOr: { signature: "cuda.syncthreadsOr(predicate: boolean | number): i32", doc: "`syncthreads`, returning non-zero if the predicate is true for any thread of the block.", cuda: "__syncthreads_or(p)", numba: "cuda.syncthreads_or(predicate)" },
  threadfence: { signature: "cuda.threadfence(): void", doc: "Memory fence: this thread's writes before the fence are seen by every thread of the device before its writes after it. Not a barrier.", cuda: "__threadfence()", numba: "cuda.threadfence()" },
  threadfenceBlock: { signature: "cuda.threadfenceBlock(): void", doc: "Memory fence at block scope: ordering of this thread's writes as seen by the threads of its block.", cuda: "__threadfence_block()", numba: "cuda.threadfence_block()" },
  threadfenceSystem: { signature: "cuda.threadfenceSystem(): void", doc: "Memory fence at system scope: also orders writes as seen by the host and peer devices.", cuda: "__threadfence_system()", numba: "cuda.threadfence_system()" },
  syncwarp: { signature: "cuda.syncwarp(mask?: u32): void", doc: "Barrier for the lanes of the warp named in `mask` (default all 32).", cuda: "__syncwarp(mask)", numba: "cuda.syncwarp(mask)" },
  atomic: { signature: "cuda.atomic", doc: "Atomic read-modify-write operations on global or shared arrays: add, sub, and, or, xor, inc, dec, exch, max, min, nanmax, nanmin, compareAndSwap. Each returns the old value.", cuda: "atomicAdd, atomicSub, …", numba: "cuda.atomic" },
  "atomic.add": atomic("add", "`array[index] += value` atomically.", "atomicAdd(&a[i], v)", "cuda.atomic.add(ary, idx, val)", "i32, u32, f32, f64 and f16 arrays"),
  "atomic.sub": atomic("sub", "`array[index] -= value` atomically.", "atomicSub(&a[i], v) (atomicAdd of −v for floats)", "cuda.atomic.sub(ary, idx, val)", "i32, u32, f32, f64 and f16 arrays"),
  "atomic.and": atomic("and", "`array[index] &= value` atomically.", "atomicAnd(&a[i], v)", "cuda.atomic.and_(ary, idx, val)", "i32 and u32 arrays"),
  "atomic.or": atomic("or", "`array[index] |= value` atomically.", "atomicOr(&a[i], v)", "cuda.atomic.or_(ary, idx, val)", "i32 and u32 arrays"),
  "atomic.xor": atomic("xor", "`array[index] ^= value` atomically.", "atomicXor(&a[i], v)", "cuda.atomic.xor(ary, idx, val)", "i32 and u32 arrays"),
  "atomic.inc": atomic("inc", "`array[index] = old >= value ? 0 : old + 1` atomically (a wrapping counter).", "atomicInc(&a[i], v)", "cuda.atomic.inc(ary, idx, val)", "u32 arrays"),
  "atomic.dec": atomic("dec", "`array[index] = (old === 0 || old > value) ? value : old - 1` atomically.", "atomicDec(&a[i], v)", "cuda.atomic.dec(ary, idx, val)", "u32 arrays"),
  "atomic.exch": atomic("exch", "Stores `value` into `array[index]` atomically.", "atomicExch(&a[i], v)", "cuda.atomic.exch(ary, idx, val)", "i32, u32 and f32 arrays"),
  "atomic.max": atomic("max", "`array[index] = value` if `value > old`, atomically. As Numba: a NaN element or a NaN value leaves the element as it is, and so does an equal value (+0 does not replace -0).", "atomicMax(&a[i], v) (cs_atomicMax, a CAS loop, for floats)", "cuda.atomic.max(ary, idx, val)", "i32, u32, f32, f64 and f16 arrays"),
  "atomic.min": atomic("min", "`array[index] = value` if `value < old`, atomically. As Numba: a NaN element or a NaN value leaves the element as it is, and so does an equal value (-0 does not replace +0).", "atomicMin(&a[i], v) (cs_atomicMin, a CAS loop, for floats)", "cuda.atomic.min(ary, idx, val)", "i32, u32, f32, f64 and f16 arrays"),
  "atomic.nanmax": atomic("nanmax", "`atomic.max` treating NaN as a missing value: a NaN element takes `value`, a NaN value leaves the element as it is. On integer arrays the same as `atomic.max`.", "cs_atomicNanMax(&a[i], v) (a CAS loop) for floats, atomicMax for integers", "cuda.atomic.nanmax(ary, idx, val)", "i32, u32, f32, f64 and f16 arrays"),
  "atomic.nanmin": atomic("nanmin", "`atomic.min` treating NaN as a missing value: a NaN element takes `value`, a NaN value leaves the element as it is. On integer arrays the same as `atomic.min`.", "cs_atomicNanMin(&a[i], v) (a CAS loop) for floats, atomicMin for integers", "cuda.atomic.nanmin(ary, idx, val)", "i32, u32, f32, f64 and f16 arrays"),
  "atomic.compareAndSwap": {
    signature: "cuda.atomic.compareAndSwap(array: Array1D, index: i32, expected: number, value: number): number",
    doc: "Stores `value` into `array[index]` if it equals `expected`, atomically; returns the old value (the swap happened if it equals `expected`). Works on i32 and u32 arrays.",
    cuda: "atomicCAS(&a[i], expected, v)",
    numba: "cuda.atomic.cas(ary, idx, old, val) (compare_and_swap(ary, old, val) on ary[0])",
  },
  shflSync: shfl("shflSync", "srcLane", "Returns `value` as held by lane `srcLane` of the warp.", "__shfl_sync(mask, v, srcLane)", "cuda.shfl_sync(mask, value, src_lane)"),
  shflUpSync: shfl("shflUpSync", "delta", "Returns `value` from the lane `delta` below this one (lanes below `delta` keep their own).", "__shfl_up_sync(mask, v, delta)", "cuda.shfl_up_sync(mask, value, delta)"),
  shflDownSync: shfl("shflDownSync", "delta", "Returns `value` from the lane `delta` above this one (the top lanes keep their own): the step of a warp reduction.", "__shfl_down_sync(mask, v, delta)", "cuda.shfl_down_sync(mask, value, delta)"),
  shflXorSync: shfl("shflXorSync", "laneMask", "Returns `value` from lane `laneid ^ laneMask`: a butterfly exchange (all-reduce within a warp).", "__shfl_xor_sync(mask, v, laneMask)", "cuda.shfl_xor_sync(mask, value, lane_mask)"),
  allSync: { signature: "cuda.allSync(mask: u32, predicate: boolean | number): boolean", doc: "True if the predicate is true for every lane in `mask`.", cuda: "__all_sync(mask, p)", numba: "cuda.all_sync(mask, predicate)" },
  anySync: { signature: "cuda.anySync(mask: u32, predicate: boolean | number): boolean", doc: "True if the predicate is true for any lane in `mask`.", cuda: "__any_sync(mask, p)", numba: "cuda.any_sync(mask, predicate)" },
  ballotSync: { signature: "cuda.ballotSync(mask: u32, predicate: boolean | number): u32", doc: "A 32-bit mask with bit N set when lane N (in `mask`) has a true predicate.", cuda: "__ballot_sync(mask, p)", numba: "cuda.ballot_sync(mask, predicate)" },
  activemask: { signature: "cuda.activemask(): u32", doc: "The mask of lanes of the warp currently executing this call.", cuda: "__activemask()", numba: "cuda.activemask()" },
  eqSync: { signature: "cuda.eqSync(mask: u32, predicate: boolean | number): boolean", doc: "True if the predicate is the same (all true or all false) for every lane in `mask`.", cuda: "__uni_sync(mask, p)", numba: "cuda.eq_sync(mask, predicate)" },
  matchAnySync: { signature: "cuda.matchAnySync(mask: u32, value: number | boolean): u32", doc: "The mask of the lanes in `mask` whose `value` has the same bits as this lane's (floats: `0` and `-0` differ, NaN matches NaN). Compute capability 7.0+.", cuda: "__match_any_sync(mask, v)", numba: "cuda.match_any_sync(mask, value)" },
  matchAllSync: { signature: "cuda.matchAllSync(mask: u32, value: number | boolean): u32", doc: "`mask` if every lane in `mask` has the same `value` (same bits), else 0: Numba's `pred` is `result !== 0`. Compute capability 7.0+.", cuda: "__match_all_sync(mask, v, &pred)", numba: "cuda.match_all_sync(mask, value) (returns (mask, pred))" },
  lanemaskLt: { signature: "cuda.lanemaskLt(): u32", doc: "The mask of the lanes below this one in its warp, `(1 << cuda.laneid) - 1`: with `cuda.popc(mask & cuda.lanemaskLt())` a lane finds its rank among the lanes of `mask`.", cuda: "%lanemask_lt", numba: "cuda.lanemask_lt()" },
  selp: { signature: "cuda.selp(condition: boolean | number, ifTrue: T, ifFalse: T): T", doc: "`condition ? ifTrue : ifFalse`, exactly: the same typing as `?:`, and only the chosen value is evaluated.", cuda: "condition ? a : b", numba: "cuda.selp(pred, a, b)" },
  popc: { signature: "cuda.popc(x: number): i32", doc: "Number of set bits of the 32-bit integer `x`.", cuda: "__popc(x)", numba: "cuda.popc(x)" },
  brev: { signature: "cuda.brev(x: number): u32", doc: "The bits of the 32-bit integer `x` in reverse order.", cuda: "__brev(x)", numba: "cuda.brev(x)" },
  clz: { signature: "cuda.clz(x: number): i32", doc: "Number of leading zero bits of the 32-bit integer `x` (32 for 0).", cuda: "__clz(x)", numba: "cuda.clz(x)" },
  ffs: { signature: "cuda.ffs(x: number): i32", doc: "Position (1-based) of the least significant set bit of `x`, 0 if none.", cuda: "__ffs(x)", numba: "cuda.ffs(x)" },
  cbrt: { signature: "cuda.cbrt(x: number): number", doc: "Cube root, the same as `Math.cbrt(x)`: f32 stays f32, an integer becomes the kernel's float.", cuda: "cbrtf(x) / cbrt(x)", numba: "cuda.cbrt(x)" },
  fma: { signature: "cuda.fma(a: number, b: number, c: number): number", doc: "`a * b + c` with a single rounding (fused multiply-add), in f32 or f64.", cuda: "fmaf(a, b, c) / fma(a, b, c)", numba: "cuda.fma(a, b, c)" },
  ...complexDocs(),
  ...randomDocs(),
};

/** `cuda.random.*` draws (docs/kernel-language.md#random-numbers; compiler/src/cuda/random.ts). */
function randomDocs(): Record<string, ApiDoc> {
  const draw = (name: string, result: string, doc: string, numba: string, cuda: string): [string, ApiDoc] => [
    `random.${name}`,
    { signature: `cuda.random.${name}(states: Xoroshiro128pStates, index: i32 | i64): ${result}`, doc: `${doc} Reads and advances state \`index\` (row \`index\` of the [n, 2] u64 state array): give each thread its own, e.g. \`cuda.grid(1)\`.`, cuda, numba },
  ];
  return Object.fromEntries([
    ["random", { signature: "cuda.random", doc: "Numba's GPU random numbers (xoroshiro128+): the host makes the states with `cuda.random.createXoroshiro128pStates(n, seed)`, kernels draw with xoroshiro128pUniformFloat32/64 and xoroshiro128pNormalFloat32/64. Bit-exact with Numba's states and uniform draws.", numba: "numba.cuda.random" }],
    draw("xoroshiro128pUniformFloat32", "f32", "A uniform f32 in [0, 1) (the f64 draw rounded to f32, so very rarely 1).", "xoroshiro128p_uniform_float32(states, index)", "cs_xoroshiro128p_uniform_f32"),
    draw("xoroshiro128pUniformFloat64", "f64", "A uniform f64 in [0, 1), 53 random bits.", "xoroshiro128p_uniform_float64(states, index)", "cs_xoroshiro128p_uniform_f64"),
    draw("xoroshiro128pNormalFloat32", "f32", "A standard normal f32 (Box-Muller on two f32 uniforms).", "xoroshiro128p_normal_float32(states, index)", "cs_xoroshiro128p_normal_f32"),
    draw("xoroshiro128pNormalFloat64", "f64", "A standard normal f64 (Box-Muller on two f32 uniforms, as Numba).", "xoroshiro128p_normal_float64(states, index)", "cs_xoroshiro128p_normal_f64"),
  ]);
}

/** `cuda.complex.*` (docs/kernel-language.md#complex-numbers-c64-c128; compiler/src/cuda/complex.ts). */
function complexDocs(): Record<string, ApiDoc> {
  const fn = (name: string, params: string, result: string, doc: string, numba: string): [string, ApiDoc] => [
    `complex.${name}`,
    { signature: `cuda.complex.${name}(${params}): ${result}`, doc, cuda: name === "c64" || name === "c128" ? `cs_make_${name}(re, im)` : `cs_c${name}(…)`, numba },
  ];
  const z = "Z (c64 or c128)";
  return Object.fromEntries([
    ["complex", { signature: "cuda.complex", doc: "Complex numbers (c64 = two f32, c128 = two f64) as functions, since TypeScript has no operator overloading: c64, c128, add, sub, mul, div, neg, conj, abs, arg, exp, log, sqrt, sin, cos, rect, eq. Read the parts with z.re and z.im.", numba: "complex64 / complex128 and cmath" }],
    fn("c64", "re: number, im = 0", "c64", "A c64 from two parts (rounded to f32), or `cuda.complex.c64(z)` converts a c128.", "numpy.complex64(complex(re, im))"),
    fn("c128", "re: number, im = 0", "c128", "A c128 from two parts, or `cuda.complex.c128(z)` converts a c64 exactly.", "complex(re, im)"),
    fn("add", "a: Z, b: Z", "Z", "a + b. A real operand is x + 0i; c64 and c128 do not mix (CS2023).", "a + b"),
    fn("sub", "a: Z, b: Z", "Z", "a − b.", "a - b"),
    fn("mul", "a: Z, b: Z", "Z", "a · b (the schoolbook product).", "a * b"),
    fn("div", "a: Z, b: Z", "Z", "a / b by Smith's algorithm (no overflow of |b|²).", "a / b"),
    fn("neg", `z: ${z}`, "Z", "−z.", "-z"),
    fn("conj", `z: ${z}`, "Z", "The complex conjugate re − im·i.", "z.conjugate()"),
    fn("abs", `z: ${z}`, "f32 | f64", "The modulus |z| = hypot(re, im).", "abs(z)"),
    fn("arg", `z: ${z}`, "f32 | f64", "The phase atan2(im, re), in (−π, π].", "cmath.phase(z)"),
    fn("exp", `z: ${z}`, "Z", "e^z = e^re · (cos im + i sin im).", "cmath.exp(z)"),
    fn("log", `z: ${z}`, "Z", "The principal logarithm log|z| + i·arg z.", "cmath.log(z)"),
    fn("sqrt", `z: ${z}`, "Z", "The principal square root (Kahan's form; branch cut on the negative real axis).", "cmath.sqrt(z)"),
    fn("sin", `z: ${z}`, "Z", "sin z = sin re · cosh im + i cos re · sinh im.", "cmath.sin(z)"),
    fn("cos", `z: ${z}`, "Z", "cos z = cos re · cosh im − i sin re · sinh im.", "cmath.cos(z)"),
    fn("rect", "r: number, phi: number", "c64 | c128", "The complex number of modulus r and phase phi (c128 when an argument is f64).", "cmath.rect(r, phi)"),
    fn("eq", "a: Z, b: Z", "bool", "Whether both parts are equal (`===` on complex values would compare objects: CS2022).", "a == b"),
  ]);
}
for (const dim of ["threadIdx", "blockIdx", "blockDim", "gridDim"]) {
  const base = CUDA_API_DOCS[dim]!;
  for (const axis of ["x", "y", "z"])
    (CUDA_API_DOCS as Record<string, ApiDoc>)[`${dim}.${axis}`] = { ...base, signature: `cuda.${dim}.${axis}: i32`, cuda: `${base.cuda}.${axis}`, numba: `${base.numba}.${axis}` };
}

interface MathDoc {
  readonly doc: string;
  readonly arity: number;
  /** CUDA f32 and f64 function names, when they differ from `name`/`namef`. */
  readonly cuda?: string;
  readonly numba?: string;
}

const unary = (doc: string, numba?: string): MathDoc => ({ doc, arity: 1, numba });

/** The `Math` functions and constants a kernel may use. */
export const MATH_DOCS: Readonly<Record<string, MathDoc>> = {
  sqrt: unary("Square root."),
  cbrt: unary("Cube root.", "math.cbrt (Python 3.11+) / cuda.cbrt"),
  exp: unary("e to the power x."),
  expm1: unary("e^x − 1, accurate near 0."),
  log: unary("Natural logarithm."),
  log2: unary("Base-2 logarithm."),
  log10: unary("Base-10 logarithm."),
  log1p: unary("ln(1 + x), accurate near 0."),
  sin: unary("Sine (radians)."),
  cos: unary("Cosine (radians)."),
  tan: unary("Tangent (radians)."),
  asin: unary("Arcsine."),
  acos: unary("Arccosine."),
  atan: unary("Arctangent."),
  sinh: unary("Hyperbolic sine."),
  cosh: unary("Hyperbolic cosine."),
  tanh: unary("Hyperbolic tangent."),
  asinh: unary("Inverse hyperbolic sine."),
  acosh: unary("Inverse hyperbolic cosine."),
  atanh: unary("Inverse hyperbolic tangent."),
  floor: { doc: "Largest whole number ≤ x (an integer argument is returned as is). `Math.floor(x) | 0` gives an i32.", arity: 1 },
  ceil: { doc: "Smallest whole number ≥ x.", arity: 1 },
  round: { doc: "Nearest whole number, halves rounded up (JavaScript semantics: `floor(x + 0.5)`).", arity: 1, numba: "no exact equivalent (Python's round() rounds halves to even)" },
  trunc: { doc: "x with its fraction dropped. `Math.trunc(a / b)` on integers is truncating integer division.", arity: 1 },
  pow: { doc: "x to the power y. Prefer `x * x` for squares.", arity: 2, numba: "math.pow / x ** y" },
  atan2: { doc: "Angle of the point (x, y): `Math.atan2(y, x)`.", arity: 2 },
  hypot: { doc: "√(x² + y²) without overflow (two arguments in kernels).", arity: 2 },
  abs: { doc: "Absolute value; integer for integers, float for floats.", arity: 1, cuda: "abs / fabsf / fabs", numba: "abs(x)" },
  sign: { doc: "−1, 0 or 1 with the sign of x.", arity: 1, cuda: "(x > 0) - (x < 0)", numba: "numpy.sign" },
  min: { doc: "Smallest argument (one or more), in their common type.", arity: -1, cuda: "min / fminf / fmin", numba: "min(a, b)" },
  max: { doc: "Largest argument (one or more), in their common type.", arity: -1, cuda: "max / fmaxf / fmax", numba: "max(a, b)" },
  fround: { doc: "x rounded to f32: makes a value (or a literal) single precision.", arity: 1, cuda: "(float)x", numba: "numpy.float32(x)" },
  imul: { doc: "32-bit integer multiplication (wrapping).", arity: 2, cuda: "a * b on int", numba: "numpy.int32 multiplication" },
  clz32: { doc: "Leading zero bits of x as a 32-bit unsigned integer.", arity: 1, cuda: "__clz(x)", numba: "cuda.clz(x)" },
};

export const MATH_CONSTANT_DOCS: Readonly<Record<string, string>> = {
  PI: "π ≈ 3.14159, folded into the kernel as a constant.",
  E: "e ≈ 2.71828, folded as a constant.",
  LN2: "ln 2, folded as a constant.",
  LN10: "ln 10, folded as a constant.",
  LOG2E: "log₂ e, folded as a constant.",
  LOG10E: "log₁₀ e, folded as a constant.",
  SQRT2: "√2, folded as a constant.",
  SQRT1_2: "√½, folded as a constant.",
};

/** Hover text of each dtype name: the dtype table's docs (compiler/src/dtypes/table.ts). */
export const DTYPE_DOCS: Readonly<Record<string, string>> = Object.fromEntries(DTYPE_NAMES.map((d) => [d, DTYPES[d].doc]));

export function renderApiDoc(d: ApiDoc): string {
  const lines = ["```typescript", d.signature, "```", "", d.doc, ""];
  if (d.cuda) lines.push(`CUDA C++: \`${d.cuda}\`  `);
  if (d.numba) lines.push(`Numba: \`${d.numba}\``);
  return lines.join("\n").trimEnd();
}

export function renderMathDoc(name: string): string | undefined {
  if (Object.prototype.hasOwnProperty.call(MATH_CONSTANT_DOCS, name)) return ["```typescript", `Math.${name}: number`, "```", "", MATH_CONSTANT_DOCS[name]!].join("\n");
  if (!Object.prototype.hasOwnProperty.call(MATH_DOCS, name)) {
    if (name === "random") return "`Math.random` is not available in kernels: hash the thread index with a seed, or pass random numbers in an array.";
    return undefined;
  }
  const d = MATH_DOCS[name]!;
  const params = d.arity === -1 ? "...values: number[]" : d.arity === 2 ? "x: number, y: number" : "x: number";
  const cuda = d.cuda ?? `${name}f (f32) / ${name} (f64)`;
  return ["```typescript", `Math.${name}(${params}): number`, "```", "", `${d.doc} In a kernel: f32 in f32 code, f64 when an argument is f64.`, "", `CUDA C++: \`${cuda}\`  `, `Numba: \`${d.numba ?? `math.${name}`}\``].join("\n");
}
